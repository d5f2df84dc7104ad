// The face picker: a tapped tile's dialog (read as another face, the likeliest others first; the winning tile;
// left out; a claimed meld), and a face picked for it or for a tile added. Loaded before app.js, whose state,
// $, rescore and init it uses when called.
"use strict";

const CLAIMED = ["pung", "kong"];
let pickerOpener = null;  // what opened the picker: focus goes back to it as the picker closes

// The picker shown, ``opener`` (a tile's button, a "+", the photo) focused first: a closed dialog gives focus back
// to what had it before, and a tap on bare photo (or on a button in Safari) focuses nothing, which left focus at
// the page's top (<body>). Where a browser gives it back elsewhere all the same, the close below does.
function showPicker(opener) {
  pickerOpener = opener || null;
  if (pickerOpener && document.activeElement !== pickerOpener) pickerOpener.focus({ preventScroll: true });
  $("picker").showModal();
}

// ``opener``: the button tapped for it.
function pick(tile, opener) {
  state.picking = tile;
  state.adding = null;
  for (const id of ["mark-win", "set-aside", "not-tile"]) $(id).hidden = false;
  $("picker-title").replaceChildren(...bi("读作", "Read as"));
  $("picker-then").hidden = false;
  showAlternatives(tile);
  const claim = $("claim");
  const guessedWin = tile.role === "win" && !state.data.reading.win_set_apart;
  claim.hidden = !(CLAIMED.includes(tile.role) || tile.role === "concealed" || guessedWin);
  claim.replaceChildren(...(CLAIMED.includes(tile.role) ? bi("不是碰/杠", "Not a claimed meld: back in the hand")
    : bi("碰/杠", "With its like tiles, a claimed meld")));
  const face = state.faces.find((f) => f.cls === tile.cls);
  const [read, en] = face ? [face.zh, face.name] : [tile.name, tile.name];
  // a wind or flower left out: any face picked (even the one shown) counts it back in
  say($("picker-current"), tile.role === "foreign" ? T(`非星子牌？(${read})`, `Not a Xingzi tile? (${en})`,
    `非星子牌？(${read})`) : T(read, en, read));
  showPicker(opener);
}

function faceButton(face) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.cls = face.cls;
  b.append(piece("zh", face.zh), piece("en", face.name, "small"));
  b.addEventListener("click", () => chooseFace(face));
  return b;
}

function buildPicker() {
  const grid = $("faces");
  for (const face of state.faces) grid.appendChild(faceButton(face));
  // a tap on the dimmed page around the picker closes it, as its cancel button does
  $("picker").addEventListener("click", (e) => { if (e.target === $("picker")) $("picker").close(); });
  $("picker").addEventListener("close", () => {
    const back = pickerOpener, lost = !document.activeElement || document.activeElement === document.body;
    pickerOpener = null;
    if (back && back.isConnected && lost) back.focus({ preventScroll: true });
  });
}

// The faces the model found likeliest after the one it read, offered first: most misreads are one of them.
function showAlternatives(tile) {
  const box = $("alts");
  box.replaceChildren();
  const faces = (tile && tile.alts || []).map((k) => state.faces.find((f) => f.cls === k)).filter(Boolean);
  box.hidden = !faces.length;
  if (!faces.length) return;
  const label = document.createElement("p");
  label.append(...bi("也许是", "likeliest instead"));
  box.appendChild(label);
  for (const face of faces) box.appendChild(faceButton(face));
}

async function chooseFace(face) {
  $("picker").close();
  if (state.adding) {
    state.added.push(Object.assign({ cls: face.cls }, state.adding));  // placed by the server if beside a group
    state.adding = null;
    if (!(await rescore())) {  // refused: not added
      state.added.pop();
      takenBack();
    }
  } else if (state.picking) {
    state.corrections[state.picking.index] = face.cls;
    const back = (i) => i !== state.picking.index;  // a face picked: a tile, part of the hand
    state.ignored = state.ignored.filter(back);
    state.removed = state.removed.filter(back);
    rescore();
  }
}

// The tapped tile left out of the hand: "not part of this hand" (state.ignored) or "not a tile" (state.removed).
function leaveOut(list) {
  $("picker").close();
  const t = state.picking;
  if (t && !list.includes(t.index)) {
    list.push(t.index);
    if (state.win === t.index) state.win = null;
    rescore();
  }
}
