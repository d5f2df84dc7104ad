// 一炮多响 in the tally (loaded after table.js, before app.js; its functions use their state when called): which hands
// already added lie on this hand's discard, who dealt it, and why a tick the tally contradicts is refused, as the
// engine's round settles several claims on one discard (RULES.md §8; engine/situation.py score_round).
"use strict";

// 一炮多响: the winners already added on this hand's discard, the first of them first; a false claim among them
// wins nothing and moves no deal, so it is not one of them (nor does it end the hands on that discard).
function earlierWinners() {
  const chain = discardChain();
  return chain && chain.hands ? chain.hands.filter((h) => h.valid).map((h) => h.winner) : [];
}

// 一炮多响 ticked (on a win on a discard): {hands}, the hands already added on this hand's discard, the first first
// (a false claim on it among them, as the engine's round settles them); or {why}, a phrase saying why this hand
// cannot be another claim on the last hand's discard, by the tally's seats: it is not added until the tick and the
// seats say one thing (and it is settled meanwhile as a hand of its own). Not ticked, or a self-draw (the box
// hidden): null, a hand of its own. The score's own winning tile is not looked at here (chainRefused), for the
// seats sent with a score must not hang on what that score says.
function discardChain() {
  if (!$("same-discard").checked || $("self_draw").checked) return null;
  const hands = table.hands;
  const last = hands[hands.length - 1];
  // (``en`` says the seats named in English, ``both``, as they are named with both languages shown)
  const refused = (zh, en, both = en) => ({ why: T(`一炮多响：${zh}`, `Another winner on the last hand's discard: ${en}`,
    `一炮多响：${zh} Another winner on the last hand's discard: ${both}`) });
  if (!last || !Number.isInteger(last.winner) || !Number.isInteger(last.discarder)) {
    return refused("上一手不是放炮胡，请取消勾选", "the last hand added was not won on a discard; untick it");
  }
  if (last.discarder !== table.discarder) {
    const [was, is] = [seatName(last.discarder), seatName(table.discarder)];
    const en = (w, i) => `the last hand was won on ${w}'s discard, but the discarder here is ${i}: choose the same `
      + "discarder, or untick it";
    return refused(`上一手是${was.zh}放的炮，这一手的放炮者却是${is.zh}：请改放炮者，或取消勾选`, en(was.en, is.en),
      en(was.both, is.both));
  }
  const chain = [];
  for (let i = hands.length - 1; i >= 0; i--) {
    chain.unshift(hands[i]);
    if (!hands[i].same) break;
  }
  if (chain.some((h) => h.winner === table.winner)) {
    const who = seatName(table.winner);
    const en = (w) => `${w} is in the tally on that discard already: choose the winner`;
    return refused(`${who.zh}在这一炮上已经记过了：请改赢家`, en(who.en), en(who.both));
  }
  return { hands: chain };
}

// Why this hand, ticked 一炮多响, is not added (a phrase): the tally's seats (discardChain), or the score's winning
// tile is not the one the hands on that discard won on (the engine refuses such a round: one discard, one tile).
// Null when nothing stands in the way.
function chainRefused() {
  const chain = discardChain();
  if (!chain) return null;
  if (chain.why) return chain.why;
  const tile = state.data && state.data.win_tile;
  const first = chain.hands.find((h) => typeof h.tile === "string");  // (a hand an older page added has none)
  if (typeof tile !== "string" || !first || first.tile === tile) return null;
  const [was, is] = [tileWords(first.tile), tileWords(tile)];
  return T(`一炮多响：上一手胡的是${was.zh}，这一手胡的是${is.zh}，一炮只有一张牌：请改正牌，或取消勾选`,
    `Another winner on the last hand's discard: the last hand won on ${was.en}, this one on ${is.en}, and one `
    + "discard is one tile: correct the tiles, or untick it");
}

// A winning tile ("3s", as the server writes it) in the words of each language: 三条, 3s.
function tileWords(symbol) {
  const face = (state.faces || []).find((f) => f.symbol === symbol);
  return face ? T(face.zh, plainEn(symbol), `${face.zh} ${symbol}`) : T(symbol, plainEn(symbol), symbol);
}

// 一炮多响: this hand is another claim on the last hand's discard, as ticked.
function sameDiscard() {
  const chain = discardChain();
  return Boolean(chain && chain.hands);
}

// Who dealt this hand: on another claim on one discard, the dealer before the first was added.
function roundDealer() {
  return sameDiscard() ? table.hands[table.hands.length - 1].round : table.dealer;
}
