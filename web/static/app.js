// The phone page: one live stream (EventSource reconnects by itself and gets the full state),
// one render per view, and POSTs with the CSRF token. No library, nothing from the internet.
// Every text comes from the page's catalogue (web/i18n/<lang>.json, embedded as #texts).
"use strict";
const view = document.body.dataset.view, mode = document.body.dataset.mode;
let me = document.body.dataset.me;
let S = null;
let clockAt = 0;  // when the latest state (and its turn_clock) arrived
const csrf = document.querySelector('meta[name=csrf]').content;
const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
const T = JSON.parse($("texts").textContent);
const COLORS = ["red", "yellow", "green", "blue"], DARK = ["pink", "teal", "orange", "purple"];
const NAME_ARGS = ["player", "players", "names", "team", "winner", "by", "target", "other", "name"];
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;  // Hebrew, Arabic, Syriac, Thaana… letters
const IN_HAND = ["flip", "play", "color", "target", "challenge", "evidence", "take_back"];  // a hand is being played

// -- words --------------------------------------------------------------------------------
// A card's words from its name's parts ("red_draw_two": colour + symbol), so a new deck's
// cards need only their symbol in the catalogue.
function cardName(name) {
  const i = String(name).indexOf("_"), c = name.slice(0, i), sym = name.slice(i + 1);
  if (i < 0 || !T["color." + c]) return T["sym." + name] || String(name).replace(/_/g, " ");
  return T["card.fmt"].replace("{color}", T["color." + c]).replace("{symbol}", T["sym." + sym] || sym.replace(/_/g, " "));
}
function arg(name, v) {
  if (Array.isArray(v)) return v.map(x => arg(name, x)).join(", ");
  if (name === "card" || name === "cards" || name === "top") return cardName(String(v));
  if (name === "color") return T["color." + v] || String(v);
  if (name === "phase") return T["what." + v] || String(v);
  if (name === "option") return T["opt." + v] || String(v);
  if (name === "zone") return T["host.zones." + v] || String(v);
  // a name in an Arabic or Hebrew script is set apart (FSI…PDI), so the words around it keep
  // their order ("You are محمد", not the name's direction spilling onto the card count)
  if (NAME_ARGS.includes(name) && RTL.test(String(v))) return "\u2068" + String(v) + "\u2069";
  return String(v);
}
function t(key, a) {
  a = a || {};
  const s = (String(a.n) === "1" && T[key + "_one"]) || T[key];
  if (s === undefined) return key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in a ? arg(k, a[k]) : m));
}
const said = (o) => (o && o.k && T[o.k] !== undefined ? t(o.k, o.a) : null);  // a server's {k, a}

function toast(msg, bad) { const e = $("toast"); e.textContent = msg; e.className = "show" + (bad ? " bad" : ""); placeToast(e); clearTimeout(toast.h); toast.h = setTimeout(() => e.className = "", 4000); }
// The toast stands at the foot of the screen, where the UNO!/Catch row often lies just as a play's
// toast comes up, and the player must see UNO! then. It lets taps through, but hides the buttons:
// so it moves to the head of the screen (below the menu) when that hides fewer buttons.
function placeToast(e) {
  const covered = () => {
    const r = e.getBoundingClientRect();
    return [...document.querySelectorAll("button")].filter(b => {
      const q = b.getBoundingClientRect();
      return !b.disabled && q.width && q.height && q.top < r.bottom && q.bottom > r.top && q.left < r.right && q.right > r.left;
    }).length;
  };
  e.style.top = e.style.bottom = "";
  const low = covered();
  if (!low) return;
  const nav = document.querySelector("nav"), off = $("offline");
  const head = Math.max(0, nav ? nav.getBoundingClientRect().bottom : 0, off && !off.hidden ? off.getBoundingClientRect().bottom : 0);
  e.style.top = (head + 8) + "px"; e.style.bottom = "auto";
  if (covered() >= low) e.style.top = e.style.bottom = "";
}

// A host action is confirmed first, in the page's language (a <dialog>, not the browser's).
function ask(text) {
  const d = $("confirm");
  if (!d || !d.showModal) return Promise.resolve(true);
  $("confirm-text").textContent = text;
  d.showModal();
  return new Promise(res => { $("confirm-yes").onclick = () => { d.close(); res(true); }; $("confirm-no").onclick = () => { d.close(); res(false); }; });
}

// One id per tap, sent again with every retry of it: if the companion stored the event but the
// reply was lost (Wi-Fi drop, restart), the retry gets the first answer and nothing is played twice.
function requestId() { const b = new Uint8Array(16); crypto.getRandomValues(b); return Array.from(b, x => x.toString(16).padStart(2, "0")).join(""); }
const sleep = (ms) => new Promise(res => setTimeout(res, ms));

// POST, then a toast answering it: `done` (a catalogue key and its args) when it went through,
// the refusal in plain words when not. Refusals go only to the phone that tapped.
// A double tap sends once: the same request again while the first is on its way, or within
// 0.4 s of its answer with nothing else on the table since, is ignored quietly, so the first
// tap's answer stands (not "not your turn"). Anything slower is a second intent and is sent:
// a second Undo, the same card entered again for the next player, a second Draw.
let DOUBLE_TAP_MS = 400;  // a double tap's two taps come well within this; a confirmed repeat never does
const sent = new Map();  // url + body -> {busy, at: the log's length when sent, t: when answered}
// A double tap's second tap lands where the first did, and the first may have changed what lies
// there: after Draw, Pass takes its place; after a wild, a colour; after a confirmation, the
// button behind it comes on; the page grows shorter and the colour-blind switch slides under the
// finger. So a tap within DOUBLE_TAP_MS and a finger's width of the one before, on another
// control that was not there, usable, at that place of the page at the first tap, is that double
// tap's second half and does nothing. (The same control again is left to `post`, which sends a
// repeat once; a control that stood still, scrolled to, is a tap of its own.)
const CONTROL = "button, input, select, textarea, a, label, summary";
function controlsAt() {  // where each usable control lies on the page (not the screen)
  const at = new Map();
  for (const c of document.querySelectorAll(CONTROL)) {
    const r = c.getBoundingClientRect();
    if (!c.disabled && (r.width || r.height)) at.set(c, [r.left + scrollX, r.top + scrollY]);
  }
  return at;
}
let lastTap = { t: -1e9, x: 0, y: 0, on: null, controls: new Map() };
document.addEventListener("click", (e) => {
  if (e.detail === 0) return;  // a key (Enter, Space) pressed on a focused control: no finger there
  const now = performance.now(), prev = lastTap, on = (e.target.closest && e.target.closest(CONTROL)) || e.target;
  // (a label passes its click on to its box at once: no finger is that fast)
  if (now - prev.t < DOUBLE_TAP_MS && now - prev.t > 30 && Math.hypot(e.clientX - prev.x, e.clientY - prev.y) <= 30
      && on !== prev.on && !(prev.on && prev.on.contains(on))) {
    const was = prev.controls.get(on), r = on.getBoundingClientRect();
    if (!was || Math.hypot(r.left + scrollX - was[0], r.top + scrollY - was[1]) > 2) {
      e.preventDefault(); e.stopImmediatePropagation(); return;  // the first tap's time stands: a third is the same double tap
    }
  }
  lastTap = { t: now, x: e.clientX, y: e.clientY, on, controls: controlsAt() };
}, true);
const SLOW_MS = 1500, ANSWER_MS = 8000;
async function post(url, body, done, doneArgs) {
  const id = requestId(), payload = JSON.stringify(body || {}), at = S ? S.events : -1, key = url + payload;
  const last = sent.get(key);
  if (last && (last.busy || (Date.now() - last.t < DOUBLE_TAP_MS && at <= last.at + 1))) return { ok: false, data: {}, repeat: true };
  sent.set(key, { busy: true, at });
  let r = null;
  // no answer within SLOW_MS: the player is told it is on its way (or they tap again, or ask the
  // host to enter it); a request stuck on a Wi-Fi gone quiet is cut after ANSWER_MS and sent again
  // (the same request id: the companion acts on it once)
  const slow = setTimeout(() => toast(t("err.sending"), true), SLOW_MS);
  for (let attempt = 0; ; attempt++) {
    const cut = new AbortController(), timer = setTimeout(() => cut.abort(), ANSWER_MS);
    try {
      r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, "X-Request-Id": id }, body: payload, signal: cut.signal });
      clearTimeout(timer);
      break;
    } catch (e) {  // no answer: the companion may be restarting; retry the same request
      clearTimeout(timer);
      if (attempt >= 6) { clearTimeout(slow); sent.delete(key); toast(t("err.network"), true); return { ok: false, data: {} }; }
      await sleep(500 * 2 ** attempt);
    }
  }
  clearTimeout(slow);
  let data = {}; try { data = await r.json(); } catch (e) { }
  if (!r.ok) sent.delete(key);  // a refused tap may be tried again at once (draw first, then pass)
  else sent.set(key, { busy: false, at, t: Date.now() });
  if (!r.ok) {
    toast(said(data.say) || t("err.refused", { n: r.status }), true);
    // the seat was freed (by the host, or a new game): the names come back to pick from
    if (data.say && data.say.k === "err.seat_first" && view === "seat" && me) { me = ""; render(); }
  } else if (done) {
    // what the referee answered (a catch that hit, a challenge judged) says more than "sent"
    const news = (data.notices || []).filter(n => n.kind !== "rejected").map(n => said(n.say)).filter(Boolean);
    const wrong = (data.notices || []).some(n => n.kind === "illegal_play");  // taken in, but a wrong card: not a success
    if (news.length && ["done.catch", "done.challenge", "done.guilty", "done.innocent", "done.reveal", "done.points_host", "done.points", "done.undo"].includes(done)) toast(news.join(" · "), wrong);
    // a card laid: it went in, and what the referee said of it (a wrong card, a forgotten UNO!)
    else toast([t(done, doneArgs), ...(["done.play", "done.host_card", "done.flip"].includes(done) ? news : [])].join(" · "), wrong);
  }
  return { ok: r.ok, data };
}

// -- colour-blind aid ----------------------------------------------------------------------
// A switch remembered by this browser (localStorage): each colour gets its own shape on the card
// art and, with its initial, on the colour ring, so red and green differ by more than colour.
const AID_KEY = "uno_colour_aid";
let aid = false;
try { aid = localStorage.getItem(AID_KEY) === "1"; } catch (e) { }  // storage off: the aid starts off
function setAid(on) {
  aid = on; document.body.classList.toggle("aid", on);
  if ($("aid")) $("aid").checked = on;
  try { localStorage.setItem(AID_KEY, on ? "1" : "0"); } catch (e) { }
  if (S) renderPile();
}
setAid(aid);
if ($("aid")) $("aid").addEventListener("change", (e) => setAid(e.target.checked));

