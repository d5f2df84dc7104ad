// 一炮多响 in the tally (loaded after table.js, before app.js; its functions use their state when called): which hands
// already added lie on this hand's discard, who dealt it, and why a tick the tally contradicts is refused, as the
// engine's round settles several claims on one discard (RULES.md §8; engine/situation.py score_round and
// _check_one_discard): the same seats, one tile, the same 抢杠/杠上流泪/海底放炮, the discarder showing each winner
// the same, no fifth copy of a tile nor fifth 发 across them.
"use strict";

// What a discard itself was (the kong robbed, the discard right after a kong, the last tile): every claim on it says
// it (engine/situation.py DISCARD_EVENTS).
const DISCARD_EVENTS = ["robbing_kong", "kong_tears", "hai_di_pao"];
const MELD_SIZE = { pung: 3, kong: 4, concealed_kong: 4 };

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
  if (typeof tile === "string" && first && first.tile !== tile) {
    const [was, is] = [tileWords(first.tile), tileWords(tile)];
    return T(`一炮多响：上一手胡的是${was.zh}，这一手胡的是${is.zh}，一炮只有一张牌：请改正牌，或取消勾选`,
      `Another winner on the last hand's discard: the last hand won on ${was.en}, this one on ${is.en}, and one `
      + "discard is one tile: correct the tiles, or untick it");
  }
  return situationRefused(chain.hands, discardFacts(state.data));
}

// What a hand's score says of its discard, kept with the hand when it is added (table.js addHand) for the claims
// after it on that discard: ``tile``, the winning tile; ``events``, which of DISCARD_EVENTS it said; ``shown``, what
// the discarder showed it ({fa, melds}: a suit kong's face is "?", as the page chose it itself: payers.js); ``held``,
// the winner's tiles but the winning one, by face ({"3s": 2}); ``fa``, the winner's 发. Each null where the score
// does not say it (no tiles scored); a hand an older page added has none of them (undefined), and is not refused by
// them.
function discardFacts(data) {
  const s = (data && data.situation) || {};
  const facts = { tile: data && typeof data.win_tile === "string" ? data.win_tile : null, events: null, shown: null,
    held: null, fa: Number.isInteger(s.fa) ? s.fa : null };
  if (Array.isArray(s.events)) facts.events = DISCARD_EVENTS.filter((e) => s.events.includes(e));
  if (s.self_draw === false) {
    const p = Array.isArray(s.payers) && s.payers[0] && typeof s.payers[0] === "object" ? s.payers[0] : {};
    const melds = (Array.isArray(p.melds) ? p.melds : []).map((m) => {
      const [kind, face] = String(m).split(" ");
      return `${kind} ${["中", "发", "白"].includes(face) ? face : "?"}`;
    });
    facts.shown = { fa: Number.isInteger(p.fa) ? p.fa : 0, melds: melds.sort() };
  }
  if (typeof s.hand === "string" && typeof s.win_tile === "string" && Array.isArray(s.melds)) {
    const held = {};
    const add = (face, n) => { held[face] = (held[face] || 0) + n; };
    let digits = "";
    for (const c of s.hand) {  // "123456m55789p123s中中": digits before their suit, a dragon alone
      if (/[0-9]/.test(c)) digits += c;
      else if ("mps".includes(c)) {
        for (const d of digits) add(d + c, 1);
        digits = "";
      } else if (c.trim()) add(c, 1);
    }
    add(s.win_tile, -1);  // the discard, counted once for all its winners
    for (const m of s.melds) {
      const [kind, face] = String(m).split(" ");
      if (MELD_SIZE[kind] && face && face !== "?") add(face, MELD_SIZE[kind]);
    }
    facts.held = held;
  }
  return facts;
}

