// The phone page: upload → annotated photo + score; tap a tile → pick its face → rescore.
"use strict";
const $ = (id) => document.getElementById(id);
// The user's word on a photo's tiles (memory.js keeps and restores these keys), none yet for a photo just read.
const noMarks = () => ({ corrections: {}, added: [], ignored: [], removed: [], claimed: [], released: [], win: null,
  bloom: null });
const state = { token: null, ...noMarks(), data: null, uploads: 0, faces: [], events: [], picking: null, adding: null,
  maxSide: 0, name: "photo", collect: null, followDealer: { plain: 2, dragon: 4 }, pending: 0, reading: 0, asked: 0,
  queue: [], refusal: null };  // refusal: why the last rescore was refused (payers.js asks)

function context() {
  const events = state.events.filter((e) => $("ev-" + e.key).checked).map((e) => e.key);
  return { self_draw: $("self_draw").checked, dealer: $("dealer").checked, as_read: $("as_read").checked, events,
    payers: payers(), rules: rulesOverrides(), table: tableSeats() };
}

function status(text, bad) {  // a string, or a phrase (lang.js)
  say($("status"), text);
  $("status").className = bad ? "bad" : "";
}

// The response of a request that went well; else an Error with the server's message and the HTTP status.
async function fetched(url, options) {
  let response;
  try {
    response = await fetch(url, options);
  } catch (e) {  // no answer at all (off the table's Wi-Fi, the server stopped): "Failed to fetch" says little
    throw Object.assign(new Error("the server cannot be reached (" + e.message + ")"), { zh: "连不上服务器" });
  }
  if (response.ok) return response;
  let body = {};
  try { body = await response.json(); } catch (e) { /* not JSON */ }
  throw Object.assign(new Error(body.error || ("HTTP " + response.status)), { status: response.status,
    zh: body.error_zh });  // the server's Chinese for it (words.js picks)
}

// Why a photo was refused, in Chinese by the kind of refusal, where the server sent no Chinese of its own.
const READ_REFUSED = { 400: "读不了这个文件（不是照片，或已损坏）", 408: "上传中断了", 413: "照片太大" };

// Why a rescore was refused, by the same token: the photo gone from the server (it keeps the latest few), or a fault.
const RESCORE_REFUSED = { 404: "服务器上已没有这张照片，请再上传一次", 500: "服务器出错" };

const ERROR = T("出错", "Error:");

async function call(url, options) {
  return (await fetched(url, options)).json();
}

async function upload(file) {
  status(T("读取中…", "Reading…"));
  showFolded();
  followTally();  // a hand added since the last photo moved the deal: this photo is the next hand's
  const c = context();
  const q = new URLSearchParams({ self_draw: c.self_draw, dealer: c.dealer, as_read: c.as_read,
    events: c.events.join(","), rules: JSON.stringify(c.rules), table: c.table ? JSON.stringify(c.table) : "" });
  const mine = ++state.uploads;  // a photo chosen after this one is the one to show, whichever answer comes first
  state.pending += 1;
  state.reading += 1;
  reading();
  showTable();
  try {
    const body = await shrunk(file);
    const data = await call("/api/read?" + q, { method: "POST", body,
      headers: { "Content-Type": body.type || "application/octet-stream" } });
    if (mine !== state.uploads) return;
    state.asked += 1;  // a rescore of the photo before, still on its way, is not shown over this one
    state.token = data.token;
    state.name = file.name || "photo";
    Object.assign(state, noMarks());
    setZoom(false);  // a new photo is first shown whole; corrections to it (rescores) keep the zoom
    keepPhoto(body, data);  // kept in this browser for a reload, in place of the one before
    show(data);
    $("result").scrollIntoView({ block: "start" });  // the score, not the buttons, after a read on a small screen
    // the payers' kongs need the hand's faces; a tick changed while the photo was read is scored too
    if (payers().length || JSON.stringify(context()) !== JSON.stringify(c)) {
      await rescoreWithPayers(() => mine === state.uploads);
    }
  } catch (e) {
    if (mine !== state.uploads) return;  // (the finally below still runs)
    status(cat(ERROR, " ", readFailure(e)), true);
    stale(cat(T("这张照片没读成，下面是上一张的结果", "This photo was not read; below is the previous photo's score:"), " ",
      readFailure(e)));
  } finally {
    state.pending -= 1;
    state.reading -= 1;
    reading();
    showTable();
    showQueue();
  }
}