// -- the pile -----------------------------------------------------------------------------
let shownTop = null, shownPile = -1;
function renderPile() {
  const img = $("top"); if (!img) return;
  const pile = $("pile");
  if (S.top) {
    const src = "/cards/" + S.top + ".svg" + (aid ? "?aid=1" : "");
    if (S.top !== shownTop || S.discard_pile !== shownPile) {
      // a new card slides onto the pile (not on the first render of the page)
      if (shownTop !== null || shownPile !== -1) { pile.classList.remove("slide"); void pile.offsetWidth; pile.classList.add("slide"); }
    }
    if (img.getAttribute("src") !== src) { img.src = src; img.alt = cardName(S.top); }
    img.hidden = false; $("notop").hidden = true;
  } else {
    // no card yet (a new hand): no image at all, so never a broken one
    img.hidden = true; img.removeAttribute("src"); img.alt = ""; $("notop").hidden = false;
  }
  shownTop = S.top || null; shownPile = S.discard_pile;
  const c = inForce();
  pile.className = pile.className.replace(/\bring-\w+/g, "").trim() + (c ? " ring-" + c : "");
  pile.title = c ? t("tbl.colour", { color: c }) : "";
  const mark = $("mark");  // the aid's badge on the ring: the colour's shape and initial
  if (mark) { mark.hidden = !c; mark.className = "mark m-" + (c || ""); mark.textContent = c ? arg("color", c).charAt(0).toUpperCase() : ""; }
}
// The colour in force: while a wrong card waits to be taken back, the one under it, which the
// referee's notice names (the state's `color` is the wrong card's).
const inForce = () => (S.waiting_for === "take_back" && S.color_under) || S.color;

// A draw until a colour (Wild Draw Colour) or until a Gryffindor card (Dementor): its own words.
const untilKey = (key, u) => key + (u.color === "gryffindor" ? "_gryffindor" : "");
function phaseText() {
  const w = S.waiting_for, who = S.turn, u = S.draw_until;
  if (w === "flip" && S.turned_by) return t("phase.turned", { player: S.turned_by });
  if (u && w === "challenge") return t("phase.challenge_until", { player: u.player, color: u.color });
  if (u) return t(untilKey("phase.until", u), { player: u.player, color: u.color });
  if (S.second_card && w === "play") return t("phase.second", { player: S.second_card.player, color: S.second_card.color });
  if (w === "challenge" && S.top === "wild_draw_two") return t("phase.challenge_d2", { player: who });
  if (w === "evidence") return t(mode === "none" ? "phase.evidence_nocam" : "phase.evidence", { player: who });
  if (w === "deal" && mode === "demo") return t("phase.deal_demo");  // the recorded game deals itself
  if (w === "play" && view === "seat" && who && who === me) return t("phase.play_you");  // on your own phone: you
  return T["phase." + w] ? t("phase." + w, { player: who || (w === "flip" ? S.dealer : "") || "" }) : "";
}

function renderCommon() {
  renderPile();
  // UNO Flip: the side in play, in words and as the page's tint
  document.body.dataset.side = S.side || "";
  if ($("side")) { $("side").textContent = S.side ? t("side." + S.side) : ""; $("side").hidden = !S.side; }
  // not the last hand's; nor the other side's colour once a last Flip has turned the cards
  const held = inForce(), colour = (IN_HAND.includes(S.waiting_for) || S.waiting_for === "scores") && (!S.colors || S.colors.includes(held)) ? held : null;
  if ($("color")) { $("color").textContent = colour ? t("tbl.colour", { color: colour }) : ""; $("color").className = "big c-" + (colour || "none"); }
  if ($("direction")) $("direction").textContent = S.top ? t(S.direction === "counterclockwise" ? "tbl.ccw" : "tbl.cw") : "";
  if ($("turn")) $("turn").textContent = phaseText();
  if ($("pending")) $("pending").textContent = S.pending_draw ? t("tbl.pending", { n: S.pending_draw }) : "";
  // the feed: what the table needs to hear (a catch that hit nobody is the catcher's alone)
  const ol = $("notices");
  if (ol) {
    ol.innerHTML = "";
    const shown = (S.notices || []).filter(n => !(n.kind === "catch_void" && !n.player));
    // a game's win that a score correction later took back ("the game goes on"): struck through
    const taken = (i) => shown.slice(i + 1).some(m => m.say && m.say.k === "notice.score_fixed_on");
    shown.map((n, i) => el("li", said(n.say) || n.message, "k-" + n.kind + (n.kind === "game_won" && taken(i) ? " void" : "")))
      .slice(-8).reverse().forEach(li => ol.appendChild(li));
  }
}

// the team a player sits in (`teams` option), or undefined
const teamOf = (name) => (S.teams || []).find(tm => tm.players.includes(name));

// who is on one card, only while it matters (not into the next hand): on the Table and TV, and
// on My seat too, where the Catch button is (a player had to leave it to see whom to catch)
function unoLine() {
  const mine = view === "seat" ? me : null;  // (My seat names the others: this phone's own count is above)
  const one = IN_HAND.includes(S.waiting_for) ? (S.players || []).filter(p => p.cards === 1 && p.name !== mine).map(p => p.name) : [];
  if ($("uno")) $("uno").textContent = one.length ? t("tbl.uno", { names: one.join(", ") }) : "";
}
function renderPlayers() {
  const ul = $("players"); if (!ul) return; ul.innerHTML = "";
  // between hands the counts are the last hand's: none until the deal (as on the seat page)
  const counting = !["deal", "game", "game_over"].includes(S.waiting_for);
  (S.players || []).forEach(p => {
    const li = el("li", undefined, p.name === S.turn ? "turn" : "");
    const team = teamOf(p.name);
    li.appendChild(el("b", team ? t("tbl.team", { player: p.name, team: team.name }) : p.name));
    const out = (S.out || []).includes(p.name);
    if (counting) li.appendChild(el("span", t("tbl.cards", { n: p.cards }) + (out ? " · " + t("tbl.out") : ""), p.cards === 1 ? "one" : (out ? "out" : "")));
    li.appendChild(el("small", t("tbl.points", { n: p.score }))); ul.appendChild(li);
  });
  unoLine();
  const between = ["scores", "deal"].includes(S.waiting_for);
  // with teams, a team wins: "Bob & Dee", not the partner who went out
  // a team won: its name, and the words for two people ("Ann & Bob hanno vinto")
  const won = (key, name) => { const tm = teamOf(name); return t(tm ? key + "_team" : key, { player: tm ? tm.name : name }); };
  const shared = sharedWin();
  if ($("phase")) $("phase").textContent = shared ? t("tbl.game_shared", { player: shared }) : S.game_winner ? won("tbl.game_won", S.game_winner) : (S.hand_winner && between ? won("tbl.hand_won", S.hand_winner) : "");
}

// -- the card picker (no camera: the host and the players tap the card laid) -----------------
function wildsOf(deck) { return ["wild", "wild_draw_four"].concat(deck === "modern" ? ["wild_shuffle_hands", "wild_customizable"] : deck === "swap" ? ["wild_swap_hands"] : []); }
// The cards a picker offers: the deck's, and with UNO Flip the side in play's only.
const DIGITS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
function deckCards() {
  const r = (S && S.rules) || {};
  if (r.deck === "flip") {
    const dark = S.side === "dark";
    return { colours: dark ? DARK : COLORS, syms: DIGITS.slice(1).concat(dark ? ["draw_five", "reverse", "skip_everyone", "flip"] : ["draw_one", "reverse", "skip", "flip"]),
      wilds: dark ? ["dark_wild", "wild_draw_colour"] : ["wild", "wild_draw_two"] };
  }
  return { colours: COLORS, syms: DIGITS.concat(["skip", "reverse", "draw_two"], r.discard_two ? ["discard_two"] : []),
    wilds: wildsOf(r.deck).concat(r.mario_reflect ? ["mario_reflect"] : [], r.dementor ? ["dementor"] : []) };
}
function picker(box, onChange) {
  if (!box) return { get: () => null, clear() { }, sync() { } };
  let colour = null, card = null, sig = "";
  const row1 = el("div", undefined, "btns colours"), row2 = el("div", undefined, "btns symbols"), hint = el("p", t("pick.none"), "help");
  box.append(row1, row2, hint);
  const draw = () => {
    // the buttons are drawn again: a keyboard's place among them is kept, not dropped to the page
    const at = box.contains(document.activeElement) ? document.activeElement.dataset : null;
    const focus = at && (at.pick ? `[data-pick="${at.pick}"]` : at.card ? `[data-card="${at.card}"]` : null);
    row1.innerHTML = ""; row2.innerHTML = "";
    const d = deckCards(); sig = JSON.stringify(d);
    d.colours.concat(["wild"]).forEach(c => {
      const b = el("button", c === "wild" ? t("pick.wild") : t("color." + c), "c-" + c + (colour === c ? " on" : ""));
      b.type = "button"; b.dataset.pick = c; b.setAttribute("aria-pressed", String(colour === c));
      b.onclick = () => { colour = c; card = null; draw(); onChange(null); }; row1.appendChild(b);
    });
    if (!colour) { hint.hidden = false; return; }
    hint.hidden = true;
    const names = colour === "wild" ? d.wilds : d.syms.map(s => colour + "_" + s);
    names.forEach(n => {
      const label = colour === "wild" ? cardName(n) : (/^\d$/.test(n.slice(colour.length + 1)) ? n.slice(colour.length + 1) : T["sym." + n.slice(colour.length + 1)]);
      const b = el("button", label, "sym c-" + colour + (card === n ? " on" : "")); b.type = "button"; b.dataset.card = n;
      b.setAttribute("aria-label", cardName(n)); b.setAttribute("aria-pressed", String(card === n));  // "green 5", not "5"
      b.onclick = () => { card = n; draw(); onChange(n); }; row2.appendChild(b);
    });
    if (focus && box.querySelector(focus)) box.querySelector(focus).focus();
  };
  draw();
  return {
    get: () => card, clear() { colour = null; card = null; draw(); onChange(null); },
    // the deck or the side in play changed (a Flip): offer the new cards, drop a pick gone
    sync() { if (JSON.stringify(deckCards()) !== sig) { colour = null; card = null; draw(); onChange(null); } },
  };
}

// -- views --------------------------------------------------------------------------------
function renderTable() { renderPlayers(); }

