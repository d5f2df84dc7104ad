// The page's 吃炮 rows (loaded before app.js, whose state, $ and rescore it uses when called; its words in lang.js's
// pieces and phrases).
"use strict";

// 吃炮: what each payer shows in front of them (the discarder on a discard win, the three others on 自摸). The
// winner eats 炮 from their 发 and their kongs and 中/白 sets; which suit a kong is of does not change what is eaten,
// so a suit kong is given a face none of the hand's tiles has (a set holds four of each).
const SUIT_FACES = ["m", "p", "s"].flatMap((suit) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => n + suit));
const DRAGON_SETS = [["", "—"], ["pung", T("碰", "pung")], ["kong", T("明杠", "kong")],
  ["concealed_kong", T("暗杠", "concealed kong")]];
const SEATS = [["下家", "next player"], ["对家", "opposite"], ["上家", "previous player"]];
// each field named in both languages, as the rest of the page is: [key, Chinese, English, most]
const PAYER_FIELDS = [["fa", "发", "fa", 4], ["kongs", "明杠 万筒条", "suit kongs", 4],
  ["concealed_kongs", "暗杠 万筒条", "concealed suit kongs", 4]];
const NO_PAYER = { dealer: false, fa: 0, kongs: 0, concealed_kongs: 0, zhong: "", bai: "" };
// What the menus offer no more of: a player shows at most 4 melds (4 sets and a pair make a hand; the engine
// refuses a fifth), and a set has four 发 and four 中 and 白 (a 中/白 set takes three: one player's alone).
const MOST_MELDS = 4, MOST_FA = 4;
const meldsOf = (key, value) => (key === "kongs" || key === "concealed_kongs" ? Number(value)
  : key === "zhong" || key === "bai" ? Number(Boolean(value)) : 0);

function buildPayers() {
  const n = $("self_draw").checked ? 3 : 1;
  const kept = keptRows(payerRows(), n === 3);
  const box = $("payers");
  box.innerHTML = "";
  for (let k = 0; k < n; k++) {
    const row = document.createElement("div");
    row.className = "payer";
    row.dataset.payer = k;
    const [zh, en] = n === 1 ? ["放炮者", "the discarder"] : SEATS[k];
    const title = document.createElement("p");
    title.append(...bi(zh, en));
    row.appendChild(title);
    const dealer = document.createElement("input");
    dealer.type = "checkbox";
    dealer.className = "payer-dealer";
    dealer.checked = Boolean(kept[k] && kept[k].dealer);
    dealer.addEventListener("change", () => { if (dealer.checked) onlyDealer(dealer); rescore(); });
    const label = document.createElement("label");
    label.append(dealer, " ", ...bi("庄家", "dealer"));
    row.appendChild(label);
    for (const [key, zh, en, most] of PAYER_FIELDS) {
      row.appendChild(choice(key, zh, en, Array.from({ length: most + 1 }, (_, i) => [String(i), String(i)]),
        kept[k] ? String(kept[k][key]) : "0"));
    }
    for (const [key, zh, en] of [["zhong", "中", "zhong set"], ["bai", "白", "bai set"]]) {
      row.appendChild(choice(key, zh, en, DRAGON_SETS, kept[k] ? kept[k][key] : ""));
    }
    row.addEventListener("change", fitPayers);
    box.appendChild(row);
  }
  fitPayers();
}

// Each menu's choices that would make more than a table can have, greyed out (disabled): a fifth meld in a row, a
// fifth 发, a second 中 or 白 set (fed to the winner by payers of the same hand).
function fitPayers() {
  const rows = payerRows();
  const s = state.data && state.data.situation;  // the winner's own 发 lie before the table too
  const fa = rows.reduce((n, r) => n + r.fa, s && Number.isInteger(s.fa) ? s.fa : 0);
  const dragon = (key, k) => rows.some((r, i) => i !== k && r[key]);  // another payer shows that set
  document.querySelectorAll("#payers .payer").forEach((row, k) => {
    const melds = Object.entries(rows[k]).reduce((n, [key, v]) => n + meldsOf(key, v), 0);
    for (const select of row.querySelectorAll("select")) {
      const key = select.dataset.key, now = rows[k][key];
      for (const o of select.options) {
        o.disabled = melds - meldsOf(key, now) + meldsOf(key, o.value) > MOST_MELDS
          || (key === "fa" && fa - now + Number(o.value) > MOST_FA)
          || ((key === "zhong" || key === "bai") && o.value !== "" && dragon(key, k));
      }
    }
  });
}

// The rows set as ``rows`` say (a kept hand's; a row not given shows nothing), a choice the menus do not offer
// after those set before it (a fifth meld kept by an older page) left out.
function setPayerRows(rows) {
  const all = document.querySelectorAll("#payers .payer");
  for (const select of document.querySelectorAll("#payers select")) select.selectedIndex = 0;
  all.forEach((row, k) => {
    const r = rows[k] || NO_PAYER;
    row.querySelector(".payer-dealer").checked = r.dealer;
    for (const select of row.querySelectorAll("select")) {
      fitPayers();
      const o = Array.from(select.options).find((x) => x.value === String(r[select.dataset.key]));
      if (o && !o.disabled) select.value = o.value;
    }
  });
  fitPayers();
}