// While a photo is read, the score of the one before is dimmed and cannot be tapped, nor reached by the keyboard
// (inert): a correction made on it now would be lost when the new photo's score replaces it a moment later, and
// "forget this photo" would forget the one before while the new one arrived unsaid.
function reading() {
  $("result").classList.toggle("reading", state.reading > 0);
  $("result").setAttribute("aria-busy", String(state.reading > 0));
  $("result").inert = state.reading > 0;
}

// Photos chosen together wait their turn behind a "next photo" button.
function showQueue() {
  $("next-photo").hidden = !state.queue.length;
  const n = state.queue.length, next = bi(`下一张（还有 ${n} 张）`, `Next photo (${n} left)`);
  $("next-photo").replaceChildren(...next);
}

// Everything the user said about the photo's tiles, and the context: the body of a rescore or labels request.
function marks() {
  return Object.assign({ token: state.token, corrections: state.corrections, added: state.added,
    ignored: state.ignored, removed: state.removed, claimed: state.claimed, released: state.released,
    win: state.win, bloom: state.bloom }, context());
}

// Events and payers lie folded away and stay set from photo to photo (hands at a table often share them): what is
// set there is said on the fold, so a setting left from the last hand is seen.
function showFolded() {
  const on = state.events.filter((e) => $("ev-" + e.key).checked);
  const zh = "：" + on.map((e) => e.zh).join("、");
  say($("events-set"), on.length ? T(zh, ": " + on.map((e) => e.en).join(", "), zh) : "");
  const set = payerRows().filter(showsSomething).length;
  say($("payers-set"), set ? T(`：已设 ${set} 家`, `: set for ${set}`, `：已设 ${set} 家`) : "");
}

async function rescore() {
  showFolded();
  if (!state.token) return false;
  status(T("计算中…", "Scoring…"));
  state.pending += 1;  // the score shown is out of date until the answer comes: nothing adds it to the tally
  showTable();
  const ask = ++state.asked;
  try {
    const data = await call("/api/rescore", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(marks()) });
    if (ask === state.asked) show(data);  // answers can come back out of order: only the latest request's shows
    state.refusal = null;
    return true;
  } catch (e) {
    state.refusal = e;
    const why = readFailure(e, RESCORE_REFUSED);
    status(cat(ERROR, " ", why), true);
    if (ask === state.asked) stale(cat(T("没有按刚才的改动重新计分", "Not scored again with your last change:"), " ", why));
    return false;
  } finally {
    state.pending -= 1;
    showTable();
  }
}

function li(list, text) {  // a string, or a phrase (lang.js)
  const item = document.createElement("li");
  say(item, text);
  list.appendChild(item);
}

// The score shown no longer matches what the page says (a rescore or an upload failed): greyed, said beside the
// score, and nothing adds it to the tally until a score comes back.
function stale(why) {
  if (!state.data) return;
  state.stale = true;
  $("result").classList.add("stale");
  say($("verdict"), cat(T("已过时 ", "", "已过时 "), why));
  $("verdict").className = "bad";
  say($("score-peek"), T("已过时", "out of date"));
  showTable();
}