let seatPick = null, seatGame = null;  // the game this phone's seat was taken in
// Which names another phone holds, said before a tap rather than after it (taking a seat is no
// table event: asked again every few seconds while this phone picks a name).
function markTaken() {
  const names = $("names"); if (!names || me || mode === "demo") return;
  fetch("/api/seat").then(r => r.json()).then(d => {
    [...names.children].forEach(b => {
      const taken = (d.taken || []).includes(b.dataset.player), label = taken ? t("seat.taken_mark", { player: b.dataset.player }) : b.dataset.player;
      b.classList.toggle("taken", taken); if (b.textContent !== label) b.textContent = label;
    });
  }).catch(() => { });
}
if (view === "seat") setInterval(markTaken, 4000);
function renderSeat() {
  if (mode === "demo") { $("pick").hidden = false; $("mine").hidden = true; return; }  // no seat to take
  // a new game without this name: pick a name again. A new game for the same names keeps the
  // seat (the server says whether it did: a game started elsewhere frees every seat)
  if (me && !(S.players || []).some(p => p.name === me)) me = "";
  if (me && seatGame && S.game_id !== seatGame) recheckSeat(false);
  seatGame = me ? S.game_id : null;
  $("pick").hidden = !!me; $("mine").hidden = !me;
  const names = $("names"), who = JSON.stringify((S.players || []).map(p => p.name));
  if (names.dataset.sig !== who) {  // drawn again only when the names change: a keyboard's place stays
    names.dataset.sig = who; names.innerHTML = "";
    (S.players || []).forEach(p => { const b = el("button", p.name); b.dataset.player = p.name; b.onclick = async () => { const r = await post("/api/seat", { player: p.name }, "done.seat", { player: p.name }); if (r.ok) { me = p.name; render(); } }; names.appendChild(b); });
  }
  $("noplayers").hidden = !!(S.players || []).length;
  if (!me) { markTaken(); return; }
  const mine = (S.players || []).find(p => p.name === me);
  // the count of a hand being played or scored, not the last hand's while a deal is awaited
  const counted = mine && (IN_HAND.includes(S.waiting_for) || S.waiting_for === "scores");
  $("myname").textContent = t("seat.you", { player: me }); $("mycards").textContent = counted ? t("tbl.cards", { n: mine.cards }) : "";
  // a screen reader hears what the referee says to this player (a penalty, a hand won), once
  const toMe = (S.notices || []).filter(n => n.player === me && n.kind !== "rejected").pop(), heard = $("heard");
  const heardAt = toMe ? String(toMe.event) : "";
  if (heard && heard.dataset.me !== me) { heard.dataset.me = me; heard.dataset.event = heardAt; heard.textContent = ""; }  // not what was said before this seat
  else if (heard && heard.dataset.event !== heardAt) { heard.dataset.event = heardAt; if (toMe) heard.textContent = said(toMe.say) || toMe.message; }
  const myTurn = S.turn === me, w = S.waiting_for, demo = mode === "demo";
  // themed decks: a draw until a colour owed (say how many), a discard two's second card,
  // a reflect card as the answer to a draw two or wild draw four
  const u = S.draw_until, owe = !!(u && u.player === me && (w === "play" || w === "challenge"));
  const second = !!(S.second_card && S.second_card.player === me && w === "play");
  const top = S.top || "", hitBy = top === "wild_draw_four" || (/_draw_two$/.test(top) && top !== "wild_draw_two");
  const reflect = myTurn && !!(S.rules && S.rules.mario_reflect) && S.pending_draw > 0 && hitBy && (w === "play" || w === "challenge");
  // an illegal card waiting to be taken back stands if the next player plays or draws on it
  const standing = w === "take_back" && S.stands_for === me;
  $("turnbtns").hidden = demo || !((myTurn && w === "play") || standing) || owe || second;
  // no pass while a wrong card may stand (play or draw on it) or a stack waits (answer or take it)
  // and no pass before drawing, unless nothing can be drawn (an empty pile, the hand limit)
  const limit = S.rules && S.rules.hand_limit, full = !!limit && !!mine && mine.cards + 1 > limit;
  const empty = (S.draw_pile || 0) + Math.max((S.discard_pile || 0) - 1, 0) === 0;
  $("turnbtns").querySelector("[data-act=pass]").hidden = standing || S.pending_draw > 0 || !(S.drawn || full || empty);
  // and no Draw once drawn (unless the table draws until playable), nor from an empty pile
  const again = !!(S.rules && S.rules.draw_until_playable);
  $("turnbtns").querySelector("[data-act=draw]").hidden = !standing && !S.pending_draw && ((S.drawn && !again) || empty);
  // UNO! and Catch belong to a hand in play, not to the scores or the wait for a deal
  if ($("unobtns")) $("unobtns").hidden = demo || !IN_HAND.includes(w) || w === "flip";
  if ($("tookbtns")) $("tookbtns").hidden = demo || !(myTurn && w === "take_back");
  // jump-in (house rule, no camera): the identical card laid out of turn, from this phone
  const jb = $("jumpbtn"), out = (S.out || []).includes(me) || !(mine && mine.cards > 0);
  if (jb) {
    // (the referee names the card while a twin of it is still off the pile: not a red 0, nor a 5 whose twin is laid)
    jb.hidden = !S.jump_card || myTurn || w !== "play" || !S.turn || out;
    const label = t("btn.jump_in", { card: top });
    if (jb.textContent !== label) jb.textContent = label;
  }
  // jump-in (house rule, camera): the camera credits the card to the player on turn; the one who
  // slapped down the card identical to the one beneath says it was theirs (the referee checks)
  const xb = $("jumpedbtn"), claim = S.jump_claim;
  if (xb) {
    xb.hidden = demo || !claim || claim.jumped || claim.by === me || out;
    const label = t("btn.jumped_in", { card: claim ? claim.card : top });
    if (xb.textContent !== label) xb.textContent = label;
  }
  $("drewform").hidden = demo || !owe;
  $("secondbtns").hidden = demo || !second;
  $("reflectbtn").hidden = demo || !reflect;
  const cb = $("colorbtns"), cols = S.colors || COLORS;
  if (cb.dataset.cols !== cols.join()) {  // the side in play's colours (UNO Flip's dark side: its own four)
    cb.innerHTML = ""; cb.dataset.cols = cols.join();
    cols.forEach(c => { const b = el("button", t("color." + c), "c-" + c); b.dataset.act = "color"; b.dataset.color = c; cb.appendChild(b); });
  }
  cb.hidden = demo || !(myTurn && w === "color");
  $("targetbtns").hidden = demo || !(myTurn && w === "target");
  $("challengebtns").hidden = demo || !(myTurn && w === "challenge");
  $("acceptbtn").hidden = owe;  // a wild draw colour is taken by saying how many were drawn
  $("acceptbtn").textContent = t("btn.accept_n", { n: S.pending_draw || 4 });
  // the first card is the dealer's to turn up; after a Flip, the new top is its player's to say
  const flipping = w === "flip" && (S.turned_by || S.dealer) === me;
  const scoring = w === "scores" && (S.points_due || []).includes(me);
  const myTeam = teamOf(me);
  const teamWon = w === "scores" && !!myTeam && S.hand_winner !== me && myTeam.players.includes(S.hand_winner);
  const scored = w === "scores" && !scoring && S.hand_winner !== me && !teamWon;
  $("mypoints").hidden = demo || !scoring;
  if ($("cardpick")) {
    const show = (myTurn && w === "play" && !owe) || flipping || standing;
    $("cardpick").hidden = !show; $("playcard").hidden = !show;
    if (!seatPick) seatPick = picker($("cardpick"), (c) => { $("playcard").disabled = !c; $("playcard").textContent = c ? t(S.waiting_for === "flip" ? "btn.flip_card" : "btn.play_card", { card: c }) : t("err.pick_card"); });
    seatPick.sync();
    if (!seatPick.get()) { $("playcard").disabled = true; $("playcard").textContent = t("err.pick_card"); }
  }
  const tb = $("targetbtns"), others = JSON.stringify((S.players || []).filter(p => p.name !== me).map(p => p.name));
  if (tb.dataset.sig !== others) {
    tb.dataset.sig = others; tb.innerHTML = "";
    (S.players || []).filter(p => p.name !== me).forEach(p => { const b = el("button", p.name); b.onclick = () => post("/api/act", { action: "target", player: p.name }, "done.target", { player: p.name }); tb.appendChild(b); });
  }
  const nocam = mode === "none";
  let prompt = "";
  if (flipping && S.turned_by) prompt = t(nocam ? "prompt.turned" : "prompt.turned_cam");
  else if (owe && w === "challenge") prompt = t("prompt.challenge_until", { color: u.color });
  else if (owe) prompt = t(untilKey("prompt.until", u), { color: u.color });
  else if (second) prompt = t(nocam ? "prompt.second" : "prompt.second_cam", { color: S.second_card.color });
  else if (reflect && w === "play") prompt = t("prompt.reflect", { n: S.pending_draw });
  else if (myTurn && w === "challenge") prompt = t(top === "wild_draw_two" ? "prompt.challenge_d2" : "prompt.challenge") + (reflect ? " " + t("prompt.reflect_also") : "");
  else if (myTurn && w === "play" && S.pending_draw) prompt = t("prompt.pending", { n: S.pending_draw });
  else if (myTurn && w === "play") prompt = t(nocam ? "prompt.play_nocam" : "prompt.play");
  else if (myTurn && w === "color") prompt = t("prompt.color");
  else if (myTurn && w === "target") prompt = t("prompt.target");
  else if (myTurn && w === "evidence") prompt = t(nocam ? "prompt.evidence_nocam" : "prompt.evidence");
  else if (myTurn && w === "take_back") prompt = t(nocam ? "prompt.take_back_nocam" : "prompt.take_back");
  else if (standing) prompt = t(nocam ? "prompt.let_stand" : "prompt.let_stand_cam", { player: S.turn });
  else if (flipping && nocam) prompt = t("prompt.flip");
  else if (w === "scores" && S.hand_winner === me) prompt = t("prompt.won");
  else if (teamWon) prompt = t("prompt.team_won", { player: S.hand_winner });
  else if (scoring) prompt = t("prompt.scores");
  else if (scored) prompt = t("prompt.scores_done");
  // a live region: a screen reader hears this phone's own prompt ("Your turn"), said once
  const shown = demo ? "" : prompt, fresh = $("prompt").textContent !== shown;
  if (fresh) $("prompt").textContent = shown;
  // a new prompt below the screen's foot (a phone turned sideways shows the pile and no button):
  // brought into view, once, so the buttons under it show
  if (fresh && shown && $("prompt").getBoundingClientRect().bottom > window.innerHeight) $("prompt").scrollIntoView({ block: "start", behavior: "smooth" });
  unoLine();
}

