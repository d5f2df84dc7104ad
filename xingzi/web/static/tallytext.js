// The tally in words: each hand as the list and the copy say it, and the tally as text to share, what the copy
// button of the tally puts in the table's chat (table.js's table, seats and hands, lang.js's words; used when
// called).
"use strict";

// What each seat won or paid in a hand, its seats named in ``language`` ("zh" or "en") by ``names`` (seatName):
// "东 -6, 南 +6, 西 0, 北 0".
const moved = (deltas, language, names) => deltas.map((d, s) => seatName(s, names)[language] + " " + signed(d))
  .join(", ");

// The ``i``th hand of a game (from 0) in the words of the language shown, its seats called by the game's names as
// they are now (``names``, this game's by default): a seat renamed after the hand is called by its new name there
// too, as in the totals. A hand an older page added kept only its words (in both languages; older still, in both
// alone), with the names of its time; one that kept neither what it was nor its words (a damaged store) is said by
// what it moved.
function handWords(h, i, names = table.names) {
  const said = handPhrase(h, i + 1, names);
  if (said) return said;
  const w = h.say || {};
  if (typeof w.zh === "string" && typeof w.en === "string") return T(w.zh, w.en, typeof h.text === "string" ? h.text
    : undefined);
  if (typeof h.text === "string") return h.text;
  const [zh, en] = [moved(h.deltas, "zh", names), moved(h.deltas, "en", names)];
  return T(`${i + 1}. 一手（没记下是什么）: ${zh}`, `${i + 1}. A hand (its kind was not kept): ${en}`,
    `${i + 1}. 一手（没记下是什么） a hand (its kind was not kept): ${zh}`);
}

// A hand as its ``kind`` says it was added (table.js: a win or a false claim, the dealer followed, a drawn hand),
// numbered ``n``; with both languages shown, in Chinese (a drawn hand: with "keeps the deal"). Null for a hand that
// does not say what it was.
function handPhrase(h, n, names) {
  const seat = (v) => Number.isInteger(v) && v >= 0 && v < 4;
  const name = (s) => seatName(s, names);
  const [zh, en] = [moved(h.deltas, "zh", names), moved(h.deltas, "en", names)];
  if (h.kind === "drawn") {
    const dealer = name(h.dealer);
    return T(`${n}. 黄庄 ${dealer.zh} 连庄`, `${n}. Drawn hand: ${dealer.en} keeps the deal`,
      `${n}. 黄庄 ${dealer.zh} 连庄 keeps the deal`);
  }
  if (h.kind === "follow" && ["plain", "dragon"].includes(h.follow)) {
    const dragon = h.follow === "dragon";
    const pays = followPaysBy(name(h.dealer), h.deltas[(h.dealer + 1) % 4], h.pao);  // each of the others got it
    const text = `${n}. 跟庄${dragon ? " 中/白" : ""} ${name(h.dealer).zh}: ` + zh;
    return T(text, `${n}. Dealer followed${dragon ? " on zhong/bai" : ""} (${pays.en}): ` + en, text);
  }
  if (h.kind !== "win" || !seat(h.winner) || !(h.discarder === null || seat(h.discarder))
      || (h.valid && !Number.isFinite(h.own))) {
    return null;
  }
  const [winner, selfDraw] = [name(h.winner), h.discarder === null];
  const how = h.valid ? (selfDraw ? "自摸" : "胡 " + name(h.discarder).zh + " 放炮") : "诈胡";
  const text = `${n}. ${winner.zh} ${how}${h.valid ? " " + h.own + " 炮" : ""}${h.same ? " (一炮多响)" : ""}: ` + zh;
  return T(text, `${n}. ${winner.en} ` + (h.valid ? (selfDraw ? "self-draw" : `wins on ${name(h.discarder).en}'s `
    + "discard") + `, ${h.own} pao` : "false win") + (h.same ? " (a second winner on that discard)" : "") + ": " + en,
  text);
}

// The tally as plain text for the table's chat. A new game with no hand yet, the game before it still kept
// (tallyundo.js): that game's, said to be the previous one (a new game begun by mistake, or before the last game
// was copied, does not take its text away).
function tallyText() {
  if (table.hands.length || !table.previous) return gameText(table);
  return [words(T("上一局：", "The previous game:", "上一局 The previous game:")), gameText(table.previous)].join("\n");
}

// A game's text: the totals, the dealer, every hand in order, its seats called by its names.
function gameText(game) {
  const seats = [0, 1, 2, 3].map((s) => words(seatName(s, game.names)) + " " + signed(game.totals[s])
    + (s === game.dealer ? words(T(" (庄)", " (dealer)", " (庄 dealer)")) : ""));
  const changed = Object.keys(rulesOverrides()).length;
  const rules = serverRules ? [words(cat(T("规则：", "rules: ", "规则 rules: "), rulesName(),
    changed ? T(`（本页改了 ${changed} 项）`, ` (${changed} changed on the page)`, ` (${changed} changed on the page)`) : ""))]
    : [];
  const now = new Date();  // the table's own date (toISOString's is UTC: before 08:00 in China, yesterday's)
  const day = [now.getFullYear(), now.getMonth() + 1, now.getDate()].map((n) => String(n).padStart(2, "0")).join("-");
  const n = game.hands.length;
  return [words(T(`星子麻将记分，${day}，${n} 手`, `Xingzi tally, ${day}, ${n} hand(s)`,
    `星子麻将记分 Xingzi tally, ${day}, ${n} hand(s)`)),
    ...rules, seats.join(" · "), ...game.hands.map((h, i) => words(handWords(h, i, game.names)))].join("\n");
}

// Shown in a box ready to select (a phone on plain http has no clipboard for pages) and copied where allowed.
async function copyTally() {
  const box = $("tally-text");
  box.value = tallyText();
  box.hidden = false;
  box.focus();
  box.select();
  try {
    await navigator.clipboard.writeText(box.value);
    tallySaid(T("已复制", "The tally is copied"));
  } catch (e) {
    tallySaid(T("请选中复制", "Select the text and copy it"));
  }
}
