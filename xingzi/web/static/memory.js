// The hand on the page, kept in this browser (loaded before app.js, whose state, $, call, marks, show, status and
// rescore it uses when called, and the payers' and the tally's functions): a phone reloads a page it swapped out,
// and the photo, its score and the user's taps come back as they were. The photo as sent is kept in IndexedDB (it
// may be megabytes) and read again should the server no longer hold it; the rest is small, in localStorage. A new
// photo replaces both. What is kept is what the server last scored: a change it refused (a winning tile marked on
// a kong's face-down tile) is never kept, to be refused again on the reload. Taps kept that the server refuses
// anyway (kept by an older page) are let go, the photo brought back as read, and the page says so. A kept hand that
// no longer loads (bad data, an older format, a photo the server now reads otherwise) is dropped without a word:
// the page is as on a first visit.
"use strict";

const HAND_KEY = "xingzi.hand.v1";
const PHOTO_DB = "xingzi", PHOTOS = "photos";  // the last photo, under "last"
// the photo kept: the token it was first read under, and its tiles as read; the user's word on them as last scored
const kept = { photo: null, tiles: "", taps: null };

// The tiles found, box by box: a photo read again must give the same, or the taps kept would land on other tiles.
const tilesRead = (data) => data.reading.tiles.map((t) => t.cls + "@" + t.xyxy.map(Math.round).join(",")).join(";");

// A photo read: kept (as it was sent) in place of the one before.
function keepPhoto(blob, data) {
  Object.assign(kept, { photo: data.token, tiles: tilesRead(data) });
  blob.arrayBuffer()
    .then((bytes) => kept.photo === data.token  // a later photo may have been read meanwhile
      && photoStore("readwrite", (s) => s.put({ id: data.token, type: blob.type, bytes }, "last")))
    .catch(() => { /* no IndexedDB here (a private window): only the server's copy */ });
}

// A score shown (app.js's show): the user's word on the photo's tiles it was given for, kept (a copy: the page's own
// lists change with the next tap, which the server may refuse).
function rememberScored() {
  kept.taps = JSON.parse(JSON.stringify(Object.fromEntries(Object.keys(noMarks()).map((k) => [k, state[k]]))));
  remember();
}

// The hand now: the photo's token, the user's word on its tiles as last scored and the context set around it.
function remember() {
  if (!state.token || !state.data || !kept.taps) return;
  const hand = { v: 1, token: state.token, photo: kept.photo, tiles: kept.tiles, name: state.name, ...kept.taps,
    self_draw: $("self_draw").checked, dealer: $("dealer").checked, as_read: $("as_read").checked,
    events: state.events.filter((e) => $("ev-" + e.key).checked).map((e) => e.key), payers: payerRows() };
  try { localStorage.setItem(HAND_KEY, JSON.stringify(hand)); } catch (e) { /* full, or private mode */ }
}

function forget() {
  Object.assign(kept, { photo: null, tiles: "", taps: null });
  try { localStorage.removeItem(HAND_KEY); } catch (e) { /* no storage */ }
  photoStore("readwrite", (s) => s.delete("last")).catch(() => { /* none kept */ });
}

// "Forget this photo": the photo, its score and the taps gone from the page, from this browser's store and from the
// server's memory at once (else the server drops it only when newer photos push it out); of photos chosen together
// the next is read. The tally keeps the hands already added to it.
async function forgetPhoto() {
  const token = state.token;
  const ask = T("忘掉这张照片？它的分数和改动也一并删除", "Forget this photo, its score and your changes?");
  if (!token || !window.confirm(words(ask))) return;
  state.uploads += 1;  // a reading or rescore still on its way is not shown
  state.asked += 1;
  forget();
  Object.assign(state, { token: null, data: null, adding: null, picking: null }, noMarks());
  $("result").hidden = true;
  $("annotated").removeAttribute("src");
  $("hits").replaceChildren();
  $("score-peek").hidden = true;
  showTable();
  $("photo").focus();  // the button pressed is gone with the score: focus to the next photo, not the page's top
  try {
    await call("/api/forget", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token }) });
    status(state.collect === null ? T("已忘掉这张照片：这台手机和服务器上都不再留有它",
      "The photo is forgotten: neither this phone nor the server keeps it")
      : T("已忘掉这张照片；存入训练集的副本仍在训练集里",
        "The photo is forgotten here and in the server's memory; a copy saved to the training set stays there"));
    if (state.queue.length) upload(state.queue.shift());  // photos chosen together: on to the next
  } catch (e) {  // off the Wi-Fi: the server drops it when newer photos push it out
    status(cat(T("这台手机上已删除；服务器没联系上：", "Gone from this phone; the server was not reached:"), " ",
      readFailure(e)), true);
  }
}