// Players (teams) level on points and every tie-break share first place (the state's `places`):
// their names, else null
function sharedWin() {
  const pl = S.places || [], sides = [];
  (S.placings || []).forEach((n, i) => { const tm = teamOf(n), side = tm ? tm.name : n; if (pl[i] === 1 && !sides.includes(side)) sides.push(side); });
  return sides.length > 1 ? sides.join(" · ") : null;
}
// players who played hands of this game and have left it (their points stay in those hands)
function leavers() {
  const seated = (S.players || []).map(p => p.name), out = [];
  (S.history || []).forEach(e => Object.keys(e.points || {}).forEach(n => { if (!seated.includes(n) && !out.includes(n)) out.push(n); }));
  return out;
}
function pointsOf(e, name) { return (e.points || {})[name] || 0; }
// Players (or teams) in the game's own order: once it is over, its placings (the tie-breaks
// the league counts by); before, by total, the lowest first where the lowest total wins.
function ranked(rows, names) {
  const place = S.placings || [], low = S.rules && S.rules.scoring === "lowest_wins";
  const at = (r) => Math.min(...names(r).map(n => place.indexOf(n)).filter(i => i >= 0), Infinity);
  return [...rows].sort((a, b) => place.length ? at(a) - at(b) : (low ? a.score - b.score : b.score - a.score) || b.hands_won - a.hands_won);
}
function renderTotals() {
  const tb = $("totals"); if (!tb) return; tb.innerHTML = "";
  // a row: name, total, hands won (a player's or a team's)
  const row = (who, cls) => { const tr = el("tr", undefined, cls), name = el("td", who.name); name.dir = "auto"; tr.appendChild(name); tr.appendChild(el("td", String(who.score), "num")); tr.appendChild(el("td", String(who.hands_won), "num")); return tr; };
  ranked(S.players || [], p => [p.name]).forEach(p => tb.appendChild(row(p, p.name === S.turn ? "turn" : "")));
  // lowest wins (each player's own points count against them): said, as most players read "points" the other way
  const low = S.rules && S.rules.scoring === "lowest_wins";
  if ($("target")) $("target").textContent = S.rules ? (S.rules.hands ? t("st.hands", { n: S.rules.hands }) : t(low ? "st.target_lowest" : "st.target", { n: S.rules.target }))
    + (low ? " · " + t("st.lowest_wins") : "") : "";
  // a team game: the teams' totals above the players' (the standings and the TV)
  const teams = S.teams || [], tt = $("teamtotals");
  if (!tt) return;
  $("teams").hidden = !teams.length; tt.innerHTML = "";
  ranked(teams, tm => tm.players).forEach(tm => tt.appendChild(row(tm)));
}

function renderStandings() {
  const players = S.players || [], hist = S.history || [];
  renderTotals();
  const champ = teamOf(S.game_winner);
  const shared = sharedWin();
  $("winner").textContent = shared ? t("st.wins_shared", { player: shared }) : S.game_winner ? t(champ ? "st.wins_team" : "st.wins", { player: champ ? champ.name : S.game_winner }) : "";
  const h = $("history"); h.innerHTML = "";
  $("nohands").hidden = hist.length > 0; h.hidden = !hist.length;
  // a name (a column's head, a hand's winner) is cut to its box with an ellipsis, whole in its title
  const named = (cell, name) => { const s = el("span", name, "nm"); s.dir = "auto"; cell.title = name; cell.appendChild(s); return cell; };
  // a column for each player at the table, then for each who played hands and left (their points
  // stay in those hands); a hand played before someone joined shows a dash, not a 0
  const cols = players.map(p => p.name).concat(leavers());
  const head = el("tr"); head.appendChild(el("th", t("st.hand"), "num")); head.appendChild(el("th", t("st.winner")));
  cols.forEach(n => head.appendChild(named(el("th", undefined, "num"), n))); h.appendChild(head);
  hist.forEach(e => { const tr = el("tr"); tr.appendChild(el("td", String(e.hand), "num")); tr.appendChild(named(el("td"), e.winner)); cols.forEach(n => tr.appendChild(el("td", n in (e.points || {}) ? String(pointsOf(e, n)) : "–", "num"))); h.appendChild(tr); });
  $("chart").innerHTML = chart(players, hist);
  loadLeague();
}

