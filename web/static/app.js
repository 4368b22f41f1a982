// The phone page: one live stream (EventSource reconnects by itself and gets the full state),
// one render per view, and POSTs with the CSRF token. No library, nothing from the internet.
"use strict";
const view = document.body.dataset.view;
let me = document.body.dataset.me;
let S = null;
let clockAt = 0;  // when the latest state (and its turn_clock) arrived
const csrf = document.querySelector('meta[name=csrf]').content;
const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };

function toast(msg) { const t = $("toast"); t.textContent = msg; t.className = "show"; clearTimeout(toast.h); toast.h = setTimeout(() => t.className = "", 4000); }

// One id per tap, sent again with every retry of it: if the companion stored the event but the
// reply was lost (Wi-Fi drop, restart), the retry gets the first answer and nothing is played twice.
function requestId() { const b = new Uint8Array(16); crypto.getRandomValues(b); return Array.from(b, x => x.toString(16).padStart(2, "0")).join(""); }
const sleep = (ms) => new Promise(res => setTimeout(res, ms));

async function post(url, body) {
  const id = requestId(), payload = JSON.stringify(body || {});
  let r = null;
  for (let attempt = 0; ; attempt++) {
    try {
      r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, "X-Request-Id": id }, body: payload });
      break;
    } catch (e) {  // no answer: the companion may be restarting; retry the same request
      if (attempt >= 6) { toast("no answer from the companion: check the Wi-Fi"); return { ok: false, data: {} }; }
      await sleep(500 * 2 ** attempt);
    }
  }
  let data = {}; try { data = await r.json(); } catch (e) { }
  if (!r.ok) toast(data.error || ("refused (" + r.status + ")"));
  return { ok: r.ok, data };
}

const PHASE = { game: "waiting for a new game", deal: "waiting for the deal", flip: "turn up the first card", play: "to play", color: "to name a colour", target: "to pick a player", challenge: "may challenge the wild draw four", evidence: "must show their hand to the camera (or the table gives a verdict)", take_back: "must take back the card", scores: "hand over: reveal hands or enter points", game_over: "game over" };

function renderCommon() {
  if ($("top")) { if (S.top) { $("top").src = "/cards/" + S.top + ".svg"; $("top").alt = S.top.replace(/_/g, " "); } else { $("top").removeAttribute("src"); } }
  if ($("color")) { $("color").textContent = S.color ? "colour " + S.color : ""; $("color").className = "big c-" + (S.color || "none"); }
  if ($("direction")) $("direction").textContent = S.direction === "counterclockwise" ? "↺ counter-clockwise" : "↻ clockwise";
  if ($("turn")) $("turn").textContent = S.turn ? S.turn + " " + (PHASE[S.waiting_for] || "") : (PHASE[S.waiting_for] || "");
  if ($("notices")) { const ol = $("notices"); ol.innerHTML = ""; (S.notices || []).slice(-8).reverse().forEach(n => ol.appendChild(el("li", n.message, "k-" + n.kind))); }
}

function renderTable() {
  const ul = $("players"); ul.innerHTML = "";
  (S.players || []).forEach(p => {
    const li = el("li", undefined, p.name === S.turn ? "turn" : "");
    const team = (S.teams || []).find(t => t.players.includes(p.name));
    li.appendChild(el("b", p.name + (team ? " (" + team.name + ")" : "")));
    const out = (S.out || []).includes(p.name);
    li.appendChild(el("span", p.cards + " cards" + (out ? ", out of the hand" : ""), p.cards === 1 ? "one" : (out ? "out" : "")));
    li.appendChild(el("small", p.score + " pts")); ul.appendChild(li);
  });
  const one = (S.players || []).filter(p => p.cards === 1).map(p => p.name);
  $("uno").textContent = one.length ? "UNO! " + one.join(", ") + " on one card" : "";
  $("phase").textContent = S.hand_winner ? S.hand_winner + " won the hand" : (S.game_winner ? S.game_winner + " won the game" : "");
}

