// The tally as the browser keeps it (loaded before table.js, whose table, showTable, syncDealer and tallySaid it
// uses when called): read and checked, written at each tap, a damaged copy kept aside, another tab's change taken.
"use strict";

const TABLE_KEY = "xingzi.table.v1";

// What the browser's storage did with the tally: it could not keep it (full, or private mode: this visit only, said
// with every tally message), or what it held could not be read, or some of it (kept aside, said once: damagedWords).
let tallyUnsaved = false;
let tallyDamaged = null;  // {key: where the stored text was kept aside, parts: the parts left out ([]: all of it)}

// ``names``: the names typed for the seats, "" for a seat called by its wind (seatName: in the language shown).
// ``undone``: the hands undone that a redo puts back, ``previous``: the game before a new one (tallyundo.js).
function freshTable(names) {
  return { names: names || ["", "", "", ""], totals: [0, 0, 0, 0], dealer: 0, winner: 1, discarder: 0, hands: [],
    added: null, same: false, undone: [], previous: null };
}

const isSeat = (v) => Number.isInteger(v) && v >= 0 && v < 4;
const four = (a, ok) => Array.isArray(a) && a.length === 4 && a.every(ok);
const tallyHand = (h) => h && four(h.deltas, Number.isFinite) && isSeat(h.dealer);
const photoId = (v) => v === undefined || v === null || typeof v === "string";
const undoneHand = (u) => u && tallyHand(u.hand) && Number.isInteger(u.at) && u.at >= 0 && isSeat(u.dealer)
  && isSeat(u.winner) && isSeat(u.discarder) && typeof u.same === "boolean" && photoId(u.added);

// A game's own part, what its totals and hands are: without it nothing of the game can be read.
const tallyGame = (g) => Boolean(g && four(g.names, (n) => typeof n === "string") && four(g.totals, Number.isFinite)
  && isSeat(g.dealer) && isSeat(g.winner) && isSeat(g.discarder) && Array.isArray(g.hands) && g.hands.every(tallyHand));

// The optional parts of a game read (an older page's game kept no ``undone`` nor ``previous``): each one that cannot
// be read is left out, named in ``parts`` (damagedWords), and the rest of the game kept (``outer``: the game now, not
// the one kept before it). The hands undone are a stack: one that
// cannot be read is left out with those undone before it, which could only be redone after it.
function mendGame(g, parts, outer) {
  const dropped = outer ? parts : { push: (part) => parts.push("previous." + part) };  // the previous game's own
  g.names = g.names.map((n, s) => typedName(s, n));  // an older page kept the winds' names, in Chinese
  if (g.winner === g.discarder) g.discarder = (g.winner + 3) % 4;  // (left by an older page's undo of a self-draw)
  if (![undefined, true, false].includes(g.same)) dropped.push("same");
  if (g.same !== true) g.same = false;
  if (!photoId(g.added)) {
    dropped.push("added");
    g.added = null;
  }
  if (g.undone === undefined) g.undone = [];
  const bad = Array.isArray(g.undone) ? g.undone.map((u) => Boolean(undoneHand(u))).lastIndexOf(false) : Infinity;
  if (bad !== -1) {
    dropped.push("undone");
    g.undone = Array.isArray(g.undone) ? g.undone.slice(bad + 1) : [];
  }
  if (!outer) {
    delete g.open;
    if (g.previous !== undefined && g.previous !== null) parts.push("before");  // (this page keeps one game back)
    delete g.previous;
    return g;
  }
  if (![undefined, true, false].includes(g.open)) delete g.open;  // the box's state only: closed
  if (g.previous === undefined || g.previous === null) g.previous = null;
  else if (tallyGame(g.previous)) mendGame(g.previous, parts, false);
  else {
    dropped.push("previous");
    g.previous = null;
  }
  return g;
}