// Totals after each hand: an SVG line chart with labelled axes, gridlines and a legend.
const DASH = ["", "7 3", "2 3", "9 3 2 3", "4 4", "1 3", "12 4", "6 2 2 2", "3 6", "10 2 2 2 2 2"];
const PAL = ["#d7261e", "#1c5fc4", "#2f9e44", "#e0a800", "#7b3fb5", "#e0701b", "#16a3a3", "#555", "#c2185b", "#6d4c41"];
function niceStep(max) { const raw = max / 4, p = 10 ** Math.floor(Math.log10(raw)); return [1, 2, 5, 10].map(m => m * p).find(s => s >= raw); }
function chart(players, hist) {
  const run = players.map(p => { let s = 0; return [0, ...hist.map(e => (s += pointsOf(e, p.name)))]; });
  const goal = (S.rules && !S.rules.hands && S.rules.target) || 0;
  return lineChart(players.map(p => p.name), run, goal, t("st.chart"), t("st.axis_x"), t("st.axis_y"));
}
// Running totals (each line starts at 0) as an SVG line chart: axes, gridlines, a legend of
// one row per name (cut with an ellipsis, kept in its own direction) with its total on the right.
// Players level at a point are drawn a little apart there, so a tie shows every colour.
function legendName(name, room) {  // the name, cut with an ellipsis to `room` (the chart's units at font size 10)
  const ch = Array.from(String(name)), ctx = (legendName.ctx = legendName.ctx || document.createElement("canvas").getContext("2d"));
  const wide = (s) => { if (!ctx) return s.length * 7; ctx.font = "10px system-ui,sans-serif"; return ctx.measureText(s).width; };
  if (wide(ch.join("")) <= room) return ch.join("");
  let k = ch.length; while (k > 1 && wide(ch.slice(0, k).join("") + "…") > room) k--;
  return ch.slice(0, k).join("") + "…";
}
function lineChart(names, run, goal, title, axisX, axisY) {
  const esc = (s) => String(s).replace(/[<&>"]/g, (ch) => ({"<": "&lt;", "&": "&amp;", ">": "&gt;", '"': "&quot;"})[ch]);
  const RH = 15, W = 340, L = 44, R = 10, top = 10, legend = RH * names.length + 6, B = 34 + legend, H = 190 + legend, n = Math.max(0, ...run.map(r => r.length - 1));
  const max = Math.max(10, ...run.flat(), Math.min(goal, Math.max(10, ...run.flat()) * 1.5));
  const step = niceStep(max), ymax = Math.ceil(max / step) * step;
  const x = (k) => L + k * (W - L - R) / Math.max(1, n), y = (v) => H - B - v * (H - B - top) / ymax;
  const GAP = 2.5, tied = (i, k) => { const same = run.map((r, j) => j).filter(j => run[j][k] === run[i][k]); return (same.indexOf(i) - (same.length - 1) / 2) * GAP; };
  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}" font-size="10" font-family="system-ui,sans-serif">`;
  for (let v = 0; v <= ymax; v += step) svg += `<line x1="${L}" x2="${W - R}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#ddd"/><text x="${L - 4}" y="${(y(v) + 3).toFixed(1)}" text-anchor="end" fill="#333">${v}</text>`;
  if (goal && goal <= ymax) svg += `<line x1="${L}" x2="${W - R}" y1="${y(goal)}" y2="${y(goal)}" stroke="#999" stroke-dasharray="4 3"/>`;
  const every = Math.max(1, Math.ceil(n / 10));
  for (let k = 0; k <= n; k += every) svg += `<text x="${x(k).toFixed(1)}" y="${H - B + 13}" text-anchor="middle" fill="#333">${k}</text>`;
  svg += `<line x1="${L}" y1="${top}" x2="${L}" y2="${H - B}" stroke="#333"/><line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/>`;
  svg += `<text x="${(L + W - R) / 2}" y="${H - B + 26}" text-anchor="middle" fill="#333">${esc(axisX)}</text>`;
  svg += `<text transform="translate(11 ${(top + H - B) / 2}) rotate(-90)" text-anchor="middle" fill="#333">${esc(axisY)}</text>`;
  const room = W - R - 40 - (L + 14);  // a name's row up to its total, right-aligned at the end
  run.forEach((pts, i) => {
    // each line its own dash as well as its colour: two players whose colours look alike
    // (red and green to many eyes) are still told apart, on the line and in the legend
    const c = PAL[i % PAL.length], d = DASH[i % DASH.length], at = pts.map((v, k) => [x(k).toFixed(1), (y(v) + tied(i, k)).toFixed(1)]);
    svg += `<polyline fill="none" stroke="${c}" stroke-width="2.5" stroke-linejoin="round" stroke-dasharray="${d}" points="${at.map(p => p.join(",")).join(" ")}"/>` + at.map(([cx, cy]) => `<circle cx="${cx}" cy="${cy}" r="2.5" fill="${c}"/>`).join("");
    const ly = H - legend + 4 + RH * i;
    svg += `<g class="leg"><line x1="${L - 6}" x2="${L + 11}" y1="${ly + 5}" y2="${ly + 5}" stroke="${c}" stroke-width="3" stroke-dasharray="${d}"/><text y="${ly + 9}" fill="#111"><tspan x="${L + 14}" style="unicode-bidi:isolate">${esc(legendName(names[i], room))}</tspan><tspan x="${W - R}" text-anchor="end"> ${pts[pts.length - 1]}</tspan></text></g>`;
  });
  return svg + "</svg>";
}

// -- the League tab (league night): victory points, games won, game points, a chart -------
// Only a finished game changes a league: the newest is asked for when first shown and again
// when a game ends; null when `seen` (a view's own memory) says nothing changed since.
function leagueChanged(seen) {
  const key = String(!!S && S.waiting_for === "game_over");
  if (seen.key === key) return null;
  seen.key = key;
  return fetch("/api/league/newest").then(r => r.ok ? r.json() : null);
}
const leagueSeen = {}, tvLeagueSeen = {};
function showTab(which) {
  ["game", "league"].forEach(k => { $("tab-" + k).setAttribute("aria-selected", String(k === which)); $(k + "tab").hidden = k !== which; });
  if (which === "league") { leagueSeen.key = null; loadLeague(); }
}
function loadLeague() {
  if (!$("leaguetab") || $("leaguetab").hidden) return;
  const got = leagueChanged(leagueSeen);
  if (got) got.then(showLeague).catch(() => showLeague(null));
}
function showLeague(d) {
  $("lgnone").hidden = !!d; $("lgbody").hidden = !d;
  $("lgname").textContent = d ? d.league.name + (d.league.closed ? " (" + t("st.league_closed") + ")" : "") : t("st.tab_league");
  if (!d) return;
  const tb = $("lgrows"); tb.innerHTML = "";
  d.table.forEach(r => { const tr = el("tr"); [[r.rank, "num"], [r.player, ""], [r.victory_points, "num"], [r.games_won, "num"], [r.game_points, "num"]].forEach(([v, c]) => tr.appendChild(el("td", String(v), c))); tb.appendChild(tr); });
  // a game cut off by a new one (or still going) is in the league but not counted: said, as the CLI does
  $("lggames").textContent = t("st.league_games", { n: d.games.length }) + ((d.unfinished || []).length ? " · " + t("st.league_unfinished", { n: d.unfinished.length }) : "");
  vpTable($("lgvp"), d.victory_points);
  const names = d.table.map(r => r.player);
  $("lgchart").innerHTML = lineChart(names, names.map(p => [0, ...(d.series[p] || [])]), 0, t("st.league_chart"), t("st.axis_game"), t("st.axis_vp"));
  const ol = $("lglist"); ol.innerHTML = "";
  d.games.forEach((g, i) => ol.appendChild(el("li", t("st.league_game", { n: i + 1, names: g.placings.map(p => p + " +" + (g.victory_points[p] || 0)).join(", ") }))));
}

function renderTv() { renderPlayers(); renderTotals(); loadTvLeague(); }
// A TV cannot be scrolled: when the league's table does not fit under the game's (six players
// at 720 lines), the two take turns on the screen, TV_TURN_MS each.
const TV_TURN_MS = 8000;
let tvLeagueTurn = false;
function tvTurns() {
  const game = $("tvgame"), lg = $("tvleague");
  if (!game || !lg) return;
  game.hidden = false; lg.classList.remove("away");
  if (lg.hidden || lg.getBoundingClientRect().bottom <= window.innerHeight) { tvLeagueTurn = false; return; }
  tvLeagueTurn = !tvLeagueTurn;
  if (tvLeagueTurn) game.hidden = true; else lg.classList.add("away");
}
if (view === "tv") setInterval(tvTurns, TV_TURN_MS);
// League night on the TV: the open league's table under the game's (fetched when a game ends)
function loadTvLeague() {
  const got = $("tvleague") && leagueChanged(tvLeagueSeen);
  if (got) got.then(d => {
    const show = !!d && !d.league.closed && d.games.length > 0;
    $("tvleague").hidden = !show;
    if (!show) return;
    $("tvlgname").textContent = t("tv.league", { name: d.league.name, n: d.games.length });
    const tb = $("tvlgrows"); tb.innerHTML = "";
    d.table.forEach(r => { const tr = el("tr"); [[r.rank, "num"], [r.player, ""], [r.victory_points, "num"]].forEach(([v, c]) => tr.appendChild(el("td", String(v), c))); tb.appendChild(tr); });
  }).catch(() => { });
}

// -- host ---------------------------------------------------------------------------------
function fillSelect(id, items, keep) { const s = $(id); if (!s) return; const v = s.value; s.innerHTML = ""; (keep || []).forEach(o => s.appendChild(o)); items.forEach(([val, label]) => { const o = el("option", label); o.value = val; s.appendChild(o); }); if ([...s.options].some(o => o.value === v)) s.value = v; }
let corrNow = {};  // host page: each correctable line's card as the referee has it now
let hostPick = null, revPick = null, corrPick = null, revList = [], dealerAuto = null, byTurn = null;
function renderHost() {
  if (!$("newgame")) return;
  formFromRules(S.rules);
  $("undo").disabled = false;  // Undo names the step this page shows: not before the page has seen the table
  $("deal").disabled = S.waiting_for !== "deal";  // mid-hand it asked "Deal a new hand?", then was refused
  const names = (S.players || []).map(p => p.name), pairs = names.map(n => [n, n]);
  if (!dealerAuto) dealerAuto = $("dealer").options[0];
  fillSelect("dealer", pairs, [dealerAuto]);
  // with jump-in, a card entered may be another player's than the one on turn
  if ($("cardby")) {
    if (!byTurn) byTurn = $("cardby").options[0];
    fillSelect("cardby", pairs, [byTurn]);
    $("cardbyrow").hidden = !(S.rules && S.rules.jump_in);
  }
  if (!S.dealer && names.length && !$("dealer").value) $("dealer").value = names[0];  // the first hand needs one
  // during the scores: the losers whose points are still due (not the winner, nor a winner's partner)
  fillSelect("ptplayer", (S.players || []).filter(p => S.waiting_for !== "scores" || (S.points_due || []).includes(p.name)).map(p => [p.name, p.name])); fillSelect("fixplayer", pairs.concat(leavers().map(n => [n, n]))); fillSelect("revplayer", pairs);
  if (S.waiting_for === "evidence" && S.turn) $("revplayer").value = S.turn;
  if (!$("players").value) $("players").value = names.join(", ");
  $("hostturn").textContent = phaseText();
  renderOrder(names);
  const w = S.waiting_for;
  $("verdictbox").classList.toggle("now", w === "evidence");
  // a verdict only while a challenge waits for one (before, a tap asked "Guilty?" and only then said "not now")
  $("guilty").disabled = $("innocent").disabled = w !== "evidence";
  // what the host must do now lies far down a phone's page: a link to it beside the turn line
  const now = w === "evidence" ? ["verdictbox", "host.go_verdict"] : w === "scores" ? ["pointsform", "host.go_points"] : null;
  $("nowlink").hidden = !now;
  if (now) { $("nowlink").href = "#" + now[0]; $("nowlink").textContent = t(now[1]); }
  // the challenged card's own words: wild draw four, wild draw two, wild draw colour
  const v = S.top === "wild_draw_two" ? "_d2" : S.top === "wild_draw_colour" ? "_until" : "";
  $("verdicttitle").textContent = t("host.verdict" + v); $("guilty").textContent = t("host.guilty" + v); $("innocent").textContent = t("host.innocent" + v); $("revealbox").classList.toggle("now", w === "evidence" || w === "scores");
  $("cardbox").classList.toggle("now", mode === "none" && (w === "flip" || w === "play"));
  $("takeback").hidden = w !== "take_back";
  if (!hostPick) hostPick = picker($("hostpick"), hostCardChanged);
  hostPick.sync();
  hostCardChanged(hostPick.get());
  if (!revPick) revPick = picker($("revpick"), (c) => { $("revadd").disabled = !c; $("revadd").textContent = c ? t("host.reveal_add", { card: c }) : t("err.pick_card"); });
  revPick.sync();
  if (!revPick.get()) { $("revadd").disabled = true; $("revadd").textContent = t("err.pick_card"); }
  showReveal();
  if (!corrPick) corrPick = picker($("corrpick"), (c) => { $("correct").disabled = !c; $("correct").textContent = c ? t("host.correct_btn", { card: c }) : t("err.pick_card"); });
  corrPick.sync();
  if (!corrPick.get()) { $("correct").disabled = true; $("correct").textContent = t("err.pick_card"); }
  // "Free X's seat" only for the seats a phone holds
  fetch("/api/host/seats").then(r => r.json()).then(d => {
    const seats = $("seats"); seats.innerHTML = "";
    names.filter(n => (d.taken || []).includes(n)).forEach(n => { const b = el("button", t("host.free", { player: n })); b.onclick = async () => { if (await ask(t("confirm.release", { player: n }))) { if ((await post("/api/host/release", { player: n }, "done.release", { player: n })).ok) renderHost(); } }; seats.appendChild(b); });
    // a seat handed to one phone by a one-time link (QR): the way to take a seat back from a
    // phone that took it and would tap it again as soon as it is freed
    const links = $("seatlinks"); if (!links) return; links.innerHTML = "";
    names.forEach(n => { const b = el("button", t("host.seat_link", { player: n })); b.onclick = () => seatLink(n); links.appendChild(b); });
  }).catch(() => { });
  fetch("/api/host/log").then(r => r.json()).then(d => {
    // each card as the referee has it now: a correction in effect named it anew
    const fixed = {}; (d.lines || []).filter(l => l.in_effect && l.line.type === "correct" && l.line.card).forEach(l => { fixed[l.line.event] = l.line.card; });
    corrNow = {};
    fillSelect("corrnum", (d.lines || []).filter(l => l.in_effect && ["flip", "play"].includes(l.line.type) && l.line.card).reverse().map(l => { corrNow[l.event] = fixed[l.event] || l.line.card; return [l.event, t("host.line", { n: l.event, card: corrNow[l.event] })]; }));
  }).catch(() => { });
  fetch("/api/host/refused").then(r => r.json()).then(d => {
    // what was refused (a card, a hand shown), then why: the host can enter it again once it fits
    const what = (w) => !w ? "" : w.card ? cardName(w.card) + ": " : w.cards !== undefined ? t("host.refused_hand", { n: w.cards }) + ": " : "";
    const ol = $("refused"); ol.innerHTML = ""; (d.refused || []).slice().reverse().forEach(n => ol.appendChild(el("li", what(n.what) + (said(n.say) || n.message), "k-rejected")));
  }).catch(() => { });
}
async function seatLink(player) {
  const r = await post("/api/host/seat_link", { player });
  if (!r.ok) return;
  const d = r.data;
  $("seatlinkqr").innerHTML = d.qr;
  $("seatlinktext").textContent = t("host.seat_link_help", { player: d.player, n: d.minutes });
  $("seatlinkurl").textContent = $("seatlinkurl").href = d.url;
  $("seatlink").hidden = false;
  $("seatlinkdone").onclick = () => { $("seatlink").hidden = true; $("seatlinkqr").innerHTML = ""; };
  renderHost();
}
// Seat order: a draft of the players' order, moved with the arrows or by dragging a name, saved
// as one `seats` event (the referee takes it only while a deal is awaited). A new order from the
// table (saved, undone, a new game) replaces the draft; a drag in progress is left alone.
let orderDraft = [], orderBase = null, orderDrag = null;
function renderOrder(names) {
  if (!$("seatorder") || orderDrag) return;
  const base = names.join("\n");
  if (base !== orderBase) { orderBase = base; orderDraft = names.slice(); }
  drawOrder();
}
function drawOrder() {
  const ol = $("seatorder"); ol.innerHTML = "";
  orderDraft.forEach((n, i) => {
    const li = el("li"), who = el("span", n, "who"); li.dataset.player = n;
    who.addEventListener("pointerdown", (e) => startOrderDrag(e, li));
    const up = el("button", "▲", "small"), down = el("button", "▼", "small");
    up.type = down.type = "button"; up.dataset.move = "up"; down.dataset.move = "down";
    up.setAttribute("aria-label", t("host.order_up", { player: n })); down.setAttribute("aria-label", t("host.order_down", { player: n }));
    up.disabled = i === 0; down.disabled = i === orderDraft.length - 1;
    up.onclick = () => moveSeat(i, i - 1); down.onclick = () => moveSeat(i, i + 1);
    // a player leaving between hands (their points stay in the hands they played)
    const out = el("button", "✕", "small"); out.type = "button"; out.dataset.move = "out";
    out.setAttribute("aria-label", t("host.order_leave", { player: n })); out.disabled = orderDraft.length <= 2;
    out.onclick = () => { orderDraft.splice(i, 1); drawOrder(); };
    li.append(who, up, down, out); ol.appendChild(li);
  });
  $("ordersave").disabled = $("ordercancel").disabled = orderDraft.join("\n") === orderBase;
  if ($("orderadd")) $("orderadd").disabled = orderDraft.length >= 10;
}
function moveSeat(from, to) { const [n] = orderDraft.splice(from, 1); orderDraft.splice(to, 0, n); drawOrder(); }
// Dragging moves the rows passed over, never the dragged row (taking it out of the page would end
// its pointer capture); the draft is read back at the end.
function startOrderDrag(e, li) {
  e.preventDefault(); e.target.setPointerCapture(e.pointerId); orderDrag = li; li.classList.add("drag");
  const move = (m) => {
    const rows = [...$("seatorder").children], over = rows.find(r => r !== li && m.clientY > r.getBoundingClientRect().top && m.clientY < r.getBoundingClientRect().bottom);
    if (over) $("seatorder").insertBefore(over, rows.indexOf(over) > rows.indexOf(li) ? li : li.nextSibling);
  };
  const end = () => {
    e.target.removeEventListener("pointermove", move); orderDrag = null; li.classList.remove("drag");
    orderDraft = [...$("seatorder").children].map(r => r.dataset.player); drawOrder();
  };
  e.target.addEventListener("pointermove", move);
  e.target.addEventListener("pointerup", end, { once: true }); e.target.addEventListener("pointercancel", end, { once: true });
}

function hostCardChanged(c) {
  const flip = S && S.waiting_for === "flip";
  $("flipcard").hidden = !flip; $("playcard").hidden = flip;
  $("flipcard").disabled = $("playcard").disabled = !c;
  $("flipcard").textContent = c ? t("host.flip", { card: c }) : t("err.pick_card");
  $("playcard").textContent = c ? t("host.play", { card: c }) : t("err.pick_card");
}
function showReveal() {
  $("revcards").textContent = revList.map(cardName).join(", ");
  $("revsend").disabled = !revList.length && !(S && S.waiting_for === "scores");
  $("revsend").textContent = $("revplayer").value ? t("host.reveal_btn", { player: $("revplayer").value }) : t("host.reveal_none");
}

// The turn timer (table option turn_seconds): counted down here from the server's `elapsed`;
// it only warns, the referee never plays for anyone.
function renderTimer() {
  const e = $("timer"); if (!e) return;
  const c = S && S.turn_clock;
  if (!c || !S.turn) { e.textContent = ""; e.className = "timer"; return; }
  const left = Math.ceil(c.seconds - c.elapsed - (performance.now() - clockAt) / 1000), mine = S.turn === me;
  e.textContent = left > 0 ? t(mine ? "timer.mine" : "timer.other", { player: S.turn, s: left }) : t(mine ? "timer.mine_up" : "timer.other_up", { player: S.turn });
  e.className = left > 5 ? "timer" : "timer alert";
}
setInterval(renderTimer, 500);

function render() {
  if (!S) return;
  renderCommon();
  renderTimer();
  ({ table: renderTable, seat: renderSeat, standings: renderStandings, host: renderHost, tv: renderTv }[view] || (() => { }))();
}

// The stream lost (the companion stopped or restarting, the phone off the Wi-Fi): the page says
// so until it is back, or it would show an old turn as if it were now. EventSource retries by
// itself and gets the whole state again; a blip under OFFLINE_SAY_MS is not worth a line.
const OFFLINE_SAY_MS = 1500;
// A Wi-Fi gone quiet closes nothing, so no error comes: the companion sends a beat (every 10 s),
// and a page that hears nothing (no state, no beat) for two and a half beats says it is cut off
// and opens the stream again (a phone waking from sleep does so at once).
const LOST_MS = 2500 * (Number(document.body.dataset.beat) || 10);
let stream = null, streamHeard = performance.now();
// this page's stream id: its new stream ends its old one on the server (which cannot yet know a
// connection over a lost Wi-Fi is dead)
const PAGE_ID = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
function offline(lost) { if ($("offline")) $("offline").hidden = !lost; }
function connect() {
  if (stream) stream.close();
  const es = stream = new EventSource("/events?page=" + PAGE_ID);
  let say = null;
  const back = () => { streamHeard = performance.now(); clearTimeout(say); say = null; offline(false); };
  es.onopen = back;
  es.addEventListener("beat", back);
  es.onerror = () => { if (say === null) say = setTimeout(() => { say = null; if (es.readyState !== EventSource.OPEN) offline(true); }, OFFLINE_SAY_MS); };
  es.onmessage = (m) => {
    back();
    const d = JSON.parse(m.data);
    if (d.seats) seatsMoved();
    if (!d.state) return;
    S = d.state; clockAt = performance.now(); document.body.dataset.events = S.events; render();
  };
}
setInterval(() => { if (stream && performance.now() - streamHeard > LOST_MS) { offline(true); streamHeard = performance.now(); connect(); } }, 2000);
// A seat taken or freed is no table event: the stream says only that seats moved. A phone that
// no longer holds its seat (the host freed it, another tab left it) shows the names at once,
// not at its next tap (which would be refused, an UNO! call lost with it).
function seatsMoved() {
  if (view !== "seat" || mode === "demo") return;
  if (!me) markTaken(); else recheckSeat(true);
}
// whether this phone still holds the seat it shows (the server knows); if not, the names come
// back, with the reason when `tell` (a new game keeps the same names' seats: nothing to say)
function recheckSeat(tell) {
  fetch("/api/seat").then(r => r.json()).then(d => {
    if ((d.player || "") === me) return;
    if (tell) toast(t("seat.lost", { player: me }), true);
    me = d.player || ""; render();
  }).catch(() => { });
}

// -- actions ------------------------------------------------------------------------------
const DONE = { draw: "done.draw", pass: "done.pass", color: "done.color", challenge: "done.challenge", accept: "done.accept", uno: "done.uno", catch: "done.catch", take_back: "done.take_back" };
document.addEventListener("click", async (ev) => {
  const b = ev.target.closest("button[data-act]"); if (!b) return;
  const act = b.dataset.act;
  const pending = S && S.pending_draw;
  const done = act === "draw" && pending ? "done.take" : DONE[act];
  await post("/api/act", { action: act, color: b.dataset.color }, done, { color: b.dataset.color, n: pending });
});
const on = (id, ev, f) => { if ($(id)) $(id).addEventListener(ev, f); };
// "I drew N": a draw until a colour or a Gryffindor card, counted by the player (the referee
// cannot see the pile); while a wild draw colour may still be challenged, it accepts it.
on("drewform", "submit", async (e) => {
  e.preventDefault(); const n = parseInt($("drewn").value, 10);
  if (isNaN(n) || n < 1 || n > 200) { toast(t("err.bad_count"), true); return; }
  const r = await post("/api/act", { action: S.waiting_for === "challenge" ? "accept" : "draw", count: n }, "done.drew", { n });
  if (r.ok) $("drewn").value = "";
});
on("jumpbtn", "click", () => { const c = S.top; if (c) post("/api/act", { action: "play", card: c }, "done.jump_in", { card: c }); });
on("jumpedbtn", "click", () => { const c = S.jump_claim; if (c) post("/api/act", { action: "jumped_in" }, "done.jumped_in", { card: c.card }); });
on("reflectbtn", "click", () => post("/api/act", { action: "play", card: "mario_reflect" }, "done.reflect"));
on("nosecond", "click", () => post("/api/act", { action: "pass" }, "done.no_second"));
on("leave", "click", async () => { if (!(await ask(t("confirm.leave", { player: me })))) return; await post("/api/seat/leave", {}, "done.leave"); me = ""; render(); });
on("playcard", "click", async () => {
  if (view === "seat") {
    const c = seatPick && seatPick.get(); if (!c) return;
    const flip = S.waiting_for === "flip";
    const r = await post("/api/act", { action: flip ? "flip" : "play", card: c }, flip ? (S.turned_by ? "done.turned" : "done.flip") : "done.play", { card: c });
    if (r.ok) seatPick.clear();
  } else {
    const c = hostPick.get(); if (!c || !(await ask(t("confirm.card", { card: c })))) return;
    const by = $("cardbyrow") && !$("cardbyrow").hidden ? $("cardby").value : "";
    const body = by ? { type: "play", card: c, player: by } : { type: "play", card: c };
    if ((await post("/api/host/card", body, "done.host_card", { card: c })).ok) { hostPick.clear(); if (by) $("cardby").value = ""; }
  }
});
on("flipcard", "click", async () => {
  const c = hostPick.get(); if (!c || !(await ask(t("confirm.card", { card: c })))) return;
  if ((await post("/api/host/card", { type: "flip", card: c }, "done.flip", { card: c })).ok) hostPick.clear();
});
on("takeback", "click", async () => { if (await ask(t("confirm.take_back"))) post("/api/host/card", { type: "take_back" }, "done.take_back"); });
on("mypoints", "submit", async (e) => {
  e.preventDefault(); const n = parseInt($("mypts").value, 10);
  if (isNaN(n) || n < 0) { toast(t("err.bad_points"), true); return; }
  post("/api/act", { action: "points", points: n }, "done.points", { n });
});
on("login", "submit", async (e) => { e.preventDefault(); if ((await post("/api/host/login", { pin: $("pin").value }, "done.login")).ok) location.reload(); });
on("logout", "click", async () => { if ((await post("/api/host/logout", {}, "done.logout")).ok) location.reload(); });
const OFF_AT_ZERO = ["hands", "hand_limit", "elimination", "turn_seconds", "discard_two", "mario_reflect", "dementor"];  // 0 = option off
// Presets fill the form (the host can still change any option before starting).
const PRESETS = {
  official: { deck: "classic", hand_size: 7, first_card: "classic", target: 500, hands: 0, scoring: "winner_takes", uno_penalty: 2, uno_catch: "auto", illegal_play_penalty: 2, dealer_rotation: "clockwise", stacking: "false", jump_in: false, seven_zero: false, draw_until_playable: false, deflect: "false", multiple_play: false, no_action_finish: false, no_wild_finish: false, hand_limit: 0, elimination: 0, teams: false, double_score: false, turn_seconds: 0, discard_two: 0, mario_reflect: 0, dementor: 0 },
  house: { stacking: "true", jump_in: true, seven_zero: true, draw_until_playable: true, uno_penalty: 2, target: 500 },
};
document.addEventListener("click", (ev) => {
  const b = ev.target.closest("button[data-preset]"); if (!b) return;
  const f = $("newgame"), p = Object.assign({}, PRESETS.official, PRESETS[b.dataset.preset]);
  Object.entries(p).forEach(([k, v]) => { const i = f.querySelector(`[name=${k}]`); if (!i) return; if (i.type === "checkbox") i.checked = v; else i.value = String(v); });
  f.querySelectorAll("button[data-preset]").forEach(x => x.classList.toggle("on", x === b));
  saveDraft();
});
on("newgame", "submit", async (e) => {
  e.preventDefault(); const f = e.target, rules = {};
  f.querySelectorAll("[name]").forEach(i => {
    if (i.type === "checkbox") rules[i.name] = i.checked;
    else if (i.type === "number") { const v = parseInt(i.value, 10); if (!isNaN(v) && !(OFF_AT_ZERO.includes(i.name) && v === 0)) rules[i.name] = v; }
    else rules[i.name] = i.value === "true" ? true : i.value === "false" ? false : i.value;
  });
  const players = $("players").value.split(",").map(s => s.trim()).filter(Boolean);
  if (players.length < 2) { toast(t("err.players_list"), true); return; }
  const playing = S && !["game", "game_over"].includes(S.waiting_for) && (S.players || []).length;  // a game to end
  // only finished games count; a new game joins the open league (the host is told, either way)
  const league = !openLeague ? "" : " " + t(playing ? "confirm.game_league" : "confirm.game_joins", { name: openLeague.name });
  if (await ask(t(playing ? "confirm.game" : "confirm.game_first", { players: players.join(", ") }) + league)) {
    if ((await post("/api/host/game", { players, rules }, "done.game")).ok) try { sessionStorage.removeItem(DRAFT_KEY); } catch (e) { }
  }
});
// A half-filled new-game form survives a reload or a phone that drops the page (this tab only):
// the names and options typed so far come back until the game is started.
const DRAFT_KEY = "uno_newgame_draft";
function saveDraft() {
  const f = $("newgame"); if (!f) return;
  const d = { players: $("players").value };
  f.querySelectorAll("[name]").forEach(i => { d[i.name] = i.type === "checkbox" ? i.checked : i.value; });
  try { sessionStorage.setItem(DRAFT_KEY, JSON.stringify(d)); } catch (e) { }
}
(function restoreDraft() {
  const f = $("newgame"); if (!f) return;
  let d = null; try { d = JSON.parse(sessionStorage.getItem(DRAFT_KEY) || "null"); } catch (e) { }
  if (!d || typeof d !== "object") return;
  if (typeof d.players === "string") $("players").value = d.players;
  f.querySelectorAll("[name]").forEach(i => { if (!(i.name in d)) return; if (i.type === "checkbox") i.checked = !!d[i.name]; else i.value = String(d[i.name]); });
})();
on("newgame", "input", saveDraft);
on("newgame", "change", saveDraft);
// With no draft, the form starts from the options of the game at the table (the configuration's,
// or the last game's), not the official defaults: "Start new game" as it stands plays on alike.
let formFromTable = !!(() => { try { return sessionStorage.getItem(DRAFT_KEY); } catch (e) { return null; } })();
function formFromRules(rules) {
  const f = $("newgame"); if (!f || formFromTable || !rules) return;
  formFromTable = true;
  f.querySelectorAll("[name]").forEach(i => {
    if (!(i.name in rules)) return;
    const v = rules[i.name];
    if (i.type === "checkbox") i.checked = !!v;
    else if (i.type === "number") i.value = String(v === null || v === false ? 0 : v);
    else if ([...i.options].some(o => o.value === String(v))) i.value = String(v);
  });
}
on("deal", "click", async () => {
  if (!(await ask(t("confirm.deal")))) return;
  // the dealer picked (or the first hand's first player, filled in) deals this hand only: the
  // next hands rotate unless the host picks again
  if ((await post("/api/host/deal", $("dealer").value ? { dealer: $("dealer").value } : {}, "done.deal")).ok) $("dealer").value = "";
});
// the dialog names the step it takes back (a verdict was undone by a host who meant the last card)
async function undoStep() {
  try {
    const d = await (await fetch("/api/host/log")).json();
    const last = (d.lines || []).filter(l => l.in_effect).pop();
    const kind = last && last.line && last.line.type;
    if (!kind || T["step." + kind] === undefined) return t("confirm.undo");
    const what = t("confirm.undo_what", { step: t("step." + kind, { card: last.line.card ? cardName(last.line.card) : "" }) });
    // the cards it made someone draw go back too: the table must put them back on the pile
    const back = (last.drawn || []).map(d => t("confirm.undo_drawn", { player: d.player, n: d.n }));
    return back.length ? what + " " + back.join(" ") : what;
  } catch (e) { return t("confirm.undo"); }
}
on("undo", "click", async () => { const at = S.events; if (await ask(await undoStep())) post("/api/host/undo", { at }, "done.undo"); });
// the dialog repeats the button's own words, which name this challenge's penalty (a wild draw
// four, a wild draw two, a draw until a colour)
on("guilty", "click", async () => { if (await ask(t("confirm.verdict", { choice: $("guilty").textContent }))) post("/api/host/verdict", { guilty: true }, "done.guilty"); });
on("innocent", "click", async () => { if (await ask(t("confirm.verdict", { choice: $("innocent").textContent }))) post("/api/host/verdict", { guilty: false }, "done.innocent"); });
on("pointsform", "submit", async (e) => {
  e.preventDefault(); const player = $("ptplayer").value, n = parseInt($("pts").value, 10);
  if (isNaN(n) || n < 0) { toast(t("err.bad_points"), true); return; }
  if (await ask(t("confirm.points", { player, n }))) { if ((await post("/api/host/points", { player, points: n }, "done.points_host", { player, n })).ok) $("pts").value = ""; }
});
on("fixform", "submit", async (e) => {
  e.preventDefault(); const hand = parseInt($("fixhand").value, 10), player = $("fixplayer").value, n = parseInt($("fixpts").value, 10);
  if (isNaN(hand) || isNaN(n)) { toast(t("err.bad_number"), true); return; }
  if (n < 0) { toast(t("err.bad_points"), true); return; }
  // what the referee would refuse is said before the question, not after a Yes
  const done = (S.history || []).find(e => e.hand === hand), low = S.rules && S.rules.scoring === "lowest_wins";
  if (done && !low && player !== done.winner) { toast(t("err.fix_loser", { winner: done.winner, hand, player }), true); return; }
  if (done && low && player === done.winner) { toast(t("err.fix_empty", { winner: done.winner, hand }), true); return; }
  if (done && !(player in (done.points || {}))) { toast(t("err.fix_not_played", { player, hand }), true); return; }
  if (await ask(t("confirm.fix", { hand, player, n }))) post("/api/host/score_fix", { hand, player, points: n }, "done.fix");
});
on("correct", "click", async () => {
  const c = corrPick.get(), ev = parseInt($("corrnum").value, 10); if (!c || isNaN(ev)) return;
  // refused before the question, not after a Yes (a later play the new card would make illegal)
  const pre = await fetch("/api/host/correct/check", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify({ event: ev, card: c }) }).then(r => r.json()).catch(() => ({}));
  if (pre.ok === false) { toast(said(pre.say) || pre.error, true); return; }
  if (await ask(t("confirm.correct_what", { n: ev, was: cardName(corrNow[ev] || ""), card: cardName(c) }))) { if ((await post("/api/host/correct", { event: ev, card: c }, "done.correct", { card: c })).ok) corrPick.clear(); }
});
on("revadd", "click", () => { const c = revPick.get(); if (c) { revList.push(c); revPick.clear(); showReveal(); } });
on("revclear", "click", () => { revList = []; showReveal(); });
on("revplayer", "change", showReveal);
on("revsend", "click", async () => {
  const player = $("revplayer").value;
  if (!(await ask(t("confirm.reveal", { player, cards: revList.length ? revList : "0" })))) return;
  if ((await post("/api/host/reveal", { player, cards: revList }, "done.reveal", { player })).ok) { revList = []; showReveal(); }
});
// A revealed hand typed by the host: the names are checked by the companion, which answers
// with the points they are worth.
// The cards of a hand typed in the page's words or the referee's: "giallo 5", "5 giallo",
// "Jolly pesca quattro", "yellow_5". Commas part names for sure; within a part the longest run
// of words that names a card is taken ("giallo 5 Jolly pesca quattro": two cards). A word it
// does not know goes to the companion as typed, whose refusal names it.
function typedCards(text) {
  const key = (w) => String(w).toLowerCase().trim().replace(/[\s_]+/g, "_");
  const d = deckCards(), names = {};  // every way to write each card of the deck in play, once
  const add = (id, words) => words.forEach(w => { names[key(w)] = id; });
  d.colours.forEach(c => d.syms.forEach(s => { const id = c + "_" + s, cw = T["color." + c], sw = T["sym." + s] || s; add(id, [id, cardName(id), cw + " " + sw, sw + " " + cw]); }));
  d.wilds.forEach(w => add(w, [w, cardName(w)]));
  const cards = [];
  text.split(",").forEach(part => {
    const words = part.trim().split(/\s+/).filter(Boolean);
    for (let i = 0; i < words.length;) {
      let n = Math.min(4, words.length - i);
      while (n > 1 && !names[key(words.slice(i, i + n).join(" "))]) n--;
      cards.push(names[key(words.slice(i, i + n).join(" "))] || words[i]); i += n;
    }
  });
  return cards;
}
on("revtyped", "submit", async (e) => {
  e.preventDefault(); const player = $("revplayer").value, typed = $("revtext").value.trim();
  if (!typed) { toast(t("err.no_cards_typed"), true); return; }
  const cards = typedCards(typed);
  if (!(await ask(t("confirm.reveal", { player, cards })))) return;
  const r = await post("/api/host/reveal", { player, cards }, "done.reveal", { player });
  $("revresult").textContent = r.ok && r.data.points !== undefined ? t("host.reveal_points", { player, n: r.data.points }) : "";
  if (r.ok) $("revtext").value = "";
});

