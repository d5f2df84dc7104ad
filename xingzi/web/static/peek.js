// The floating score bar (#score-peek) steps out of the finger's way (loaded before app.js, whose watchScore and
// show call these): unseen and untouchable while any control lies under it.
"use strict";

// Whatever a finger may tap: the bar never lies over one (a tap there would open the score, not do what was meant).
const TAPPABLE = "button, summary, select, input, textarea, a[href], label, [tabindex]:not([tabindex='-1'])";

// The bar steps out of the way (unseen and untouchable, class "in-the-way") while any control lies under it, and is
// back once the page is scrolled off it: on a phone it floats over the middle of the page, where toggles and buttons
// pass under it (session 75). Checked once a frame at most.
let peekFrame = 0;
function peekLater() {
  if (!peekFrame) peekFrame = requestAnimationFrame(() => { peekFrame = 0; peekClear(); });
}

// Layout can move under the bar with no event heard here (a font arriving, a dialog closing, the phone's keyboard
// closing on iOS, which resizes only the visual viewport): checked again twice a second as well, cheap while shown.
setInterval(() => { if (!document.hidden) peekLater(); }, 500);
if (window.visualViewport) {
  visualViewport.addEventListener("resize", peekLater);
  visualViewport.addEventListener("scroll", peekLater);
}

// checkVisibility is missing from Safari before 17.4 (iOS 16 phones): laid out and not hidden does there
const shownOnPage = (e) => (e.checkVisibility ? e.checkVisibility({ visibilityProperty: true })
  : e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden");

function peekClear() {
  const peek = document.getElementById("score-peek");  // (not app.js's $: the timer may fire before app.js loads)
  if (peek.hidden) return;
  const r = peek.getBoundingClientRect();  // visibility: hidden keeps its box in place
  const under = (e) => {
    if (peek.contains(e) || !shownOnPage(e)) return false;
    const c = e.getBoundingClientRect();
    return c.width > 0 && c.height > 0 && c.left < r.right && c.right > r.left && c.top < r.bottom && c.bottom > r.top;
  };
  const inTheWay = document.activeElement !== peek && Array.from(document.querySelectorAll(TAPPABLE)).some(under);
  peek.classList.toggle("in-the-way", inTheWay);
}