function renderSeat() {
  $("pick").hidden = !!me; $("mine").hidden = !me;
  const names = $("names"); names.innerHTML = "";
  (S.players || []).forEach(p => { const b = el("button", p.name); b.onclick = async () => { const r = await post("/api/seat", { player: p.name }); if (r.ok) { me = p.name; render(); } }; names.appendChild(b); });
  if (!me) return;
  const mine = (S.players || []).find(p => p.name === me);
  $("myname").textContent = me; $("mycards").textContent = mine ? mine.cards : "?";
  const myTurn = S.turn === me, w = S.waiting_for;
  $("turnbtns").hidden = !(myTurn && w === "play");
  $("colorbtns").hidden = !(myTurn && w === "color");
  $("targetbtns").hidden = !(myTurn && w === "target");
  $("challengebtns").hidden = !(myTurn && w === "challenge");
  const tb = $("targetbtns"); tb.innerHTML = "";
  (S.players || []).filter(p => p.name !== me).forEach(p => { const b = el("button", p.name); b.onclick = () => post("/api/act", { action: "target", player: p.name }); tb.appendChild(b); });
  let prompt = "";
  if (myTurn && w === "play" && S.pending_draw) prompt = S.pending_draw + " cards pending: answer on the pile if the table's rules let you, or Draw to take them";
  else if (myTurn && w === "play") prompt = "Your turn: play a card on the pile, or Draw / Pass";
  else if (myTurn && w === "color") prompt = "Name the colour";
  else if (myTurn && w === "target") prompt = "Pick a player";
  else if (myTurn && w === "challenge") prompt = "Wild draw four! Accept (draw 4) or Challenge";
  else if (myTurn && w === "evidence") prompt = "Challenged: lay your hand in the camera's reveal area";
  else if (myTurn && w === "take_back") prompt = "Take your card back";
  $("prompt").textContent = prompt;
}