// League night: the open league (its victory points table), open a new one, close it.
let openLeague = null;
function vpTable(box, vp) {
  box.innerHTML = ""; box.hidden = !vp;
  if (!vp) return;
  const r1 = el("tr"), r2 = el("tr");
  r1.appendChild(el("th", t("st.place"))); r2.appendChild(el("th", t("st.vp")));
  vp.forEach((v, i) => { r1.appendChild(el("th", t("host.place", { n: i + 1 }))); r2.appendChild(el("td", String(v))); });
  box.append(r1, r2);
}
function loadLeagues() {
  if (!$("leaguebox")) return;
  fetch("/api/leagues").then(r => r.json()).then(d => {
    openLeague = (d.leagues || []).filter(l => !l.closed).pop() || null;
    $("leaguenow").textContent = openLeague ? t("host.league_now", { name: openLeague.name }) : t("host.league_none");
    vpTable($("leaguevp"), openLeague && openLeague.victory_points);
    $("leagueclose").hidden = !openLeague;
  }).catch(() => { });
}
loadLeagues();
on("leaguevpset", "change", () => { $("leaguecustombox").hidden = $("leaguevpset").value !== "custom"; });
on("leagueform", "submit", async (e) => {
  e.preventDefault(); const name = $("leaguename").value.trim(), set = $("leaguevpset").value;
  if (!name) { toast(t("err.league_name"), true); return; }
  let vp = set;
  if (set === "custom") {
    const typed = $("leaguecustom").value.trim();  // left empty: no list (not a league where nobody scores)
    vp = typed ? typed.split(/[\s,]+/).filter(Boolean).map(Number) : [];  // "12, 6, 2," gains no 0
    if (!vp.length || vp.length > 10 || vp.some((v, i) => !Number.isInteger(v) || v < 0 || v > 1000 || (i && v > vp[i - 1]))) { toast(t("err.bad_vp"), true); return; }
  }
  // a table has one open league: opening another closes it, and the host is told which
  const q = t("confirm.league_open", { name }) + (openLeague ? " " + t("confirm.league_closes", { name: openLeague.name }) : "");
  if (!(await ask(q))) return;
  if ((await post("/api/host/league", { name, victory_points: vp }, "done.league_open", { name })).ok) { $("leaguename").value = ""; loadLeagues(); }
});
on("leagueclose", "click", async () => {
  if (!openLeague || !(await ask(t("confirm.league_close", { name: openLeague.name })))) return;
  if ((await post(`/api/host/league/${openLeague.id}/close`, {}, "done.league_close")).ok) loadLeagues();
});

