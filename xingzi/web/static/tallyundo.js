// Taking the tally's taps back (loaded after table.js, whose table, showTable, syncDealer, handWords and tallySaid it
// uses when called, all kept with the tally by tallystore.js, across a reload): the last hand undone, and redone as
// it was settled; a new game begun, and the game before it brought back until the new one's first hand is added.
"use strict";

// Undone: the hand taken off the tally and what the tally said before (``table.undone``, the last undone last), so
// that a redo puts back the hand and the deal after it as they were. ``at``: how many hands the tally held without
// it; a record that no longer follows the tally's last hand (another tab, an older page added hands) is not redone.
function undoHand() {
  const last = table.hands.pop();
  if (!last) return;
  table.undone.push({ hand: last, at: table.hands.length, dealer: table.dealer, added: table.added || null,
    winner: table.winner, discarder: table.discarder, same: table.same === true });
  table.totals = table.totals.map((t, s) => t - last.deltas[s]);
  table.dealer = last.dealer;
  table.added = null;
  if (Number.isInteger(last.winner)) {  // a hand won or claimed: its seats and its 一炮多响 tick as they were, so
    table.winner = last.winner;         // that adding it again settles it as before
    if (Number.isInteger(last.discarder)) table.discarder = last.discarder;
    $("same-discard").checked = table.same = last.same === true;
  }
  saveTable();
  showTable();
  syncDealer();  // the deal as it was before that hand: the score shown follows
  tallySaid(cat(T("已撤销", "Undone:"), " ", handWords(last, table.hands.length),
    T("（可重做）", " (Redo puts it back)")));
}

// The hand last undone, if it can be put back now: its record (undoHand), else null.
function redoable() {
  const top = (table.undone || [])[(table.undone || []).length - 1];
  return top && top.at === table.hands.length ? top : null;
}

// The hand last undone put back as it was settled: its payments, the deal after it, its photo added (not again).
function redoHand() {
  const top = redoable();
  if (!top) return;
  table.undone.pop();
  table.hands.push(top.hand);
  table.totals = table.totals.map((t, s) => t + top.hand.deltas[s]);
  Object.assign(table, { dealer: top.dealer, added: top.added, winner: top.winner, discarder: top.discarder,
    same: top.same });
  $("same-discard").checked = table.same;
  saveTable();
  showTable();
  syncDealer();
  tallySaid(cat(T("已重做", "Redone:"), " ", handWords(top.hand, table.hands.length - 1)));
}

// A new game, asked first: every total back to 0, 东 deals; the names stay. The game ended is kept
// (``table.previous``, with its own names and hands) until the new one's first hand is added, and brought back with
// one tap; a game with no hand is no loss, and the one kept before it stays kept.
function newGame() {
  if (!window.confirm(words(T("新一局：所有分数归零？", "New game: all totals back to 0?")))) return;
  const { previous, open, ...game } = table;  // (open: the box's state, not the game's)
  const ended = table.hands.length ? JSON.parse(JSON.stringify(game)) : previous;
  Object.assign(table, freshTable(table.names.slice()), { previous: ended || null });
  $("same-discard").checked = false;
  saveTable();
  showTable();
  syncDealer();  // 东 deals again: the score shown follows
  if (ended) {
    tallySaid(T("新一局开始了。记入这一局的第一手之前，可以恢复上一局",
      "A new game is begun: until a hand is added to it, the previous game can be brought back"));
  }
}

// The game before this one (a new game begun by mistake) brought back as it was left: its totals, its hands, its
// names, its deal.
function restoreGame() {
  const game = table.previous;
  if (!game) return;
  const open = table.open;
  for (const key of Object.keys(table)) delete table[key];
  Object.assign(table, game, { open, previous: null });
  if (!Array.isArray(table.undone)) table.undone = [];
  $("same-discard").checked = table.same === true;
  saveTable();
  showTable();
  syncDealer();
  const n = table.hands.length;
  tallySaid(T(`已恢复上一局（${n} 手）`, `The previous game is back: ${n} hand(s)`));
}

// The buttons that take a tap back, as the tally stands (table.js showTable): redo on while a hand undone can be put
// back; the previous game's button shown while one is kept.
function showUndone() {
  $("redo-hand").disabled = !redoable();
  const restore = $("restore-game");
  restore.hidden = restore.disabled = !table.previous;
}
