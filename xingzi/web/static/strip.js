// The tiles as read, in words big enough for a phone (the labels drawn on the photo shrink with it): one chip per
// tile, grouped as the hand was (the row, the winning tile, each meld, the 发, what is not counted); a tap on a chip
// opens that tile's picker, as a tap on the photo does; a tile focused keeps its focus when the score is drawn again.
// Loaded before app.js, whose state and pick it uses.
"use strict";

const DOUBT = 0.6;  // read with less confidence than this: drawn dashed, worth a look
const LEFT_OUT = ["loose", "ignored", "foreign"];  // roles of tiles the hand does not count
const ADDABLE = ["concealed", "pung", "kong", "concealed_kong", "fa"];  // groups a missed tile may be added to
const GROUPS = [  // role → the group's name; melds get one group each
  ["concealed", "手牌", "hand"], ["win", "胡", "won"], ["pung", "碰", "pung"], ["kong", "明杠", "kong"],
  ["concealed_kong", "暗杠", "concealed kong"], ["fa", "发", "bonus"],
  ...LEFT_OUT.map((role) => [role, "不计", "not counted"]),
];

// A face's two characters as on a tile: 六 over 万; a dragon or a back by its one character. In English: 6 over m,
// a dragon or a back by its name (zhong, back).
function chipFace(cls) {
  const face = state.faces.find((f) => f.cls === cls);
  const lines = (zh, en = zh) => ({ zh, en, both: zh });
  if (!face) return lines(["?"]);
  if (face.name === "back") return lines(["背"], ["back"]);
  if (["中", "发", "白"].includes(face.symbol)) return lines([face.symbol], [face.name]);
  return lines([face.zh[0], face.zh.slice(1)], [face.name.slice(0, -1), face.name.slice(-1)]);
}

function chip(tile, scoredAs) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip";
  b.dataset.index = tile.index;
  const cls = scoredAs && !scoredAs.drop ? scoredAs.cls : tile.cls;  // a dropped box keeps the face read
  say(b, chipFace(cls));
  const named = (f) => state.faces.find((x) => x.cls === f) || { zh: tile.name, name: tile.name };
  const name = (f) => T(named(f).zh, named(f).name, named(f).zh);
  let title = cat(name(tile.cls), " ", tile.by_user ? T("改", "set by hand") : tile.conf.toFixed(2));
  if (LEFT_OUT.includes(tile.role)) b.classList.add("left-out");
  if (tile.by_user) b.classList.add("fixed");
  else if (tile.conf < DOUBT) b.classList.add("doubt");
  if (scoredAs) {
    b.classList.add(scoredAs.drop ? "dropped" : "scored-as");
    title = cat(title, scoredAs.drop ? T(" · 算作不是牌", " · scored as no tile", " · 算作不是牌 scored as no tile")
      : cat(T(" · 算作", " · scored as", " · 算作 scored as"), " ", name(scoredAs.cls)));
  }
  say(b, title, "title");
  say(b, cat(T(`第 ${tile.index} 张`, `tile ${tile.index}`, `第 ${tile.index} 张 tile ${tile.index}`), " ", title),
    "aria-label");
  b.addEventListener("click", () => pick(tile, b));
  return b;
}

// Where a likeliest legal reading was scored, the faces it changed: index → {cls, drop}.
function scoredFaces(data) {
  const out = new Map();
  for (const c of ((data.reading.repaired || {}).changes || [])) {
    if (c.index === null) continue;
    const face = state.faces.find((f) => f.symbol === c.new);
    out.set(c.index, { cls: face ? face.cls : null, drop: c.drop || !face });
  }
  return out;
}

// A "+" after a group: a tile the detector missed there added by its face alone (the server finds its place), by a
// keyboard, a screen reader or a finger too big for the photo.
const groupName = (tile, zh) => (tile.meld >= 0 ? "meld " + tile.meld : zh);  // a pung made a kong: the same meld

function addButton(tile, zh, en) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "add-chip";
  b.dataset.tile = tile.index;
  b.dataset.group = groupName(tile, zh);  // found again after a redraw by its group (its tiles' numbers may change)
  b.textContent = "+";
  const what = T(`在${zh}里添加漏读的牌`, `Add a missed tile to the ${en}`, `在${zh}里添加漏读的牌 Add a missed tile to the ${en}`);
  say(b, what, "aria-label");
  say(b, what, "title");
  b.addEventListener("click", () => openAdding({ beside: tile.index }, bi(`添加到${zh}`, `Add to the ${en}`), b));
  return b;
}

function showStrip(data) {
  const strip = $("strip");
  strip.replaceChildren();
  const changed = scoredFaces(data);
  const groups = new Map();  // key → {zh, en, tiles}, in the order of GROUPS, melds in their own order
  for (const [role, zh, en] of GROUPS) {
    const tiles = data.reading.tiles.filter((t) => t.role === role)
      .sort((a, b) => a.meld - b.meld || a.cls - b.cls || a.index - b.index);
    for (const t of tiles) {
      const key = groupName(t, zh);
      if (!groups.has(key)) groups.set(key, { zh, en, tiles: [] });
      groups.get(key).tiles.push(t);
    }
  }
  for (const [name, { zh, en, tiles }] of groups) {
    const group = document.createElement("span");
    group.className = "group";
    group.dataset.group = name;
    const label = document.createElement("span");
    label.className = "group-name";
    label.append(piece("zh", zh), piece("en", en, "small"));
    group.appendChild(label);
    for (const t of tiles) group.appendChild(chip(t, changed.get(t.index)));
    const full = tiles[0].role !== "concealed" && tiles.length >= 4;  // a kong, or four 发: no tile is missing
    if (ADDABLE.includes(tiles[0].role) && !full && !(tiles[0].role === "concealed_kong" && tiles[0].meld < 0)) {
      group.appendChild(addButton(tiles[0], zh, en));
    }
    const faceDown = tiles.find((t) => t.role === "loose" && chipFace(t.cls).en[0] === "back");
    if (faceDown) group.appendChild(addButton(faceDown, "扣着的牌", "face-down tiles"));  // a kong that lost a face
    strip.appendChild(group);
  }
  strip.hidden = !groups.size;
}

// What had focus in the score (a tile on the photo or in this list, an offered choice), before the score is drawn
// again (app.js's show): found again after, by what it stands for; where it is gone, the score's heading takes focus,
// not the top of the page.
function heldFocus() {
  const e = document.activeElement;
  if (!e || !$("result").contains(e)) return null;
  const g = e.classList.contains("add-chip") && CSS.escape(e.dataset.group);  // its "+", or the group's last tile
  const key = g ? [`.add-chip[data-group="${g}"]`, `.group[data-group="${g}"] .chip`]
    : e.dataset.index !== undefined ? `.${e.classList[0]}[data-index="${e.dataset.index}"]`
    : e.dataset.tile !== undefined ? `#${e.closest("[id]").id} [data-tile="${e.dataset.tile}"]` : null;
  return { e, key };
}

function restoreFocus(held) {
  if (!held || held.e.isConnected) return;
  const again = [held.key].flat().map((k) => k && Array.from(document.querySelectorAll(k)).pop()).find(Boolean);
  (again && !again.disabled ? again : $("score-heading")).focus();
}