function showSwatches(sw) {
  const box = $("swatches"); if (!box) return; box.textContent = "";
  if (!sw) { box.textContent = box.dataset.none; return; }
  for (const [name, hex] of Object.entries(sw)) { const s = el("span", T["color." + name] || name, "swatch"); s.style.background = hex; box.appendChild(s); }
}
if ($("swatches")) fetch("/api/host/colours").then(r => r.json()).then(c => showSwatches(c.swatches)).catch(() => { });
on("calibrate", "click", async () => { const r = await post("/api/host/colours", {}, "done.colours"); if (r.ok) showSwatches(r.data.swatches); });
on("ordercancel", "click", () => { orderDraft = orderBase.split("\n"); drawOrder(); });
// a player joining between hands, with no points: at the end of the draft, moved like the others
on("orderjoin", "submit", (e) => {
  e.preventDefault(); const name = $("ordername").value.trim(); if (!name) return;
  if (orderDraft.some(n => n.toLowerCase() === name.toLowerCase())) { toast(t("err.players_list"), true); return; }
  orderDraft.push(name); $("ordername").value = ""; drawOrder();
});
on("ordersave", "click", async () => {
  const players = orderDraft.slice(), before = (orderBase || "").split("\n");
  const joined = players.filter(n => !before.includes(n)), left = before.filter(n => !players.includes(n));
  const low = S.rules && S.rules.scoring === "lowest_wins";  // 0 points is then the lead: said
  const more = (joined.length ? " " + t(low ? "confirm.order_join_low" : "confirm.order_join", { players: joined.join(", ") }) : "")
    + (left.length ? " " + t("confirm.order_leave", { players: left.join(", ") }) : "");
  if (await ask(t("confirm.order", { players: players.join(", ") }) + more)) post("/api/host/seats", { players }, "done.order");
});

