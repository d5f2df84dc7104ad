// The questions the photo leaves open (loaded before app.js, whose state, $ and rescore it uses when called; its
// words in lang.js's phrases).
"use strict";

// What the photo does not show (which tile won, a face-down kong's face, the kong 杠上开花 was drawn on): one line
// per total, a button per face that gives it (诈胡 for a face giving no valid win: too few 炮, or no hand at all);
// a tap settles it and scores again.
function showChoices(kind, choices, settle) {
  const totals = new Map();
  for (const c of choices) {
    if (!totals.has(c.own)) totals.set(c.own, []);
    totals.get(c.own).push(c);
  }
  $(kind + "-choices").hidden = totals.size < 2;
  const box = $(kind + "-options"); box.innerHTML = "";
  if (totals.size < 2) return;
  for (const [own, list] of totals) {
    const line = document.createElement("p");
    const head = document.createElement("span");
    say(head, own === null ? T("诈胡: ", "false win: ", "诈胡 false win: ") : T(own + " 炮: ", own + " pao: ", own + " 炮: "));
    line.append(head);
    for (const c of list) {
      const b = document.createElement("button");
      const face = state.faces.find((f) => f.symbol === c.tile);
      say(b, face ? T(face.zh, face.name, face.zh) : c.tile);
      b.dataset.tile = c.tile;
      b.className = c.chosen ? "chosen" : "";
      b.disabled = c.index === null && kind !== "bloom";  // a kong is named by its face, no tile needed
      b.addEventListener("click", () => { settle(c); rescore(); });
      line.appendChild(b);
    }
    box.appendChild(line);
  }
}
