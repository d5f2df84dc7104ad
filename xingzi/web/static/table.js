// The table's running tally (loaded before app.js, whose state, $, status and rescore it uses when called; its
// words in lang.js's phrases): four players' totals over the hands scored, kept in this browser. Seats are in the
// order of play (counter-clockwise), as the engine numbers them: the payers of a 自摸 are the winner's 下家, 对家, 上家.
"use strict";

// Each seat's own name, its wind, in each language: what it is called until a name is typed for it.
const SEAT_NAMES = [["东", "East"], ["南", "South"], ["西", "West"], ["北", "North"]];
const ADDED = T("已记入", "Added to the tally:");
const table = loadTable();
// The photo last added (``table.added``, kept with the tally: memory.js's photo id): a second tap, a rescore or a
// reload does not add it again (undo allows it).
const addedAlready = () => kept.photo !== null && table.added === kept.photo;

// A seat's name as a phrase: the name typed for it, the same in every language; else its wind in the language shown
// (with both shown, in Chinese, as the Chinese labels come first). ``names``: a game's names (a previous game's kept
// apart by tallyundo.js), this game's by default.
function seatName(s, names = table.names) {
  if (names[s]) return asPhrase(names[s]);
  const [zh, en] = SEAT_NAMES[s];
  return T(zh, en, zh);
}

// The name typed for seat ``s``, trimmed; "" (called by its wind) for none, or for its own wind's name in either
// language, which follows the language like the name it was given at first.
function typedName(s, text) {
  const typed = String(text || "").trim();
  return SEAT_NAMES[s].some((w) => w.toLowerCase() === typed.toLowerCase()) ? "" : typed;
}

// The seat of each payer row of the page: the discarder, or on 自摸 the three others from the winner's 下家 on.
function payerSeats(winner, discarder, selfDraw) {
  return selfDraw ? [1, 2, 3].map((k) => (winner + k) % 4) : [discarder];
}

// The seats sent with a score while the tally is open: the server settles the result between them as data.table
// (the engine: who pays whom, a false claim's penalty doubled with whichever seat deals, who deals next).
function tableSeats() {
  if (!$("table-box").open) return null;
  return { winner: table.winner, discarder: $("self_draw").checked ? null : table.discarder, dealer: roundDealer(),
    before: earlierWinners() };
}

// The score shown as the server settled it for these seats: {deltas, next_dealer, payments}; null when it was
// settled for other seats (a rescore with these is on its way) or not at all.
function settledHere(data) {
  const seats = tableSeats();
  const settled = data && data.table;
  if (!seats || !settled || Object.keys(seats).some((k) => JSON.stringify(settled[k]) !== JSON.stringify(seats[k]))) {
    return null;
  }
  return settled;
}

const signed = (n) => (n > 0 ? "+" : "") + n;

