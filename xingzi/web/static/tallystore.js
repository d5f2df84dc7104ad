// The tally as the browser keeps it (loaded before table.js, whose table, showTable, syncDealer and tallySaid it
// uses when called): read and checked, written at each tap, a damaged copy kept aside, another tab's change taken.
"use strict";

const TABLE_KEY = "xingzi.table.v1";

// What the browser's storage did with the tally: it could not keep it (full, or private mode: this visit only, said
// with every tally message), or what it held could not be read (kept aside under TABLE_KEY + ".damaged", said once).
let tallyUnsaved = false;
let tallyDamaged = false;

// ``names``: the names typed for the seats, "" for a seat called by its wind (seatName: in the language shown).
function freshTable(names) {
  return { names: names || ["", "", "", ""], totals: [0, 0, 0, 0], dealer: 0, winner: 1, discarder: 0, hands: [],
    added: null, same: false };
}

function loadTable() {
  try {
    const saved = JSON.parse(localStorage.getItem(TABLE_KEY) || "null");
    const seat = (v) => Number.isInteger(v) && v >= 0 && v < 4;
    const four = (a, ok) => Array.isArray(a) && a.length === 4 && a.every(ok);
    if (saved && four(saved.names, (n) => typeof n === "string") && four(saved.totals, Number.isFinite)
        && seat(saved.dealer) && seat(saved.winner) && seat(saved.discarder) && Array.isArray(saved.hands)
        && saved.hands.every((h) => h && four(h.deltas, Number.isFinite) && seat(h.dealer))
        && [undefined, true, false].includes(saved.open) && [undefined, true, false].includes(saved.same)
        && (saved.added === undefined || saved.added === null || typeof saved.added === "string")) {
      saved.names = saved.names.map((n, s) => typedName(s, n));  // an older page kept the winds' names, in Chinese
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
