// The photo's overlay (loaded before app.js, whose state, $, pick and showAlternatives it uses when
// called): a button over each tile found and over its label, and a tap anywhere else to add a tile the detector
// missed (the picker for that opened here, for the list's "+" too).
"use strict";

// A button over each tile and over the label drawn for it: either opens that tile's picker.
function showHits(data) {
  const hits = $("hits");
  hits.innerHTML = "";
  const place = (b, [x0, y0, x1, y1]) => Object.assign(b.style, { left: (100 * x0 / data.width) + "%",
    top: (100 * y0 / data.height) + "%", width: (100 * (x1 - x0) / data.width) + "%",
    height: (100 * (y1 - y0) / data.height) + "%" });
  for (const tile of data.reading.tiles) {
    const b = document.createElement("button");
    b.className = "hit";
    b.dataset.index = tile.index;
    const zh = (state.faces.find((f) => f.cls === tile.cls) || { zh: tile.name }).zh;
    say(b, T(zh, tile.name, tile.name), "title");  // the tile's notation as drawn on the photo; in Chinese its name
    say(b, T(`第 ${tile.index} 张 ${zh}`, `tile ${tile.index} ${tile.name}`,
      `第 ${tile.index} 张 ${zh} tile ${tile.index} ${tile.name}`),
      "aria-label");
    place(b, tile.xyxy);
    b.addEventListener("click", () => pick(tile, b));
    if (tile.label_xyxy) {  // the tile's label drawn on the photo: a tap on it means the tile, not "add one here"
      const tag = document.createElement("button");
      tag.className = "tag-hit";
      tag.dataset.index = tile.index;
      tag.tabIndex = -1;  // the tile's own button is the one to reach by keyboard
      tag.setAttribute("aria-hidden", "true");
      place(tag, tile.label_xyxy);
      tag.addEventListener("click", () => pick(tile, b));  // focus back to the tile's own button
      hits.appendChild(tag);
    }
    hits.appendChild(b);
  }
}

// A tile the detector did not find: a tap on the photo where it lies opens the picker; the face picked is added
// there, in a box the size of the tiles found (so it joins its row or meld), and the hand is scored again.
function addAt(ev) {
  if (ev.target === $("hits")) addAtPoint(ev.clientX, ev.clientY);  // else a tile's own tap: pick()
}

function addAtPoint(clientX, clientY) {
  const layer = $("hits");  // lies over the photo, the tiles' buttons in it
  const r = layer.getBoundingClientRect();
  if (!state.data || !r.width || !r.height) return;
  const x = (clientX - r.left) * state.data.width / r.width;
  const y = (clientY - r.top) * state.data.height / r.height;
  const [w, h] = tileSize(state.data);
  const xyxy = [x - w / 2, y - h / 2, x + w / 2, y + h / 2].map((v) => Math.round(v * 10) / 10);
  openAdding({ xyxy }, bi("添加", "Add a tile here"), $("annotated"));  // focus back to the photo
}

// The picker for a tile to add: ``where`` it goes ({xyxy} on the photo, or {beside: index} of a tile of its group,
// which the server places), ``title`` what the picker says it is for, ``opener`` what opened it (picker.js).
function openAdding(where, title, opener) {
  state.picking = null;
  state.adding = where;
  for (const id of ["mark-win", "set-aside", "not-tile", "claim"]) $(id).hidden = true;
  $("picker-title").replaceChildren(...title);
  showAlternatives(null);
  say($("picker-current"), "");
  $("picker-then").hidden = true;
  showPicker(opener);
}

function median(values) {
  const v = values.slice().sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : 0;
}

// The median width and height of the tiles standing in the hand (else of all found), else a tile's usual share.
function tileSize(data) {
  const standing = data.reading.tiles.filter((t) => t.role === "concealed" || t.role === "win");
  const tiles = standing.length ? standing : data.reading.tiles;
  if (!tiles.length) return [data.width * 0.05, data.width * 0.07];
  return [median(tiles.map((t) => t.xyxy[2] - t.xyxy[0])), median(tiles.map((t) => t.xyxy[3] - t.xyxy[1]))];
}

// A finger's tap is moved by Chromium onto the nearest button within the finger's reach (touch adjustment): a tap
// on bare photo beside a row, where a missed tile lies, opened the row's end tile instead of "add a tile here".
// For a touch, the point the finger went down on decides: the button there, else "add" there, else nothing.
let fingerDown = null;

function watchFinger() {
  const layer = $("hits");
  layer.addEventListener("pointerdown", (ev) => {
    fingerDown = ev.pointerType === "touch" ? [ev.clientX, ev.clientY] : null;
  }, true);
  layer.addEventListener("pointercancel", () => { fingerDown = null; }, true);  // a scroll or a pinch: no tap
  layer.addEventListener("click", (ev) => {
    const at = fingerDown;
    fingerDown = null;
    if (!at || ev.detail === 0) return;  // a mouse or the keyboard (or the click below): the click's own target
    const under = document.elementsFromPoint(at[0], at[1]).find((e) => e === layer || e.parentElement === layer);
    if (under === ev.target) return;
    ev.stopPropagation();
    if (under === layer) addAtPoint(at[0], at[1]);
    else if (under) under.click();  // the tile (or its label) under the finger
  }, true);
}