function renderStandings() {
  const players = S.players || [], hist = S.history || [];
  const target = S.rules && S.rules.hands ? S.rules.hands + " hands" : (S.rules ? "target " + S.rules.target : "");
  $("target").textContent = target;
  const teams = S.teams || [], champ = teams.find(t => t.players.includes(S.game_winner));
  $("winner").textContent = S.game_winner ? (champ ? champ.name + " win the game!" : S.game_winner + " wins the game!") : "";
  $("teams").hidden = !teams.length;
  const tt = $("teamtotals"); tt.innerHTML = "";
  [...teams].sort((a, b) => b.score - a.score).forEach(t => { const tr = el("tr"); [t.name, t.score, t.hands_won].forEach(v => tr.appendChild(el("td", String(v)))); tt.appendChild(tr); });
  const tb = $("totals"); tb.innerHTML = "";
  [...players].sort((a, b) => b.score - a.score).forEach(p => { const tr = el("tr"); [p.name, p.score, p.hands_won].forEach(v => tr.appendChild(el("td", String(v)))); tb.appendChild(tr); });
  const h = $("history"); h.innerHTML = "";
  const head = el("tr"); ["Hand", "Winner", ...players.map(p => p.name)].forEach(v => head.appendChild(el("th", v))); h.appendChild(head);
  hist.forEach(e => { const tr = el("tr"); [e.hand, e.winner, ...players.map(p => (e.points || {})[p.name] || 0)].forEach(v => tr.appendChild(el("td", String(v)))); h.appendChild(tr); });
  // Totals hand by hand as an inline SVG line chart.
  const W = 320, H = 160, pad = 24, n = hist.length;
  const run = players.map(p => { let t = 0; return [0, ...hist.map(e => (t += (e.points || {})[p.name] || 0))]; });
  const max = Math.max(1, (S.rules && !S.rules.hands && S.rules.target) || 0, ...run.flat());
  const pal = ["#d7261e", "#1c5fc4", "#2f9e44", "#f2b705", "#7b3fb5", "#e0701b", "#16a3a3", "#555", "#c2185b", "#6d4c41"];
  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="totals hand by hand"><line x1="${pad}" y1="${H - pad}" x2="${W - 4}" y2="${H - pad}" stroke="#888"/><line x1="${pad}" y1="4" x2="${pad}" y2="${H - pad}" stroke="#888"/><text x="2" y="12" font-size="9">${max}</text>`;
  run.forEach((pts, i) => { const d = pts.map((v, k) => `${(pad + k * (W - pad - 8) / Math.max(1, n)).toFixed(1)},${(H - pad - v * (H - pad - 8) / max).toFixed(1)}`).join(" "); svg += `<polyline fill="none" stroke="${pal[i % 10]}" stroke-width="2" points="${d}"/><text x="${pad + 4 + (i % 4) * 70}" y="${H - 6 - 10 * Math.floor(i / 4)}" font-size="10" fill="${pal[i % 10]}">${players[i].name.replace(/[<&>]/g, "")}</text>`; });
  $("chart").innerHTML = svg + "</svg>";
}

function fillSelect(id, items) { const s = $(id); if (!s) return; const v = s.value; s.innerHTML = ""; items.forEach(i => { const o = el("option", String(i)); o.value = i; s.appendChild(o); }); if (items.map(String).includes(v)) s.value = v; }

function renderHost() {
  if (!$("newgame")) return;
  const names = (S.players || []).map(p => p.name);
  fillSelect("dealer", ["", ...names]); fillSelect("ptplayer", names); fillSelect("fixplayer", names);
  if (!$("players").value) $("players").value = names.join(", ");
  const seats = $("seats"); seats.innerHTML = "";
  names.forEach(n => { const b = el("button", "free " + n + "'s seat"); b.onclick = () => post("/api/host/release", { player: n }); seats.appendChild(b); });
  fetch("/api/host/log").then(r => r.json()).then(d => { fillSelect("corrnum", (d.lines || []).filter(l => ["flip", "play"].includes(l.line.type)).map(l => l.event)); });
}

// The turn timer (table option turn_seconds): counted down here from the server's `elapsed`;
// it only warns, the referee never plays for anyone.
function renderTimer() {
  const t = $("timer"); if (!t) return;
  const c = S && S.turn_clock;
  if (!c || !S.turn) { t.textContent = ""; t.className = "timer"; return; }
  const left = Math.ceil(c.seconds - c.elapsed - (performance.now() - clockAt) / 1000);
  const who = S.turn === me ? "Your" : S.turn + "'s";
  t.textContent = left > 0 ? who + " turn: " + left + " s" : who + " time is up!";
  t.className = left > 5 ? "timer" : "timer alert";
}
setInterval(renderTimer, 500);

function render() {
  if (!S) return;
  renderCommon();
  renderTimer();
  ({ table: renderTable, seat: renderSeat, standings: renderStandings, host: renderHost }[view] || (() => { }))();
}

function connect() {
  const es = new EventSource("/events");
  es.onmessage = (m) => { S = JSON.parse(m.data).state; clockAt = performance.now(); document.body.dataset.events = S.events; render(); };
}

document.addEventListener("click", async (ev) => {
  const b = ev.target.closest("button[data-act]"); if (!b) return;
  const act = b.dataset.act;
  await post("/api/act", { action: act, color: b.dataset.color });
});
if ($("leave")) $("leave").onclick = async () => { await post("/api/seat/leave"); me = ""; render(); };
const on = (id, ev, f) => { if ($(id)) $(id).addEventListener(ev, f); };
on("login", "submit", async (e) => { e.preventDefault(); if ((await post("/api/host/login", { pin: $("pin").value })).ok) location.reload(); });
const OFF_AT_ZERO = ["hands", "hand_limit", "elimination", "turn_seconds"];  // 0 = option off
on("newgame", "submit", async (e) => {
  e.preventDefault(); const f = e.target, rules = {};
  f.querySelectorAll("[name]").forEach(i => {
    if (i.type === "checkbox") rules[i.name] = i.checked;
    else if (i.type === "number") { const v = parseInt(i.value, 10); if (!isNaN(v) && !(OFF_AT_ZERO.includes(i.name) && v === 0)) rules[i.name] = v; }
    else rules[i.name] = i.value === "true" ? true : i.value === "false" ? false : i.value;
  });
  await post("/api/host/game", { players: $("players").value.split(",").map(s => s.trim()).filter(Boolean), rules });
});
on("deal", "click", () => post("/api/host/deal", $("dealer").value ? { dealer: $("dealer").value } : {}));
on("undo", "click", () => post("/api/host/undo"));
on("guilty", "click", () => post("/api/host/verdict", { guilty: true }));
on("innocent", "click", () => post("/api/host/verdict", { guilty: false }));
on("pointsform", "submit", (e) => { e.preventDefault(); post("/api/host/points", { player: $("ptplayer").value, points: parseInt($("pts").value, 10) }); });
on("fixform", "submit", (e) => { e.preventDefault(); post("/api/host/score_fix", { hand: parseInt($("fixhand").value, 10), player: $("fixplayer").value, points: parseInt($("fixpts").value, 10) }); });
on("correctform", "submit", (e) => { e.preventDefault(); post("/api/host/correct", { event: parseInt($("corrnum").value, 10), card: $("corrcard").value.trim() }); });
on("cardform", "submit", (e) => { e.preventDefault(); post("/api/host/card", { type: "play", card: $("cardname").value.trim() }); });
function showSwatches(sw) {
  const box = $("swatches"); if (!box) return; box.textContent = "";
  if (!sw) { box.textContent = "not calibrated: colours are read as the model learned them"; return; }
  for (const [name, hex] of Object.entries(sw)) {
    const s = document.createElement("span"); s.className = "swatch"; s.textContent = name;
    s.style.background = hex; s.style.color = "#fff"; s.style.padding = "0.4em 0.8em"; s.style.borderRadius = "6px";
    box.appendChild(s);
  }
}
if ($("swatches")) fetch("/api/host/colours").then(r => r.json()).then(c => showSwatches(c.swatches));
on("calibrate", "click", async () => {
  const r = await post("/api/host/colours");
  if (r.ok) { showSwatches(r.data.swatches); $("calibrate").textContent = "Calibrate again"; toast("colours calibrated"); }
});
if ($("zonesjson")) fetch("/api/host/zones").then(r => r.json()).then(z => { $("zonesjson").value = JSON.stringify(z); });
on("zonesform", "submit", async (e) => {
  e.preventDefault(); let z; try { z = JSON.parse($("zonesjson").value); } catch (err) { toast("zones: not JSON"); return; }
  if ((await post("/api/host/zones", z)).ok) { $("snap").src = "/host/snapshot.jpg?" + Date.now(); toast("zones saved"); }
});
connect();