function buildTable() {
  const seats = $("seats");
  seats.replaceChildren();
  for (let s = 0; s < 4; s++) {
    const row = document.createElement("div");
    row.className = "seat";
    row.dataset.seat = s;
    const dealer = document.createElement("input");
    dealer.type = "radio";
    dealer.name = "table-dealer";
    dealer.className = "seat-dealer";
    dealer.addEventListener("change", () => { table.dealer = s; saveTable(); showTable(); syncDealer(); });
    const name = document.createElement("input");
    name.className = "seat-name";
    name.maxLength = 12;
    say(name, T(`座位 ${s + 1} 名字`, `seat ${s + 1} name`), "aria-label");  // no visible label of its own
    name.addEventListener("change", () => {
      table.names[s] = typedName(s, name.value);
      name.value = name.dataset.shown = words(seatName(s));  // a name cleared: the wind's, said where it was typed
      saveTable();
      showTable();
    });
    const total = document.createElement("span");
    total.className = "seat-total";
    const pick = document.createElement("label");  // a finger-sized place to tap around the small radio
    pick.className = "seat-dealer-pick";
    pick.append(dealer);
    row.append(pick, name, total);
    seats.appendChild(row);
  }
  $("winner").addEventListener("change", () => { table.winner = Number($("winner").value); seatsChanged(); });
  $("discarder").addEventListener("change", () => { table.discarder = Number($("discarder").value); seatsChanged(); });
  $("add-hand").addEventListener("click", () => handFocus($("add-hand"), addHand, $("undo-hand")));
  // the hand undone can be redone at once: the keyboard's focus goes there, not to "new game"
  $("undo-hand").addEventListener("click", () => handFocus($("undo-hand"), undoHand, $("redo-hand"), $("add-hand"),
    $("new-game")));
  $("redo-hand").addEventListener("click", () => handFocus($("redo-hand"), redoHand, $("undo-hand"), $("add-hand")));
  $("new-game").addEventListener("click", newGame);
  $("restore-game").addEventListener("click", () => handFocus($("restore-game"), restoreGame, $("undo-hand"),
    $("new-game")));
  $("same-discard").checked = table.same === true;  // kept: a reload must not settle a second winner as a first
  $("same-discard").addEventListener("change", () => { table.same = $("same-discard").checked; saveTable(); syncDealer(); });
  $("follow-plain").addEventListener("click", () => followDealer("plain"));
  $("follow-dragon").addEventListener("click", () => followDealer("dragon"));
  $("drawn-hand").addEventListener("click", drawnHand);
  $("copy-tally").addEventListener("click", copyTally);
  $("lang").addEventListener("change", showTable);  // (after lang.js's own) the names in the fields, in the new language
  // open or closed as it was left (a hand scored with it open comes back after a reload settled between its seats);
  // closed, the score is settled again by the page's own ticks, not the seats the tally named
  $("table-box").open = table.open === true;
  $("table-box").addEventListener("toggle", () => {
    if (table.open !== $("table-box").open) {
      table.open = $("table-box").open;
      saveTable();
    }
    if (!syncDealer()) rescore();
  });
  addEventListener("storage", adoptOtherTab);
  showTable();
  if (tallyDamaged) tallySaid(damagedWords());  // what could not be read, and where it is kept aside
}

// A button its own tap switches off (a hand added, the last hand undone, the rules reset) hands the keyboard's focus on
// to the first of ``next`` still on, not to the top of the page.
function handFocus(button, change, ...next) {
  const had = document.activeElement === button;
  change();
  const to = next.find((b) => b && !b.disabled);
  if (had && button.disabled && to) to.focus();
}

function seatsChanged() {
  if (table.discarder === table.winner) table.discarder = (table.winner + 3) % 4;  // the winner's 上家
  saveTable();
  showTable();
  syncDealer();
}

function fillSeats(select, seats, value) {
  select.replaceChildren(...seats.map((s) => {
    const o = document.createElement("option");
    o.value = s;
    say(o, seatName(s));
    return o;
  }));
  select.value = String(value);
}

function showTable() {
  for (const row of document.querySelectorAll("#seats .seat")) {
    const s = Number(row.dataset.seat);
    const dealer = row.querySelector(".seat-dealer");
    dealer.checked = s === table.dealer;
    // which seat, not four alike
    say(dealer, cat(T("庄家：", "dealer: ", "庄家 dealer: "), seatName(s)), "aria-label");
    const name = row.querySelector(".seat-name");
    if (document.activeElement !== name || name.value === name.dataset.shown) {  // not under the user's typing
      name.value = name.dataset.shown = words(seatName(s));
    }
    row.querySelector(".seat-total").textContent = signed(table.totals[s]);
    row.classList.toggle("is-dealer", s === table.dealer);
  }
  fillSeats($("winner"), [0, 1, 2, 3], table.winner);
  fillSeats($("discarder"), [0, 1, 2, 3].filter((s) => s !== table.winner), table.discarder);
  $("discarder-box").hidden = $("self_draw").checked;
  const list = $("hands");
  list.replaceChildren(...table.hands.map((h, i) => {
    const item = document.createElement("li");
    say(item, handWords(h, i));
    return item;
  }));
  $("undo-hand").disabled = !table.hands.length;
  showUndone();  // redo, and the previous game kept (tallyundo.js)
  if (!$("tally-text").hidden) $("tally-text").value = tallyText();  // a copy shown stays the tally's
  const settled = addable();
  const ready = Boolean(settled);
  $("add-hand").disabled = !ready;
  const gain = ready ? settled.deltas[table.winner] : 0;
  $("same-box").hidden = $("self_draw").checked || !table.hands.length;
  const refused = chainRefused();  // ticked against what the tally says: why it is not added, said under the tick
  $("same-why").hidden = !refused;
  say($("same-why"), refused || "");
  const why = ready ? cat(seatName(table.winner), " " + signed(gain)) : notAddable();
  say($("add-hand"), ready ? B("记入这一手：" + why.zh, "Add this hand: " + why.en, "记入这一手", "Add this hand: " + why.both)
    : B(`记入这一手（${why.zh}）`, "Add this hand — " + why.en, "记入这一手", "Add this hand — " + why.both));
  for (const kind of ["plain", "dragon"]) {
    const what = kind === "plain" ? "跟庄" : "跟庄 中/白", pays = followPays(kind);
    say($("follow-" + kind), B(`${what}：${pays.zh}`, `Dealer followed${kind === "plain" ? "" : " on zhong/bai"}: `
      + pays.en, what, pays.both));
  }
}