// The tally kept in this browser: read and checked; what cannot be read kept aside (keepDamaged) and said.
function loadTable() {
  let raw = null, saved;
  try {
    raw = localStorage.getItem(TABLE_KEY);
    saved = JSON.parse(raw || "null");
  } catch (e) { /* no storage, or not JSON: a fresh table */ }
  if (tallyGame(saved)) {
    const dropped = [];
    mendGame(saved, dropped, true);
    if (dropped.length) keepDamaged(raw, dropped);
    return saved;
  }
  if (raw !== null) keepDamaged(raw, []);
  return freshTable();
}

// A stored tally that cannot be read, or not all of it, kept aside rather than written over at the next tap (the
// hands it holds can be read back from it by hand): under TABLE_KEY + ".damaged", a later one beside it
// (".damaged.2" … ".damaged.9": the first ones are kept, the last of them taking the latest once all are taken), the
// same text not twice. ``parts``: those left out.
function keepDamaged(raw, parts) {
  try {
    const keys = [""].concat([2, 3, 4, 5, 6, 7, 8, 9].map((n) => "." + n)).map((k) => TABLE_KEY + ".damaged" + k);
    const key = keys.find((k) => [null, raw].includes(localStorage.getItem(k))) || keys[keys.length - 1];
    localStorage.setItem(key, raw);
    tallyDamaged = { key, parts };
  } catch (e) { /* no storage at all: nothing was kept to lose */ }
}

// What was kept aside, in words (said once, when the page is built or another tab's tally is taken).
function damagedWords() {
  const { key, parts } = tallyDamaged;
  if (!parts.length) {
    return T(`存的记分读不出，已另存（${key}），重新开始记分`,
      `The tally kept in this browser could not be read: it is kept aside (${key}) and a new one begun`);
  }
  const names = { same: ["一炮多响的勾选", "the 一炮多响 tick"], added: ["已记入的照片", "which photo was added"],
    undone: ["撤销的手（不能再重做）", "hands undone (they cannot be redone)"], previous: ["上一局", "the previous game"],
    before: ["上一局之前的一局", "the game before the previous one"] };
  const named = (p) => (p.startsWith("previous.") ? [`上一局的${names[p.slice(9)][0]}`,
    `${names[p.slice(9)][1]} of the previous game`] : names[p]);
  const [zh, en] = [0, 1].map((i) => [...new Set(parts)].map((p) => named(p)[i]).join(i ? ", " : "、"));
  return T(`存的记分有一部分读不出：已略去${zh}，分数和各手不变；原样另存在 ${key}`,
    `Part of the tally kept in this browser could not be read: ${en} left out, the totals and hands are as they were; `
    + `all of it is kept aside (${key})`);
}

function saveTable() {
  try {
    localStorage.setItem(TABLE_KEY, JSON.stringify(table));
    tallyUnsaved = false;
  } catch (e) {  // storage full, or private mode: this visit only, and said so
    tallyUnsaved = true;
  }
}

// Another tab of this page changed the tally: shown here as it is now, rather than written over at this tab's next
// tap (each tab kept its own copy and the last to write won: the other's hands were lost). A tally that cannot be
// read at all is kept aside, and this tab's own written back in its place.
function adoptOtherTab(event) {
  if (event.key !== TABLE_KEY || event.newValue === null) return;
  tallyDamaged = null;
  const theirs = loadTable();
  if (tallyDamaged && !tallyDamaged.parts.length) {
    saveTable();
    const key = tallyDamaged.key;
    tallySaid(T(`另一个页面存的记分读不出，已另存（${key}）；这里的记分不变`,
      `Another tab kept a tally that cannot be read: it is kept aside (${key}), and this tab's tally stays`));
    return;
  }
  for (const key of Object.keys(table)) delete table[key];
  Object.assign(table, theirs);
  $("same-discard").checked = table.same;  // the 一炮多响 tick as that tab left it: the same hand settled the same
  showTable();
  syncDealer();
  tallySaid(tallyDamaged ? damagedWords()
    : T("另一个页面改了记分：这里已是最新的", "The tally was changed in another tab: shown here as it is now"));
}
