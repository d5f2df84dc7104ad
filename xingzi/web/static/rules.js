// The table's rules on the page (loaded before app.js, whose $, rescore and status it uses when called): the
// server's ruleset by name, and the points of RULES.md §9 on which tables play differently, changed here for this
// browser's scores and kept in it. Only what differs from the server's rules is sent with a score.
"use strict";

const RULES_KEY = "xingzi.rules.v1";
let serverRules = null;  // "rules" of /api/faces: {name, options: [{key, zh, en, value, choices}], optional: [...]}
let pageRules = loadRules();

function loadRules() {
  try {
    const saved = JSON.parse(localStorage.getItem(RULES_KEY) || "{}");
    if (saved && typeof saved === "object" && !Array.isArray(saved)) return saved;
  } catch (e) { /* no storage, or not ours: the server's rules */ }
  return {};
}

function saveRules() {
  try { localStorage.setItem(RULES_KEY, JSON.stringify(pageRules)); } catch (e) { /* private mode: this visit only */ }
}

const serverOptional = () => serverRules.optional.filter((i) => i.on).map((i) => i.key);
const sameSet = (a, b) => a.slice().sort().join() === b.slice().sort().join();

// The page's changes as overrides of the server's rules: options it offers, values among their choices.
function rulesOverrides() {
  if (!serverRules) return {};
  const out = {};
  for (const o of serverRules.options) {
    const v = pageRules[o.key];
    if (v !== undefined && v !== o.value && o.choices.some((c) => c.value === v)) out[o.key] = v;
  }
  if (Array.isArray(pageRules.optional)) {
    const on = serverRules.optional.map((i) => i.key).filter((k) => pageRules.optional.includes(k));
    if (!sameSet(on, serverOptional())) out.optional = on;
  }
  return out;
}

function changeRules(change) {
  change();
  saveRules();
  showRules();
  rescore();
  showPaoTable();
}

// Each scoring item with its 炮 under these rules (the server's with this page's changes), while the table is open.
async function showPaoTable() {
  if (!$("pao-box").open) return;
  try {
    const data = await call("/api/rules?" + new URLSearchParams({ rules: JSON.stringify(rulesOverrides()) }));
    $("pao-table").replaceChildren(...data.items.map((item) => {
      const row = document.createElement("tr");
      row.dataset.key = item.key;
      row.classList.toggle("off", !item.on);
      const name = document.createElement("td");
      name.append(...bi(item.zh + (item.flower ? " (花炮)" : ""), item.en));
      const pao = document.createElement("td");
      const [zh, en] = [item.pao_zh || item.pao, item.pao_en || item.pao];  // each language alone; both: as written
      say(pao, item.on ? T(zh, en, String(item.pao)) : T(`${zh} · 不算`, `${en} · not counted`,
        `${item.pao} · 不算 not counted`));
      row.append(name, pao);
      return row;
    }));
    $("settle-table").replaceChildren(...(data.settlement || []).map((line) => {  // the least win, what is paid
      const row = document.createElement("tr");
      row.dataset.key = line.key;
      const [name, text] = [document.createElement("td"), document.createElement("td")];
      name.append(...bi(line.zh, line.en));
      say(text, T(line.text_zh, line.text_en, `${line.text_zh} ${line.text_en}`));
      row.append(name, text);
      return row;
    }));
  } catch (e) {
    status(cat(ERROR, " ", readFailure(e, {})), true);
  }
}

function buildRules(rules) {
  serverRules = rules;
  $("rule-options").replaceChildren(...rules.options.map((o) => {
    const label = document.createElement("label");
    label.className = "rule";
    const select = document.createElement("select");
    select.id = "rule-" + o.key;
    select.append(...o.choices.map((c, k) => {
      const option = document.createElement("option");
      option.value = String(k);
      say(option, c.zh ? T(c.zh, c.en, c.text) : joined(c.text));  // "是 yes" with both shown
      return option;
    }));
    select.addEventListener("change", () => changeRules(() => {
      pageRules[o.key] = o.choices[Number(select.value)].value;
    }));
    label.append(...bi(o.zh, o.en), select);
    return label;
  }));
  $("rule-optional").replaceChildren(...rules.optional.map((item) => {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "rule-opt-" + item.key;
    box.addEventListener("change", () => changeRules(() => {
      pageRules.optional = rules.optional.map((i) => i.key).filter((k) => $("rule-opt-" + k).checked);
    }));
    label.append(box, " ", ...bi(item.zh, item.en));
    return label;
  }));
  $("rules-reset").addEventListener("click", () => handFocus($("rules-reset"), () => changeRules(() => { pageRules = {}; }),
    $("rule-options").querySelector("select")));  // table.js
  $("pao-box").addEventListener("toggle", showPaoTable);
  showRules();
}

function showRules() {
  const changes = rulesOverrides();
  for (const o of serverRules.options) {
    const v = o.key in changes ? changes[o.key] : o.value;
    $("rule-" + o.key).value = String(o.choices.findIndex((c) => c.value === v));
  }
  const on = changes.optional || serverOptional();
  for (const item of serverRules.optional) {
    $("rule-opt-" + item.key).checked = on.includes(item.key);
    const event = $("ev-" + item.key);  // an optional addition these rules leave out: its event says so
    if (event) event.parentElement.toggleAttribute("data-off", !on.includes(item.key));
  }
  const n = Object.keys(changes).length;
  say($("rules-name"), cat(rulesName(), n ? T(` · 本页改了 ${n} 项`, ` · ${n} changed on this page`,
    ` · 本页改了 ${n} 项 ${n} changed on this page`) : ""));
  $("rules-reset").disabled = !n;
}

// The server's ruleset by name: in Chinese a shipped one's Chinese name; a table's own file as it names itself.
function rulesName() {
  return T(serverRules.name_zh || serverRules.name, serverRules.name, serverRules.name);
}