function show(data, keepStatus = false) {
  const held = heldFocus();  // a tile or choice redrawn below keeps the keyboard's place (strip.js)
  state.data = data;
  if (data.added) state.added = data.added;  // each added tile where it went (one added beside a group, placed)
  state.stale = false;
  $("result").classList.remove("stale");
  $("result").hidden = false;
  $("annotated").src = data.image;
  showHits(data);
  showStrip(data);
  const scored = data.valid === true;
  const falseWin = data.valid === false && Boolean(data.reason);  // the claimant pays: that is the headline
  const settled = (settledHere(data) || {}).payments;  // the tally's seats by name, amounts as settled
  // (as settled between the seats where the tally is open: its dealer may be a payee the situation knew nothing of)
  const owed = (settled || data.payments || []).reduce((sum, p) => sum + (p.payer === "claimant" ? p.amount : 0), 0);
  const total = falseWin ? T("诈胡 −" + owed, "false win −" + owed, "诈胡 −" + owed)
    : data.own === undefined ? "–" : String(data.own);
  say($("total"), total);
  $("total-unit").hidden = falseWin;
  const zh = data.reading.messages_zh || {};
  say($("verdict"), scored ? T("胡牌", "valid win") : data.reason ? cat(T("诈胡", "false win:"), " ",
    told(zh, data.reason)) : cat(T("未能计分", "not scored:"), " ", told(zh, data.error || "")));
  $("verdict").className = scored ? "" : "bad";
  say($("notation"), notationPhrase(data.reading.notation || ""));
  const waits = (data.waits || []).length ? cat(" · ", T("听", "waited on:"), " ", setsPhrase(data.waits)) : "";
  say($("sets"), (data.sets || []).length ? cat(T("牌型", "sets:"), " ", setsPhrase(data.sets), waits) : "");
  const items = $("items"); items.innerHTML = "";
  const item = (it) => T(`${it.zh}: ${it.pao} 炮`, `${it.en}: ${it.pao} pao`, `${it.zh} ${it.en}: ${it.pao} 炮`);
  for (const it of data.items || []) li(items, item(it));
  for (const e of data.events_not_counted || []) {  // an event switched on that the score leaves out: say why
    const en = (state.events.find((x) => x.key === e.event) || { en: e.event }).en;
    const why = zh[e.reason] || e.reason;
    li(items, T(`${e.name}：不算（${why}）`, `${en}: not counted (${e.reason})`, `${e.name} ${en}: 不算 not counted（${why}）`));
  }
  const pays = $("payments"); pays.innerHTML = "";
  for (const p of settled || data.payments || []) {
    li(pays, paymentText(p, (data.payments || []).length, settled ? seatName(p.seat) : null));
  }
  showChoices("win", data.reading.win_choices || [], (c) => { state.win = c.index; });
  showChoices("kong", data.reading.kong_choices || [], (c) => {
    const face = state.faces.find((f) => f.symbol === c.tile);
    if (face) state.corrections[c.index] = face.cls;
  });
  showChoices("bloom", data.reading.bloom_choices || [], (c) => { state.bloom = c.tile; });
  const probs = $("problems"); probs.innerHTML = "";
  // Chinese first, the English under it in small type
  const problem = (p) => li(probs, zh[p] ? B(zh[p], plainEn(p), zh[p], p) : told(zh, p));
  for (const p of data.reading.reasons || []) problem(p);
  const repaired = data.reading.repaired;  // "改读 scored as …": its Chinese said by the faces it changed
  if (repaired) li(probs, T("改读：" + faceChanges(repaired.changes), changesEn(repaired.note), unnumbered(repaired.note)));
  for (const p of data.reading.problems || []) if (!(data.reading.reasons || []).includes(p)) problem(p);
  const sug = $("suggestions"); sug.innerHTML = "";
  for (const s of data.reading.suggestions || []) {
    if (s.changes.some((c) => c.index === null && c.beside == null)) {  // a tile not found: the user knows where
      const where = ["（点照片上它所在的地方添加）", "tap the photo where it lies to add it"];
      li(probs, B(`也许${faceChanges(s.changes)}${where[0]}`, `maybe: ${changesEn(s.text)} — ${where[1]}`,
        `也许 maybe: ${unnumbered(s.text)}${where[0]}`, where[1]));
      continue;
    }
    const b = document.createElement("button");
    say(b, B("也许 " + faceChanges(s.changes), "maybe: " + changesEn(s.text), "也许 " + faceChanges(s.changes),
      "maybe: " + unnumbered(s.text)));
    b.addEventListener("click", async () => {
      const added = [];  // a missed tile whose place is known (a kong's face-down tile): added beside that tile
      for (const c of s.changes.filter((c) => !c.drop)) {
        const face = state.faces.find((f) => f.symbol === (c.new === null ? "?" : c.new));  // "?": face down
        if (c.index === null && face) added.push({ cls: face.cls, beside: c.beside });
        else if (face) state.corrections[c.index] = face.cls;
      }
      state.added.push(...added);
      if (!(await rescore()) && added.length) state.added.splice(-added.length);  // refused: not added
    });
    sug.appendChild(b);
  }
  restoreFocus(held);
  showTable();  // what "add this hand" would add
  fitPayers();  // the 发 this photo's winner shows count against the set's four
  if (!keepStatus) status("");
  const verdict = scored ? T("胡牌", "valid win", "胡牌") : data.reason ? T("诈胡", "false win", "诈胡")
    : T("未能计分", "not scored", "未能计分");
  say($("score-peek"), falseWin ? total : cat(total, T(" 炮 · ", " pao · ", " 炮 · "), verdict));  // "诈胡 −80" says all
  $("score-peek").hidden = Boolean(state.scoreInView);
  peekClear();
  rememberScored();  // kept in this browser: a reload shows it again
}

