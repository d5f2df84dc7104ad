// The tally as text to share: what the copy button of the tally puts in the table's chat (table.js's table,
// seats and hands, lang.js's words; used when called).
"use strict";

// The tally as plain text for the table's chat: the totals, the dealer, every hand in order.
function tallyText() {
  const seats = [0, 1, 2, 3].map((s) => words(seatName(s)) + " " + signed(table.totals[s])
    + (s === table.dealer ? words(T(" (庄)", " (dealer)", " (庄 dealer)")) : ""));
  const changed = Object.keys(rulesOverrides()).length;
  const rules = serverRules ? [words(cat(T("规则：", "rules: ", "规则 rules: "), rulesName(),
    changed ? T(`（本页改了 ${changed} 项）`, ` (${changed} changed on the page)`, ` (${changed} changed on the page)`) : ""))]
    : [];
  const now = new Date();  // the table's own date (toISOString's is UTC: before 08:00 in China, yesterday's)
  const day = [now.getFullYear(), now.getMonth() + 1, now.getDate()].map((n) => String(n).padStart(2, "0")).join("-");
  const n = table.hands.length;
  return [words(T(`星子麻将记分，${day}，${n} 手`, `Xingzi tally, ${day}, ${n} hand(s)`,
    `星子麻将记分 Xingzi tally, ${day}, ${n} hand(s)`)),
    ...rules, seats.join(" · "), ...table.hands.map((h) => words(handWords(h)))].join("\n");
}

// Shown in a box ready to select (a phone on plain http has no clipboard for pages) and copied where allowed.
async function copyTally() {
  const box = $("tally-text");
  box.value = tallyText();
  box.hidden = false;
  box.focus();
  box.select();
  try {
    await navigator.clipboard.writeText(box.value);
    tallySaid(T("已复制", "The tally is copied"));
  } catch (e) {
    tallySaid(T("请选中复制", "Select the text and copy it"));
  }
}
