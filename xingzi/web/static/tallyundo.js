// Taking the tally's taps back (loaded after table.js, whose table, showTable, syncDealer, handWords and tallySaid it
// uses when called, all kept with the tally by tallystore.js, across a reload): the last hand undone, and redone as
// it was settled; a new game begun, and the game before it brought back while the new one holds no hand.
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
  // (the 自摸 tick is the photo's, as the user left it: the photo shown is often the next hand's, ticked for it)
  otherDiscarder();
  saveTable();
  showTable();
  syncDealer();  // the deal as it was before that hand: the score shown follows
  const restorable = !table.hands.length && table.previous;  // the new game's only hand undone
  tallySaid(cat(T("已撤销", "Undone:"), " ", handWords(last, table.hands.length), restorable
    ? T("（可重做，也可以恢复上一局）", " (Redo puts it back; or bring back the previous game)",
      "（可重做，也可以恢复上一局） (Redo puts it back; or bring back the previous game)")
    : T("（可重做）", " (Redo puts it back)", "（可重做） (Redo puts it back)")));
}

// A self-drawn hand names no discarder: the one chosen stays, unless it is the winner (a discard win on one's own
// discard: a blank menu, and the server refuses it), then the winner's 上家, as the winner's menu does (table.js
// seatsChanged).
function otherDiscarder() {
  if (table.discarder === table.winner) table.discarder = (table.winner + 3) % 4;
}

// The hand last undone, if it can be put back now: its record (undoHand), else null.
function redoable() {
  const top = (table.undone || [])[(table.undone || []).length - 1];
  return top && top.at === table.hands.length ? top : null;
}

// The hand last undone put back as it was settled: its payments, the deal after it, its photo added (not again),
// the seats and the 一炮多响 tick as they were before the undo.
function redoHand() {
  const top = redoable();
  if (!top) return;
  table.undone.pop();
  table.hands.push(top.hand);
  table.totals = table.totals.map((t, s) => t + top.hand.deltas[s]);
  Object.assign(table, { dealer: top.dealer, added: top.added, winner: top.winner, discarder: top.discarder,
    same: top.same });
  otherDiscarder();
  $("same-discard").checked = table.same;
  saveTable();
  showTable();
  syncDealer();
  tallySaid(cat(T("已重做", "Redone:"), " ", handWords(top.hand, table.hands.length - 1)));
}

// A new game, asked first: every total back to 0, 东 deals; the names stay. The game ended is kept
// (``table.previous``, with its own names and hands, its hands undone too) and brought back with one tap while the
// new one holds no hand (table.js pushHand drops it at the new game's second hand, so that undoing a first hand added
// by mistake offers it again). A game with no hand, nor any undone, is no loss, and the one kept before it stays
// kept; one holding only hands undone is kept unless a game with hands is kept already, which stays the one to bring
// back (the hands undone are then gone, and said so).
function newGame() {
  const { previous, open, ...game } = table;  // (open: the box's state, not the game's)
  const undone = table.undone.length;
  const ended = table.hands.length || (undone && !previous) ? JSON.parse(JSON.stringify(game)) : previous;
  const lost = undone && ended === previous;  // hands undone that no game kept can redo
  const kept = ended && ended !== previous;
  const ask = cat(T("新一局：所有分数归零？", "New game: all totals back to 0?"), kept
    ? T("（在新一局记入一手之前，可以恢复这一局）", " (this game can be brought back until a hand is added to the new one)",
      " （在新一局记入一手之前，可以恢复这一局） (this game can be brought back until a hand is added to the new one)") : "",
  lost ? T("（撤销的手将不能再重做）", " (the hands undone here can no longer be redone)",
    " （撤销的手将不能再重做） (the hands undone here can no longer be redone)") : "");
  if (!window.confirm(words(ask))) return;
  // the photo shown is the last hand of the game ended: offered to the new game, one more tap would add it again
  // and take away the game before (a new game begun by mistake); kept as added, a new photo is the new game's
  Object.assign(table, freshTable(table.names.slice()), { previous: ended || null, added: table.added });
  $("same-discard").checked = false;
  saveTable();
  showTable();
  syncDealer();  // 东 deals again: the score shown follows
  const begun = ended ? T("新一局开始了。记入这一局的第一手之前，可以恢复上一局",
    "A new game has begun: until a hand is added to it, the previous game can be brought back")
    : T("新一局开始了", "A new game has begun");  // said whatever the status said before (an undo's "redo …")
  tallySaid(lost ? cat(begun, T("（撤销的手不能再重做了）", " (the hands undone can no longer be redone)",
    "（撤销的手不能再重做了） (the hands undone can no longer be redone)")) : begun);
}

// The game before this one (a new game begun by mistake) brought back as it was left: its totals, its hands, its
// names, its deal, its hands undone (redo puts them back). The new game holds no hand (the button is shown only
// then): a hand of it undone, a tap by mistake, goes with it.
function restoreGame() {
  const game = table.previous;
  if (!game) return;
  const open = table.open;
  for (const key of Object.keys(table)) delete table[key];
  Object.assign(table, game, { open, previous: null });
  if (!Array.isArray(table.undone)) table.undone = [];
  otherDiscarder();
  $("same-discard").checked = table.same === true;
  saveTable();
  showTable();
  syncDealer();
  const [n, u] = [table.hands.length, redoable() ? table.undone.length : 0];
  tallySaid(u ? T(`已恢复上一局（${n} 手，撤销的 ${u} 手可重做）`, `The previous game is back: ${n} hand(s), and ${u} `
    + `undone (Redo puts ${u > 1 ? "them" : "it"} back)`) : T(`已恢复上一局（${n} 手）`, `The previous game is back: ${n} hand(s)`));
}

// The buttons that take a tap back, as the tally stands (table.js showTable): redo on while a hand undone can be put
// back; the previous game's button shown while one is kept and the new game holds no hand.
function showUndone() {
  $("redo-hand").disabled = !redoable();
  const restore = $("restore-game");
  restore.hidden = restore.disabled = !table.previous || table.hands.length > 0;
}