// The hand kept before the page was reloaded, shown again; called once the page is built.
async function recall() {
  window.addEventListener("pagehide", remember);
  document.addEventListener("visibilitychange", () => { if (document.hidden) remember(); });
  let hand = null;
  try {
    const saved = localStorage.getItem(HAND_KEY);
    if (saved === null) return;
    hand = checkedHand(JSON.parse(saved));
  } catch (e) { /* not JSON: dropped below */ }
  if (!hand) {
    forget();
    return;
  }
  const mine = state.uploads;  // a photo taken meanwhile is the one to show
  state.pending += 1;  // nothing adds it to the tally before it is back
  status(T("正在恢复上一张照片…", "Bringing back the last photo…"));
  try {
    setContext(hand);
    for (const k of ["name", ...Object.keys(noMarks())]) state[k] = hand[k];
    const [data, refused] = await scoredAgain(hand);
    if (mine !== state.uploads) return;
    Object.assign(kept, { photo: hand.photo, tiles: hand.tiles });
    state.token = data.token;
    show(data);
    if (payers().length) await rescoreWithPayers(() => mine === state.uploads);  // their kongs need the hand's faces
    if (hand.tallied && table.added === undefined) table.added = hand.photo;  // kept by an older page: not twice
    if (refused && mine === state.uploads) {
      status(cat(T("上一张照片已恢复，但对它的改动没能恢复（服务器不接受）：", "The last photo is back, but your changes to it "
        + "are not (the server refused them):"), " ", readFailure(refused, RESCORE_REFUSED)), true);
    }
  } catch (e) {
    if (mine !== state.uploads) return;
    if (e.zh && e.status === undefined) {  // no server reached (off the Wi-Fi): kept for the next try
      status(cat(ERROR, " ", readFailure(e)), true);
      return;
    }
    forget();
    Object.assign(state, noMarks());
    setContext({ self_draw: false, dealer: false, as_read: false, events: [], payers: [] });
    // refused even as read (by what is set around it: the tally's seats): said, not dropped unsaid
    status(e.status === 400 ? cat(T("上一张照片没能恢复（服务器不接受）：", "The last photo could not be brought back "
      + "(the server refused it):"), " ", readFailure(e, RESCORE_REFUSED)) : "", e.status === 400);
  } finally {
    state.pending -= 1;
    showTable();
  }
}

// The kept hand scored by the server: under its token, or, when the server no longer holds the photo (restarted,
// or it took many photos since), with the photo read again from this browser's copy. The payers' kongs are sent
// later, as after a read. [the score, null], or where the server refused the taps kept, the photo as read (the
// taps let go) and that refusal.
async function scoredAgain(hand) {
  const rescored = (token) => call("/api/rescore", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(Object.assign(marks(), { token, payers: [] })) });
  const tried = async (token) => {
    try {
      return [await rescored(token), null];
    } catch (e) {
      if (e.status !== 400) throw e;
      Object.assign(state, noMarks());  // refused: the taps let go, not the photo
      return [await rescored(token), e];
    }
  };
  try {
    return await tried(hand.token);
  } catch (e) {
    if (e.status !== 404) throw e;
  }
  const photo = await photoStore("readonly", (s) => s.get("last"));
  if (!photo || photo.id !== hand.photo) throw new Error("no copy of this photo is kept");
  const type = photo.type || "application/octet-stream";
  const read = await call("/api/read", { method: "POST", body: new Blob([photo.bytes], { type }),
    headers: { "Content-Type": type } });
  if (tilesRead(read) !== hand.tiles) throw new Error("the photo is read otherwise now");
  return tried(read.token);
}

// The ticks, events and payers' rows as kept.
function setContext(hand) {
  for (const id of ["self_draw", "dealer", "as_read"]) $(id).checked = hand[id];
  for (const e of state.events) $("ev-" + e.key).checked = hand.events.includes(e.key);
  buildPayers();  // a row for each payer of this kind of win
  setPayerRows(hand.payers);
  showFolded();
  showTable();
}

// The hand as kept, if it is one this page wrote; else null.
function checkedHand(h) {
  const int = Number.isInteger, index = (i) => int(i) && i >= 0, text = (s) => typeof s === "string";
  const flag = (b) => typeof b === "boolean", list = (a, ok) => Array.isArray(a) && a.every(ok);
  const payer = (r) => r !== null && typeof r === "object" && flag(r.dealer)
    && [r.fa, r.kongs, r.concealed_kongs].every(int) && text(r.zhong) && text(r.bai);
  const ok = h !== null && typeof h === "object" && h.v === 1 && text(h.token) && (h.photo === null || text(h.photo))
    && text(h.tiles) && text(h.name) && h.corrections !== null && typeof h.corrections === "object"
    && !Array.isArray(h.corrections) && Object.entries(h.corrections).every(([k, v]) => /^\d+$/.test(k) && index(v))
    && list(h.added, (t) => t !== null && index(t.cls)
      && ((list(t.xyxy, Number.isFinite) && t.xyxy.length === 4) || index(t.beside)))  // beside: not yet placed
    && ["ignored", "removed", "claimed", "released"].every((k) => list(h[k], index))
    && (h.win === null || index(h.win)) && (h.bloom === null || text(h.bloom))
    && ["self_draw", "dealer", "as_read"].every((k) => flag(h[k])) && [undefined, true, false].includes(h.tallied)
    && list(h.events, text)
    && list(h.payers, payer);
  return ok ? h : null;
}

// One request on the store of photos: its result, once written.
function photoStore(mode, use) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(PHOTO_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(PHOTOS);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      try {
        const tx = db.transaction(PHOTOS, mode);
        const request = use(tx.objectStore(PHOTOS));
        tx.oncomplete = () => { db.close(); resolve(request.result); };
        tx.onerror = tx.onabort = () => { db.close(); reject(tx.error); };
      } catch (e) {
        db.close();
        reject(e);
      }
    };
  });
}
