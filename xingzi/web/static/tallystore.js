// The tally as the browser keeps it (loaded before table.js, whose table, showTable, syncDealer and tallySaid it
// uses when called): read and checked, written at each tap, a damaged copy kept aside, another tab's change taken.
"use strict";

const TABLE_KEY = "xingzi.table.v1";

// What the browser's storage did with the tally: it could not keep it (full, or private mode: this visit only, said
// with every tally message), or what it held could not be read (kept aside under TABLE_KEY + ".damaged", said once).
let tallyUnsaved = false;
let tallyDamaged = false;

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

// A game as this page keeps it (an older page's too: it kept no ``undone``, nor ``previous``): the hands undone a
// redo puts back, and a game kept before it, are checked as the rest is.
function tallyGame(g, previous) {
  return Boolean(g && four(g.names, (n) => typeof n === "string") && four(g.totals, Number.isFinite)
    && isSeat(g.dealer) && isSeat(g.winner) && isSeat(g.discarder) && Array.isArray(g.hands) && g.hands.every(tallyHand)
    && [undefined, true, false].includes(g.same) && photoId(g.added)
    && (g.undone === undefined || (Array.isArray(g.undone) && g.undone.every((u) => u && tallyHand(u.hand)
      && Number.isInteger(u.at) && u.at >= 0 && isSeat(u.dealer) && isSeat(u.winner) && isSeat(u.discarder)
      && typeof u.same === "boolean" && photoId(u.added))))
    && (previous ? g.previous === undefined || g.previous === null || tallyGame(g.previous, false)
      : g.previous === undefined || g.previous === null));
}

function loadTable() {
  try {
    const saved = JSON.parse(localStorage.getItem(TABLE_KEY) || "null");
    if (tallyGame(saved, true) && [undefined, true, false].includes(saved.open)) {
      for (const game of [saved, saved.previous].filter(Boolean)) {
        game.names = game.names.map((n, s) => typedName(s, n));  // an older page kept the winds' names, in Chinese
        if (game.undone === undefined) game.undone = [];
      }
      if (saved.previous === undefined) saved.previous = null;
      return saved;
    }
  } catch (e) { /* no storage, or not JSON: a fresh table */ }
  keepDamaged();
  return freshTable();
}

// A stored tally that cannot be read, kept aside rather than written over at the next tap (the hands it holds can
// be read back from it by hand).
function keepDamaged() {
  try {
    const raw = localStorage.getItem(TABLE_KEY);
    if (raw === null) return;
    localStorage.setItem(TABLE_KEY + ".damaged", raw);
    tallyDamaged = true;
  } catch (e) { /* no storage at all: nothing was kept to lose */ }
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
// tap (each tab kept its own copy and the last to write won: the other's hands were lost).
function adoptOtherTab(event) {
  if (event.key !== TABLE_KEY || event.newValue === null) return;
  const theirs = loadTable();
  for (const key of Object.keys(table)) delete table[key];
  Object.assign(table, theirs);
  showTable();
  syncDealer();
  tallySaid(T("另一个页面改了记分：这里已是最新的", "The tally was changed in another tab: shown here as it is now"));
}
