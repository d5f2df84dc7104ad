// The page's language (loaded first: the other scripts use it): 中文, English, or both side by side (the default),
// chosen in the header and kept in this browser. A text follows the choice in one of two ways, with nothing asked
// of the server again:
// - pieces: <span lang="zh">中文</span> <small lang="en">English</small>, the other language's hidden by app.css
//   (index.html's labels, and those built once: the events, the payers' rows, the rules, the faces);
// - phrases {zh, en, both}: the whole text of an element, or of one of its attributes, in each language, kept on the
//   element (data-l10n) and set again when the language changes (messages, the score, menus' choices, titles).
"use strict";

const LANG_KEY = "xingzi.lang.v1";
const LANGS = ["both", "zh", "en"];
let lang = savedLang();

function savedLang() {
  try {
    const saved = localStorage.getItem(LANG_KEY);
    if (LANGS.includes(saved)) return saved;
  } catch (e) { /* no storage: both */ }
  return "both";
}

// A phrase: what to say in Chinese, in English, and with both shown (by default the Chinese, then the English).
function T(zh, en, both) {
  return { zh, en, both: both === undefined ? zh + " " + en : both };
}

// A phrase said as the page's labels are: with both shown, the English in small type after ``both``.
function B(zh, en, both = zh, small = en) {
  return { zh, en, both, small };
}

const asPhrase = (p) => (p !== null && typeof p === "object" ? p : { zh: String(p), en: String(p), both: String(p) });
const bothText = (p) => (p.small ? p.both + " " + p.small : p.both);

// Phrases and plain strings (the same in each language: a number, a name, a tile's notation) one after another.
function cat(...parts) {
  const ps = parts.map(asPhrase);
  return { zh: ps.map((p) => p.zh).join(""), en: ps.map((p) => p.en).join(""), both: ps.map(bothText).join("") };
}

// A phrase in the language chosen, as a plain string: for a question asked (confirm) or a text copied.
function words(p) {
  p = asPhrase(p);
  return lang === "both" ? bothText(p) : p[lang];
}

// A text the server sends as one string, "中文 English" (a rule's choice): split where the Chinese ends; one with
// no such split is the same in each language.
function joined(text) {
  const m = /^(\S*[\u3000-\u9fff\uff00-\uffef]\S*) ([^\u3000-\u9fff\uff00-\uffef]+)$/.exec(text);
  return m ? T(m[1], m[2], text) : asPhrase(text);
}

// An element's text (attr "text") or one of its attributes, said in the language chosen now and whenever it changes.
function say(el, phrase, attr = "text") {
  const p = asPhrase(phrase);
  el.dataset.l10n = JSON.stringify(Object.assign(said(el), { [attr]: p }));
  sayNow(el, attr, p);
}

function said(el) {
  try { return JSON.parse(el.dataset.l10n || "{}"); } catch (e) { return {}; }
}

function sayNow(el, attr, p) {
  if (attr !== "text") {
    el.setAttribute(attr, words(p));
  } else if (lang === "both" && p.small) {
    el.replaceChildren(p.both + " ", smallText(p.small));
  } else {
    const text = lang === "both" ? p.both : p[lang];
    if (Array.isArray(text)) el.replaceChildren(...text.map((t) => Object.assign(document.createElement("span"),
      { textContent: t })));  // a chip's face: one line each
    else el.textContent = text;
  }
}

function smallText(text) {
  const s = document.createElement("small");
  s.textContent = text;
  return s;
}

// One language's piece of a label: hidden (app.css) while only the other language is shown.
function piece(language, text, tag = "span") {
  const e = document.createElement(tag);
  e.lang = language;
  e.textContent = text;
  return e;
}

// "中文 <small>English</small>", the page's usual label, as pieces.
function bi(zh, en) {
  return [piece("zh", zh), " ", piece("en", en, "small")];
}

// The header's menu of languages; each text on the page said again in the one chosen.
function buildLang() {
  const menu = document.getElementById("lang");
  const use = (chosen) => {
    lang = chosen;
    showLang();
    if (!document.getElementById("tally-text").hidden) document.getElementById("tally-text").value = tallyText();
  };
  menu.addEventListener("change", () => {
    if (!LANGS.includes(menu.value)) return;
    try { localStorage.setItem(LANG_KEY, menu.value); } catch (e) { /* private mode: this visit only */ }
    use(menu.value);
  });
  showLang();
  // Back to a page kept whole (the back-forward cache): drawn in the language kept now (chosen in another tab
  // meanwhile), the menu with it. The menu is never the browser's to restore (autocomplete="off" in index.html).
  window.addEventListener("pageshow", (e) => {
    if (e.persisted && (savedLang() !== lang || menu.value !== lang)) use(savedLang());
  });
}

function showLang() {
  const root = document.documentElement;
  root.dataset.lang = lang;
  root.lang = lang === "en" ? "en" : "zh-CN";
  document.getElementById("lang").value = lang;
  document.title = words(T("星子麻将计分", "Xingzi scorer", "星子麻将计分 · Xingzi scorer"));
  for (const el of document.querySelectorAll("[data-l10n]")) {
    for (const [attr, p] of Object.entries(said(el))) sayNow(el, attr, asPhrase(p));
  }
}
