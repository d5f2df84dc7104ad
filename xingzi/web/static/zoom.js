// The photo looked at closer (loaded before app.js, whose state and $ it uses when called): on a phone the photo
// fits the page's width and its labels are a few pixels tall. Zoomed, it is drawn at least twice that width (up to
// its own size, or twice the screen's width where that is more) in a box that scrolls both ways; the tiles'
// buttons over it are placed in percentages (hits.js), so they grow with it and a tap still corrects a tile.
"use strict";

const zoom = { on: false };

function zoomedWidth(box) {
  const fit = box.clientWidth;
  const screen = document.documentElement.clientWidth;
  const natural = (state.data && state.data.width) || fit;
  return Math.round(Math.max(2 * fit, Math.min(natural, 2 * screen)));
}

// Where to look once zoomed: the middle of the tiles found, as fractions of the photo; else the photo's middle.
function tilesMiddle() {
  const data = state.data;
  const tiles = data ? data.reading.tiles : [];
  if (!tiles.length) return [0.5, 0.5];
  const x0 = Math.min(...tiles.map((t) => t.xyxy[0])), x1 = Math.max(...tiles.map((t) => t.xyxy[2]));
  const y0 = Math.min(...tiles.map((t) => t.xyxy[1])), y1 = Math.max(...tiles.map((t) => t.xyxy[3]));
  return [(x0 + x1) / 2 / data.width, (y0 + y1) / 2 / data.height];
}

// Zoomed in (on) or back to the page's width; centred on `at` ([x, y] fractions of the photo) when zoomed.
function setZoom(on, at) {
  const box = $("zoom-box"), stage = $("stage");
  zoom.on = on;
  box.classList.toggle("zoomed", on);
  $("zoom").setAttribute("aria-pressed", String(on));
  stage.style.width = on ? zoomedWidth(box) + "px" : "";
  if (!on || !at) return;
  box.scrollLeft = at[0] * stage.offsetWidth - box.clientWidth / 2;
  box.scrollTop = at[1] * stage.offsetHeight - box.clientHeight / 2;
}

// The point of the photo now in the middle of its box, as fractions: kept there when the screen turns.
function zoomMiddle() {
  const box = $("zoom-box"), stage = $("stage");
  return [(box.scrollLeft + box.clientWidth / 2) / stage.offsetWidth,
    (box.scrollTop + box.clientHeight / 2) / (stage.offsetHeight || 1)];
}

function watchZoom() {
  $("zoom").addEventListener("click", () => setZoom(!zoom.on, tilesMiddle()));
  window.addEventListener("resize", () => { if (zoom.on) setZoom(true, zoomMiddle()); });
}