// §8 跟庄, what the dealer pays, in words a player knows: "南 pays each of the others 1 pao, doubled for the
// dealer: 2" (2 pao for 中/白: 4), as the table's rules say (the server's /api/faces: follow_dealer, the amount, and
// follow_dealer_pao). Its ``both``: the English with the dealer named as with both languages shown.
const followPays = (kind) => followPaysBy(seatName(table.dealer), state.followDealer[kind],
  (state.followPao || {})[kind]);

// What ``dealer`` (a phrase) pays each of the others on 跟庄: ``amount``, ``pao`` before the dealer's doubling (none
// said where it is not known). Also the words of a 跟庄 in the tally, with the numbers it was added with.
function followPaysBy(dealer, amount, pao) {
  const times = Number.isInteger(pao) && pao > 0 ? amount / pao : 1;
  let zh, en;
  if (times === 1) {  // not doubled (or not said): the amount alone
    [zh, en] = [`付另外三家各 ${amount}${pao === amount ? " 炮" : ""}`,
      `pays each of the others ${amount}${pao === amount ? " pao" : ""}`];
  } else {
    [zh, en] = [`付另外三家各 ${pao} 炮，${times === 2 ? "庄家翻倍" : "庄家 ×" + times} = ${amount}`,  // 翻倍: twice
      `pays each of the others ${pao} pao, ${times === 2 ? "doubled" : "×" + times} for the dealer: ${amount}`];
  }
  return T(`${dealer.zh} ${zh}`, `${dealer.en} ${en}`, `${dealer.both} ${en}`);
}

// With the tally open, the dealer ticks of the score follow the table: the winner's, or the payer's who deals.
// Rescores and says true when it did; closed, the page's ticks are the user's alone.
function syncDealer() {
  if (!followTally()) return false;
  showTable();
  rescore();
  return true;
}

// The dealer ticks set as the tally says (disabled while it is open; a photo read next is sent with them), without
// a rescore; says whether the tally is open.
function followTally() {
  const open = $("table-box").open;
  const boxes = [$("dealer"), ...document.querySelectorAll("#payers .payer-dealer")];
  for (const box of boxes) {  // while the tally is open its seats say who deals: the ticks show it, not change it
    box.disabled = open;
    say(box, open ? T("庄家由下面的记分表决定", "The tally below says who deals") : "", "title");
  }
  $("dealer-by-tally").hidden = !open;  // said beside the tick too: a phone shows no title
  if (!open) return false;
  const selfDraw = $("self_draw").checked;
  const dealer = roundDealer();
  $("dealer").checked = table.winner === dealer;
  const seats = payerSeats(table.winner, table.discarder, selfDraw);
  document.querySelectorAll("#payers .payer-dealer").forEach((box, k) => { box.checked = seats[k] === dealer; });
  return true;
}

// The score shown, settled for these seats, when it may be added: some payment, no rescore on its way, not added
// already, not ticked 一炮多响 against what the tally says of the last hand.
function addable() {
  const data = state.data;
  if (!data || !(data.payments || []).length || state.pending || state.stale || addedAlready()) return null;
  return chainRefused() ? null : settledHere(data);
}