// A change the server refused, taken back whole by the page: the score shown is again the one for the page's taps,
// drawn as current (not greyed, so it may be added), the refusal left in the status line. Not while another
// answer is on its way (it redraws).
function takenBack() {
  if (state.stale && state.data && !state.pending) show(state.data, true);
}

// The score in a small bar at the foot of the screen while the score itself is out of view (changing the events or
// the payers above it changes it): a tap goes to the score. Shown as soon as a score is, where that lies out of view
// from the start (large text: the photo fills the screen), not only once it has been seen and scrolled away.
function watchScore() {
  new IntersectionObserver(([entry]) => {
    state.scoreInView = entry.isIntersecting;
    $("score-peek").hidden = entry.isIntersecting || !state.data;
    peekClear();  // before it is drawn there
  }).observe($("total"));
  // what lies under the bar changes as the page scrolls (the photo's box too), is resized, or grows (a fold opened)
  addEventListener("scroll", peekLater, { passive: true, capture: true });
  addEventListener("resize", peekLater);
  document.addEventListener("toggle", peekLater, true);
  new ResizeObserver(peekLater).observe(document.querySelector("main"));
}

async function init() {
  buildLang();
  watchScore();
  const meta = await call("/api/faces");
  state.faces = meta.faces;
  state.events = meta.events;
  state.maxSide = meta.max_side;
  state.followDealer = meta.follow_dealer;
  state.followPao = meta.follow_dealer_pao;  // the same in 炮, before the dealer's doubling
  if (meta.collect !== null) showCollected(meta.collect);
  for (const e of meta.events) {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "ev-" + e.key;
    box.addEventListener("change", rescore);
    label.append(box, " ", ...bi(e.zh, e.en));
    $("events").appendChild(label);
  }
  buildRules(meta.rules);  // after the events: it marks those these rules do not count
  buildPicker();
  buildPayers();
  buildTable();
  $("mark-win").addEventListener("click", async () => {
    $("picker").close();
    if (!state.picking) return;
    const before = state.win;
    state.win = state.picking.index;
    if (!(await rescore())) {  // refused (a kong's face-down tile): as it was, not sent again
      state.win = before;
      takenBack();
    }
  });
  $("set-aside").addEventListener("click", () => leaveOut(state.ignored));
  $("not-tile").addEventListener("click", () => leaveOut(state.removed));  // no tile: out of the labels too
  $("save-labels").addEventListener("click", saveLabels);
  $("forget-photo").addEventListener("click", forgetPhoto);
  $("claim").addEventListener("click", async () => {
    $("picker").close();
    const t = state.picking;
    if (!t) return;
    const saved = [state.claimed.slice(), state.released.slice()];
    if (CLAIMED.includes(t.role)) {
      const meld = state.data.reading.tiles.filter((x) => x.meld === t.meld).map((x) => x.index);
      state.claimed = state.claimed.filter((i) => !meld.includes(i));
      state.released.push(t.index);
    } else {
      state.released = state.released.filter((i) => i !== t.index);
      state.claimed.push(t.index);
    }
    if (!(await rescore())) {  // refused: as it was
      [state.claimed, state.released] = saved;
      takenBack();
    }
  });
  $("hits").addEventListener("click", addAt);
  watchFinger();
  watchZoom();
  for (const id of ["photo", "photo-pick"]) {
    $(id).addEventListener("change", (ev) => {
      const files = Array.from(ev.target.files);
      ev.target.value = "";  // the same photo picked again reads again
      if (!files.length) return;
      state.queue = files.slice(1);  // several chosen (labelling a folder): one after another
      upload(files[0]);
    });
  }
  $("next-photo").addEventListener("click", () => { if (state.queue.length) upload(state.queue.shift()); });
  $("self_draw").addEventListener("change", () => { buildPayers(); showTable(); if (!syncDealer()) rescore(); });
  $("dealer").addEventListener("change", () => { if ($("dealer").checked) onlyDealer($("dealer")); rescore(); });
  $("as_read").addEventListener("change", rescore);
  await recall();  // the hand on the page before a reload
}

init().catch((e) => status(cat(ERROR, " ", readFailure(e, {})), true));
