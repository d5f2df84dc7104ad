// The server's words in the language chosen (loaded after lang.js, before app.js, whose state and READ_REFUSED it
// reads when called).
// The server says each thing in English, the message of record, and sends the Chinese of what it knows beside it
// (the reading's messages_zh, a refusal's error_zh); the page picks. Its English names some things the Chinese way:
// the dragons by their faces (five 中, 55p中中中), 炮, 两炮起胡 (三炮起胡 under a house minimum of 3). In English alone those are said in English: a dragon
// standing alone by its name (zhong, fa, bai, as the page's faces are named), one within tile notation as English
// notation writes it (7z, 6z, 5z); the engine's sets (碰888s, 暗杠中中中中) and its hand notation (pung 8s) in the
// words of the language shown. With both languages shown each text stays as the server wrote it.
"use strict";

const DRAGON_EN = { 中: ["zhong", "7"], 发: ["fa", "6"], 白: ["bai", "5"] };
const EN_WORDS = [["七对", "seven pairs"], ["杠上开花", "kong bloom"], ["一炮多响", "several winners on one discard"],
  ["花炮", "pattern hand"], ["诈胡", "false win"], ["自摸", "self-draw"], ["炮", "pao"]];
const MELDS = [["暗杠", "concealed_kong", "concealed kong"], ["明杠", "kong", "kong"], ["碰", "pung", "pung"]];

// The server's English with no Chinese in it: "改读 scored as… 中 as 白" → "scored as… zhong as bai"; an event by
// the page's English name for it, not its key.
function plainEn(text) {
  let out = String(text).replace(/^(?![中发白])[\u3400-\u9fff]{2,}\s+(?=[A-Za-z])/, "");  // "改读 scored as…"
  for (const e of (typeof state === "object" && state.events) || []) {  // "抢杠 robbing_kong" → "robbing the kong"
    out = out.replace(new RegExp(`(?:[\\u3400-\\u9fff]+ )?\\b${e.key}\\b`, "g"), e.en);
  }
  for (const [zh, , en] of MELDS) out = out.replace(new RegExp(zh + "(?=[0-9中发白])", "g"), en + " ");
  out = out.replace(/([一两三四五六七八九十]|\d+)炮起胡/g, (_, n) => {  // 两炮起胡, 三炮起胡: by the ruleset's number
    const k = "一两三四五六七八九十".indexOf(n);
    return `the ${k < 0 ? n : k + 1}-pao minimum`;
  });
  for (const [zh, en] of EN_WORDS) out = out.split(zh).join(en);
  return out.replace(/[中发白]+/g, (run, at, all) => {
    const near = /[0-9a-z]/i.test(all[at - 1] || " ") || /[0-9a-z]/i.test(all[at + run.length] || " ");
    return run.length === 1 && !near ? DRAGON_EN[run][0] : Array.from(run, (c) => DRAGON_EN[c][1]).join("") + "z";
  });
}

// One of the server's messages: its Chinese where the server sent one (``zh``: English → Chinese), the English
// alone in English.
function told(zh, message) {
  return zh[message] ? T(zh[message], plainEn(message), zh[message] + " " + message)
    : T(message, plainEn(message), message);
}

// The hand's notation, "22288m66s中中中 6s | pung 8s | fa 1": in Chinese its melds' kinds and its 发 in Chinese
// (碰 8s, 暗杠 中, 发 1); in English every dragon in mpsz notation (777z, 7z: a lone 中 is a tile of the notation
// here, not a word), as `xingzi score --hand` reads it.
function notationPhrase(notation) {
  let zh = notation;
  for (const [word, kind] of [...MELDS, ["发", "fa"]]) zh = zh.replace(new RegExp(`\\b${kind} `, "g"), word + " ");
  const en = notation.replace(/[中发白]+/g, (run) => Array.from(run, (c) => DRAGON_EN[c][1]).join("") + "z");
  return T(zh, en, notation);
}

// The engine's sets, "123m 碰888s 暗杠中中中中", as said in each language.
function setsPhrase(sets) {
  const text = sets.join(" ");
  return T(text, plainEn(text), text);
}

// A suggestion's words without the tile numbers the page never shows (the command line's --tiles lists them):
// "read tile #21 9s as 8s" → "read 9s as 8s", "drop tile #14 (3s)" → "drop 3s"; then as plainEn says it.
function unnumbered(text) {
  return String(text).replace(/tile #\d+ \((\S+)\)/g, "$1").replace(/read tile #\d+ face down/g,
    "read a face-down tile").replace(/tile #\d+ /g, "");
}
const changesEn = (text) => plainEn(unnumbered(text));

// A suggestion's changes in the faces' Chinese names: 七万→六万, 去掉 九条 (a box on no tile dropped), 补上 五万
// (a missed tile: no index), 背面→五万 (null: face down).
function faceChanges(changes) {
  const zh = (symbol) => (symbol === null ? "背面" : (state.faces.find((f) => f.symbol === symbol) || { zh: symbol }).zh);
  return changes.map((c) => (c.drop ? "去掉 " + zh(c.old) : c.index === null ? "补上 " + zh(c.new)
    : zh(c.old) + "→" + zh(c.new))).join("，");
}

// Why a request failed: the server's words with their Chinese (error_zh), else the gist of that kind of refusal
// (``gists``: HTTP status → Chinese) the page knows; the English alone in English.
function readFailure(e, gists = READ_REFUSED) {
  const zh = e.zh || gists[e.status] || (e.status ? `服务器拒绝了（代码 ${e.status}）` : "出错了");
  return T(zh, plainEn(e.message), zh + " " + e.message);
}