// A photo (new, or brought back on a reload) scored with the payers' rows, which stay set from hand to hand: what
// the last hand's payers showed may not fit this one (a 中 pung where this winner holds three 中). Refused, or not
// scored with them where it is without them, the rows are cleared (each payer's dealer tick kept) and that said:
// the photo is not left greyed or unscored by the last hand's rows till they are changed. ``current``: whether this
// photo is still the page's.
async function rescoreWithPayers(current) {
  const scored = await rescore();
  if (!current() || !payers().length) return;
  const fits = () => state.data && !state.data.error && !state.stale;
  if (scored ? fits() : (state.refusal || {}).status !== 400) return;  // fits, or not the rows' fault (no Wi-Fi)
  const why = scored ? told(state.data.reading.messages_zh || {}, state.data.error)
    : readFailure(state.refusal, RESCORE_REFUSED);
  const rows = payerRows();
  setPayerRows(rows.map((r) => ({ ...NO_PAYER, dealer: r.dealer })));
  if ((await rescore()) && current() && fits()) {
    status(cat(T("吃炮的设置不适合这张照片（也许是上一手的），已清空：", "What the payers show does not fit this photo "
      + "(set for the last hand?), and was cleared:"), " ", why), true);
  } else if (current()) {  // the photo's own doing: the rows as they were
    setPayerRows(rows);
    await rescore();
  }
}

// What the rows showed, for the rows of the other kind of win: with the tally open each row is a seat, so what a
// player shows stays theirs (the discarder's 发 go to the discarder's row of three); closed, row by row.
function keptRows(rows, selfDraw) {
  if (!rows.length || !$("table-box").open) return rows;
  const before = payerSeats(table.winner, table.discarder, !selfDraw);
  return payerSeats(table.winner, table.discarder, selfDraw).map((seat) => rows[before.indexOf(seat)]);
}

function choice(key, zh, en, options, value) {
  const label = document.createElement("label");
  const select = document.createElement("select");
  select.dataset.key = key;
  for (const [v, text] of options) {
    const o = document.createElement("option");
    o.value = v;
    say(o, text);
    select.appendChild(o);
  }
  select.value = value;
  select.addEventListener("change", rescore);
  label.append(...bi(zh, en), " ", select);
  return label;
}

function payerRows() {
  return Array.from(document.querySelectorAll("#payers .payer")).map((row) => {
    const get = (key) => row.querySelector(`[data-key="${key}"]`).value;
    return { dealer: row.querySelector(".payer-dealer").checked, fa: Number(get("fa")), kongs: Number(get("kongs")),
      concealed_kongs: Number(get("concealed_kongs")), zhong: get("zhong"), bai: get("bai") };
  });
}

// A payer row set to anything: a 发, a kong, a 中/白 set, or the dealer's tick.
function showsSomething(r) {
  return Boolean(r.dealer || r.fa || r.kongs || r.concealed_kongs || r.zhong || r.bai);
}

function payers() {
  const rows = payerRows();
  if (!rows.some(showsSomething)) return [];
  const leftOut = ["loose", "ignored", "foreign"];
  const data = state.data || { reading: { tiles: [] }, situation: null };
  const held = new Set(data.reading.tiles.filter((t) => !leftOut.includes(t.role)).map((t) => t.name));
  for (const meld of (data.situation && data.situation.melds) || []) held.add(meld.split(" ")[1]);  // guessed faces too
  const free = SUIT_FACES.filter((f) => !held.has(f));
  return rows.map((r) => {
    const melds = [];
    for (let i = 0; i < r.kongs; i++) melds.push("kong " + free.shift());
    for (let i = 0; i < r.concealed_kongs; i++) melds.push("concealed_kong " + free.shift());
    if (r.zhong) melds.push(r.zhong + " 中");
    if (r.bai) melds.push(r.bai + " 白");
    return { dealer: r.dealer, fa: r.fa, melds };
  });
}

// One dealer at the table: ticking the winner or a payer as dealer unticks the others.
function onlyDealer(ticked) {
  for (const box of [$("dealer"), ...document.querySelectorAll(".payer-dealer")]) {
    if (box !== ticked) box.checked = false;
  }
}

const PAYER_NAMES = SEATS.map(([zh, en]) => T(zh, en));  // a payment names its payer as the payers' rows do

// One payment in words: a discard win has one payer (the discarder), a self-draw three; amounts after the
// dealer's doubling, with the 炮 eaten from that payer named when there are any.
// ``seat``: the tally's name for the player on the other side (a phrase: table.js's seatName), when the score was
// settled between its seats.
function paymentText(p, payers, seat) {
  if (p.payer === "claimant") {  // the claimant pays each other player: on a discard the discarder first
    const to = seat || ($("self_draw").checked ? PAYER_NAMES[p.payee]
      : (p.payee === 0 ? T("放炮者", "the discarder") : T("另一家", "another player")));
    return cat(T("诈胡付 ", "false win: pays ", "诈胡付 false win: pays "), to, " " + p.amount);
  }
  const pays = (zh, en) => T(zh + "付 ", en + " pays ", zh + "付 " + en + " pays ");
  const who = seat ? cat(seat, T("付 ", " pays ", "付 pays ")) : payers === 1 ? pays("放炮者", "the discarder")
    : pays(...SEATS[p.payer]);
  const parts = [];
  if (p.eaten) parts.push(T(`含吃 ${p.eaten} 炮`, `${p.eaten} pao eaten`, `含吃 ${p.eaten} 炮 eaten`));
  if (p.pao !== undefined && p.amount !== p.pao) {  // the ruleset's dealer factor, as the amount shows it
    const k = Math.round(p.amount / p.pao);
    parts.push(T(`${p.pao} 炮 ×${k} 庄家`, `${p.pao} pao ×${k} dealer`, `${p.pao} 炮 ×${k} 庄家 dealer`));
  }
  return cat(who, String(p.amount), ...(parts.length ? [" (", ...parts.flatMap((x, i) => (i ? [", ", x] : [x])), ")"]
    : []));
}