// Why this hand's score (``here``, discardFacts) cannot be another claim on the discard of ``hands`` (those on it
// already): it says another 抢杠/杠上流泪/海底放炮, the discarder shows it something else, or the table would hold a
// fifth copy of a tile or a fifth 发. Each is checked against the hands that kept what it needs (an older page's
// hand kept none: it is left out, never refused). Null when nothing stands in the way.
function situationRefused(hands, here) {
  const said = (zh, en) => T(`一炮多响：${zh}`, `Another winner on the last hand's discard: ${en}`);
  const events = hands.find((h) => Array.isArray(h.events));
  if (here.events && events && events.events.join() !== here.events.join()) {
    const [was, is, all] = [eventWords(events.events), eventWords(here.events), eventWords(DISCARD_EVENTS)];
    return said(`这一炮上的上一手记的是${was.zh}，这一手是${is.zh}；${all.zh}同一炮每家都一样：请改加炮事件，或取消勾选`,
      `the last hand on it said ${was.en}, this one ${is.en}, and one discard is the same for every winner on it `
      + `(${all.en}): set the events alike, or untick it`);
  }
  const shown = hands.find((h) => h.shown && typeof h.shown === "object" && Array.isArray(h.shown.melds)
    && h.shown.melds.every((m) => typeof m === "string"));
  if (here.shown && shown && JSON.stringify([shown.shown.fa, shown.shown.melds])
      !== JSON.stringify([here.shown.fa, here.shown.melds])) {
    const [was, is] = [shownWords(shown.shown), shownWords(here.shown)];
    return said(`放炮者给这一炮上的上一手亮的是${was.zh}，给这一手的是${is.zh}；放炮者给每家看的是同样的牌：`
      + "请改“吃炮”里的放炮者，或取消勾选", `the discarder showed the last hand on it ${was.en}, this one ${is.en}, `
      + "and shows every winner the same: set the discarder's row of what the payers show alike, or untick it");
  }
  const known = hands.filter((h) => h.held && typeof h.held === "object");
  if (!here.held || !known.length) return null;
  const total = {};
  const add = (face, n) => { total[face] = (total[face] || 0) + n; };
  for (const h of [...known, here]) Object.entries(h.held).forEach(([face, n]) => add(face, Number(n) || 0));
  add(here.tile, 1);
  for (const m of (here.shown || { melds: [] }).melds) {  // the discarder's 中/白 sets (a suit kong's face: unknown)
    const [kind, face] = m.split(" ");
    const robbed = kind === "kong" && face === here.tile && (here.events || []).includes("robbing_kong");
    if (face !== "?") add(face, robbed ? 3 : MELD_SIZE[kind] || 0);  // the robbed kong's fourth tile: the discard
  }
  const over = Object.keys(total).find((face) => total[face] > 4);
  if (over) {
    const face = tileWords(over);
    return said(`这一炮的几手牌（连放炮者亮的牌）共有 ${total[over]} 张${face.zh}，一副牌每种只有 4 张：请改正牌，或取消勾选`,
      `the hands on that discard (with what the discarder shows) hold ${total[over]} of ${face.en}, and a set has `
      + "4 of each: correct the tiles, or untick it");
  }
  const fa = [...known, here].reduce((n, h) => n + (Number.isInteger(h.fa) ? h.fa : 0), (here.shown || {}).fa || 0);
  if (fa <= 4) return null;
  return said(`这一炮的赢家和放炮者面前共有 ${fa} 张发，一副牌只有 4 张：请改正发的张数，或取消勾选`,
    `${fa} fa in front of the winners on that discard and its discarder, and a set has 4: correct the fa, or `
    + "untick it");
}

// Events by their names ("抢杠、海底放炮", "robbing the kong, last tile discarded"); none: 无, none of them.
function eventWords(keys) {
  const named = keys.map((k) => state.events.find((e) => e.key === k) || { zh: k, en: k });
  return named.length ? T(named.map((e) => e.zh).join("、"), named.map((e) => e.en).join(", "))
    : T("无", "none of them");
}

// What the discarder shows, in words: "发 1、明杠 2、碰中", "1 fa, 2 suit kongs, pung of zhong"; none: 什么也没亮, nothing.
function shownWords(shown) {
  const [zh, en] = [[], []];
  const both = (z, e) => { zh.push(z); en.push(e); };
  if (shown.fa) both(`发 ${shown.fa}`, `${shown.fa} fa`);
  for (const [kind, kindZh, kindEn] of [["kong", "明杠", "suit kong"], ["concealed_kong", "暗杠", "concealed suit kong"]]) {
    const n = shown.melds.filter((m) => m === `${kind} ?`).length;
    if (n) both(`${kindZh} ${n}`, `${n} ${kindEn}${n > 1 ? "s" : ""}`);
  }
  for (const m of shown.melds.filter((x) => !x.endsWith("?"))) {
    const [kind, face] = m.split(" ");
    const [kindZh, , kindEn] = MELDS.find((k) => k[1] === kind) || [kind, kind, kind];
    both(kindZh + face, `${kindEn} of ${(DRAGON_EN[face] || [face])[0]}`);
  }
  return zh.length ? T(zh.join("、"), en.join(", ")) : T("什么也没亮", "nothing");
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