// Camera zones: the bare camera picture with the discard pile and the reveal area as boxes whose
// corners are dragged (pointer events: mouse, pen and touch alike). Save sends them to the zones
// API, which checks them again; Cancel puts the saved ones back. The draw pile is kept as saved.
const ZONES = ["discard", "reveal"], CORNERS = [[0, 1], [2, 1], [2, 3], [0, 3]];  // box indices of x, y
let zSaved = null, zBox = {}, zDrag = null;
const SVGNS = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs) { const e = document.createElementNS(SVGNS, tag); Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v)); return e; }
function zoneSize() { const i = $("snap"); return [i.naturalWidth, i.naturalHeight]; }
function resetZones() {
  const [W, H] = zoneSize(); if (!zSaved || !W) return;
  const fx = W / zSaved.frame[0], fy = H / zSaved.frame[1];
  ZONES.forEach((n, k) => {
    const p = zSaved[n] || [];
    // an unset zone starts as a box the host can drag into place
    zBox[n] = p.length ? [Math.min(...p.map(q => q[0])) * fx, Math.min(...p.map(q => q[1])) * fy, Math.max(...p.map(q => q[0])) * fx, Math.max(...p.map(q => q[1])) * fy]
      : [W * 0.2, H * (k ? 0.7 : 0.2), W * 0.8, H * (k ? 0.95 : 0.6)];
  });
  drawZones(); zoneButtons(false);
}
function zoneButtons(changed) { $("zonessave").disabled = $("zonescancel").disabled = !changed; }
function drawZones() {
  const svg = $("zonesvg"), [W, H] = zoneSize(), ed = $("zonesed");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.innerHTML = "";
  // handles of at least 14 CSS pixels at any picture size, for fingers
  const r = 14 * W / Math.max(1, svg.getBoundingClientRect().width || W);
  ZONES.forEach(n => {
    const g = svgEl("g", { class: "zone z-" + n, "data-zone": n });
    g.appendChild(svgEl("rect", { class: "box" }));
    const label = svgEl("text", { class: "zlabel", "font-size": (r * 1.2).toFixed(1) }); label.textContent = ed.dataset[n]; g.appendChild(label);
    CORNERS.forEach((c, k) => {
      const h = svgEl("circle", { class: "corner", r: r.toFixed(1), "data-corner": k, tabindex: "0", role: "slider" });
      h.setAttribute("aria-label", t("host.zone_corner", { zone: n }));
      h.addEventListener("pointerdown", (e) => { e.preventDefault(); h.setPointerCapture(e.pointerId); zDrag = { n, c }; });
      h.addEventListener("pointermove", dragCorner);
      h.addEventListener("pointerup", endCorner); h.addEventListener("pointercancel", endCorner);
      g.appendChild(h);
    });
    svg.appendChild(g);
  });
  placeZones();
}
function placeZones() {
  document.querySelectorAll("#zonesvg .zone").forEach(g => {
    const b = zBox[g.dataset.zone], x = Math.min(b[0], b[2]), y = Math.min(b[1], b[3]);
    const box = g.querySelector(".box"), label = g.querySelector(".zlabel");
    box.setAttribute("x", x.toFixed(1)); box.setAttribute("y", y.toFixed(1));
    box.setAttribute("width", Math.abs(b[2] - b[0]).toFixed(1)); box.setAttribute("height", Math.abs(b[3] - b[1]).toFixed(1));
    // the name beside the top-left corner's handle, above the box when there is room
    const r = +g.querySelector(".corner").getAttribute("r"), above = y - r * 0.4 > r * 1.2;
    label.setAttribute("x", (x + r * 1.4).toFixed(1)); label.setAttribute("y", (above ? y - r * 0.4 : y + r * 1.6).toFixed(1));
    g.querySelectorAll(".corner").forEach(h => { const c = CORNERS[h.dataset.corner]; h.setAttribute("cx", b[c[0]].toFixed(1)); h.setAttribute("cy", b[c[1]].toFixed(1)); });
  });
}
function dragCorner(e) {
  if (!zDrag) return;
  const rect = $("zonesvg").getBoundingClientRect(), [W, H] = zoneSize(), b = zBox[zDrag.n];
  // a corner stays inside the picture
  b[zDrag.c[0]] = Math.max(0, Math.min(W, (e.clientX - rect.left) * W / rect.width));
  b[zDrag.c[1]] = Math.max(0, Math.min(H, (e.clientY - rect.top) * H / rect.height));
  placeZones(); zoneButtons(true);
}
function endCorner() {
  if (!zDrag) return;
  const b = zBox[zDrag.n]; zBox[zDrag.n] = [Math.min(b[0], b[2]), Math.min(b[1], b[3]), Math.max(b[0], b[2]), Math.max(b[1], b[3])];
  zDrag = null; placeZones();
}
// The same checks as the zones API, so a bad box is named before anything is sent.
function zoneProblem() {
  for (const n of ZONES) { const b = zBox[n]; if (b[2] - b[0] < 4 || b[3] - b[1] < 4) return ["err.zone_small", { zone: n }]; }
  const a = zBox.discard, c = zBox.reveal;
  if (Math.min(a[2], c[2]) > Math.max(a[0], c[0]) && Math.min(a[3], c[3]) > Math.max(a[1], c[1])) return ["err.zones_overlap", {}];
  return null;
}
const rectOf = (b) => [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]].map(p => p.map(v => Math.round(v * 10) / 10));
function showSnap(ok) {
  $("zonesed").hidden = !ok; $("nosnap").hidden = ok;
  if (ok) fetch("/api/host/zones").then(r => r.json()).then(z => { zSaved = z; resetZones(); }).catch(() => { });
  // no picture: say why when the camera is lost (cannot be opened, stopped sending)
  else fetch("/api/host/camera").then(r => r.json()).then(c => { $("nosnaptext").textContent = c.state === "lost" ? lostWords(c) : t("err.no_snapshot"); }).catch(() => { });
}
// a camera lost: its cable; a video (`run --video`) lost: its file, not a cable
const lostWords = (c) => t(/^video file /.test(c.message || "") ? "err.video_lost" : "err.camera_lost", { reason: c.message });
// The camera's troubles, said at the top of the host page, where the host looks during play:
// lost, the pile hidden long (nothing laid is seen), a grey picture (cards not named).
function cameraLine() {
  fetch("/api/host/camera").then(r => r.json()).then(c => {
    const w = c.warnings || {}, lines = [];
    if (c.state === "lost") lines.push(lostWords(c));
    if (w.pile_hidden) lines.push(t("camera.pile_hidden", w.pile_hidden));
    if (w.colourless) lines.push(t("camera.colourless"));
    if (w.beside) lines.push(t("camera.beside", w.beside));
    if (w.disputed) lines.push(t(w.disputed.guilty ? "camera.disputed_guilty" : "camera.disputed_innocent", w.disputed));
    if (w.short_reveal) lines.push(t("camera.short_reveal", w.short_reveal));
    $("camline").textContent = lines.join(" · "); $("camline").hidden = !lines.length;
  }).catch(() => { });
}
if ($("camline")) { cameraLine(); setInterval(cameraLine, 5000); }
// A card beside the discard pile, on the table and TV views: the player who missed the pile
// looks there, not at the host's phone. So does a lost camera: cards laid now are not counted.
function besideLine() {
  fetch("/api/camera/seen").then(r => r.json()).then(d => {
    const e = $("besideline"), line = d.lost ? t("camera.lost_players") : d.beside ? t("camera.beside", { card: d.beside }) : "";
    if (e.textContent !== line) e.textContent = line;
    e.hidden = !line;
  }).catch(() => { });
}
if ($("besideline")) { besideLine(); setInterval(besideLine, 3000); }
if ($("snap")) {
  $("snap").onload = () => showSnap(true);
  $("snap").onerror = () => showSnap(false);  // no frame yet: no broken picture, a line and a retry
  if ($("snap").complete) showSnap($("snap").naturalWidth > 0);
}
on("snapreload", "click", () => { $("snap").src = "/host/snapshot.jpg?raw=1&t=" + Date.now(); });
on("zonescancel", "click", resetZones);
on("zonessave", "click", async () => {
  const bad = zoneProblem(); if (bad) { toast(t(bad[0], bad[1]), true); return; }
  const [W, H] = zoneSize(), body = { frame: [W, H], discard: rectOf(zBox.discard), reveal: rectOf(zBox.reveal) };
  if (zSaved.draw && zSaved.draw.length) body.draw = zSaved.draw.map(p => [Math.round(p[0] * W / zSaved.frame[0] * 10) / 10, Math.round(p[1] * H / zSaved.frame[1] * 10) / 10]);
  if (!(await ask(t("confirm.zones")))) return;
  const r = await post("/api/host/zones", body, "done.zones");
  if (r.ok) { zSaved = r.data.zones; resetZones(); }
});
on("tab-game", "click", () => showTab("game"));
on("tab-league", "click", () => showTab("league"));
// the tab pattern's keys: arrows move between the two tabs (and show them)
["tab-game", "tab-league"].forEach(id => on(id, "keydown", (e) => {
  if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) return;
  e.preventDefault(); const to = id === "tab-game" ? "league" : "game";
  const which = e.key === "Home" ? "game" : e.key === "End" ? "league" : to;
  showTab(which); $("tab-" + which).focus();
}));
if ($("tab-league") && location.hash === "#league") showTab("league");
connect();