// Why "add this hand" is off, in a few words under it.
function notAddable() {
  const data = state.data;
  if (!data) return T("先拍一手牌", "take a photo first");
  if (state.pending) return T("计算中", "scoring…");
  if (state.stale) return T("分数已过时", "the score is out of date");
  if (addedAlready()) {  // a new game's: the last photo of the game ended, which counted it (tallyundo.js newGame)
    return table.hands.length || !table.previous ? T("已记入", "added") : T("已记入上一局", "added to the previous game");
  }
  if (chainRefused()) return T("一炮多响不符，见上", "not on the last hand's discard: see above");
  return T("没有可记的分", "no score to add");
}

function addHand() {
  const data = state.data;
  const settled = addable();
  if (!settled) return;
  const deltas = settled.deltas;
  const selfDraw = $("self_draw").checked;
  const round = roundDealer();
  const entry = pushHand({ kind: "win", deltas, dealer: table.dealer, round, winner: table.winner,
    discarder: selfDraw ? null : table.discarder, valid: Boolean(data.valid), own: data.own, same: sameDiscard(),
    ...discardFacts(data) });  // a claim after it on its discard must agree (discard.js): its tile, events, payer …
  table.added = kept.photo;
  table.totals = table.totals.map((t, s) => t + deltas[s]);
  table.dealer = settled.next_dealer;
  $("same-discard").checked = table.same = false;
  saveTable();
  showTable();
  tallySaid(cat(ADDED, " ", entry.say));
}

// A hand added to the tally (``entry``, what it was: tallytext.js says it in words), its words kept with it too (as
// an older page of the tally reads them); a hand undone is no longer there to redo. The game before this one
// (tallyundo.js) is kept through the new game's first hand, hidden while the hand is there: a first tap by mistake
// after a new game begun by mistake (黄庄, or a hand), undone, offers it again; the second hand drops it. The entry,
// for its caller to say.
function pushHand(entry) {
  const said = handWords(entry, table.hands.length);
  Object.assign(entry, { text: said.both, say: said });
  if (table.hands.length) table.previous = null;
  table.hands.push(entry);
  table.undone = [];
  return entry;
}

// §8 跟庄: the three others discarded the dealer's first discard; the dealer pays each of them, play goes on.
function followDealer(kind) {
  const amount = state.followDealer[kind];
  const what = kind === "dragon" ? "跟庄 中/白" : "跟庄";  // a tap in passing must not move the totals
  const followed = `Dealer followed${kind === "dragon" ? " on zhong/bai" : ""}`;
  const pays = followPays(kind);
  const ask = T(`${what}：${pays.zh}？`, `${followed}: ${pays.en}?`, `${what}：${pays.zh}？ ${followed}: ${pays.both}?`);
  if (!window.confirm(words(ask))) return;
  const deltas = [0, 1, 2, 3].map((s) => (s === table.dealer ? -3 * amount : amount));
  const entry = pushHand({ kind: "follow", follow: kind, pao: (state.followPao || {})[kind], deltas,
    dealer: table.dealer, valid: false, same: false });
  table.totals = table.totals.map((t, s) => t + deltas[s]);
  saveTable();
  showTable();
  tallySaid(cat(ADDED, " ", entry.say));
}

// §8: a drawn hand (黄庄) moves no points and the dealer deals again; it is written down all the same.
function drawnHand() {
  const entry = pushHand({ kind: "drawn", deltas: [0, 0, 0, 0], dealer: table.dealer, valid: false, same: false });
  $("same-discard").checked = table.same = false;
  saveTable();
  showTable();
  tallySaid(cat(ADDED, " ", entry.say));
}

// What a tally button did, said beside the tally (where the finger is) and in the page's status line.
function tallySaid(text) {  // a phrase (lang.js)
  const said = tallyUnsaved ? cat(text, T("（这台手机存不下记分：请复制记分）",
    " (this browser is not keeping the tally: copy it as text)")) : text;
  status(said);
  say($("tally-status"), said);
}
