// trickkit web table: one seat's page. The seat token is read from the URL fragment (#token),
// which the browser never sends to the server on its own; every request and message carries it.
"use strict";
const $ = (id) => document.getElementById(id);
const [, , tableId, seatText] = location.pathname.split("/");
const seat = Number(seatText);
const token = decodeURIComponent(location.hash.slice(1));
let view = null;
let socket = null;
let retries = 0;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function seatName(s) {
  const info = view.table.seats[s];
  return (s === seat ? "you" : info ? info.name : `seat ${s}`);
}

function card(text, extra) {
  const node = el("span", { class: "card", "data-card": text, text });
  const title = view.titles[text];
  if (title) node.append(el("small", { text: title }));
  if (extra) node.append(el("span", { class: "who", text: extra }));
  return node;
}

function hiddenCards(count) {
  const node = el("span", { class: "card hidden", text: `${count}` });
  node.title = `${count} hidden card${count === 1 ? "" : "s"}`;
  return node;
}

function zoneCards(z, playable) {
  const box = el("span", { class: "cards" });
  if (z.cards) {
    for (const c of z.cards) {
      const node = card(c);
      const moves = playable ? view.actions.filter((a) => a.card === c) : [];
      if (moves.length) {
        node.classList.add("playable");
        node.tabIndex = 0;
        node.addEventListener("click", () => (moves.length === 1 ? act(moves[0].text) : showActions(c)));
      }
      box.append(node);
    }
  } else if ("top" in z) {
    if (z.top !== null) box.append(card(z.top, `top of ${z.count}`));
  } else if (z.count) {
    box.append(hiddenCards(z.count));
  }
  if (!box.childElementCount) box.append(el("span", { class: "label", text: "—" }));
  return box;
}

function zoneLine(label, z, playable) {
  return el("div", { class: "zone" }, el("span", { class: "label", text: label }), zoneCards(z, playable));
}

function render() {
  const obs = view.observation;
  document.body.dataset.move = String(view.move);
  document.body.dataset.turn = obs.terminal ? "over" : obs.current_player === seat ? "mine" : "other";
  document.title = `${view.table.title}: ${seatName(seat)}`;
  $("title").textContent = view.table.title;
  $("who").textContent = `seat ${seat} (${view.table.seats[seat].name}) · round ${obs.round} · dealer ${seatName(obs.dealer)} · ${obs.phase}`;
  $("rules").href = view.table.rules;
  $("status").textContent = obs.terminal ? "game over" : obs.current_player === seat ? "your turn" : `waiting for ${seatName(obs.current_player)}`;
  const seatZones = new Set(obs.seat_zones);
  $("mine").replaceChildren(...obs.seat_zones.map((name) => zoneLine(name, obs.zones[name][seat], true)));
  $("trick").replaceChildren(...obs.trick.map((p) => card(p.card, seatName(p.seat))));
  const tableZones = [];
  for (const [name, z] of Object.entries(obs.zones)) {
    if (seatZones.has(name)) continue;
    if (Array.isArray(z)) z.forEach((member, i) => tableZones.push(zoneLine(`${name} ${i + 1}`, member, true)));
    else tableZones.push(zoneLine(name, z, true));
  }
  $("table-zones").replaceChildren(...tableZones);
  const others = [];
  for (let s = 0; s < view.scores.length; s++) {
    if (s === seat) continue;
    const lines = obs.seat_zones.map((name) => zoneLine(name, obs.zones[name][s], false));
    others.push(el("div", { class: "zone", "data-seat": String(s) }, el("strong", { text: `${seatName(s)} (seat ${s})` }), ...lines));
  }
  $("others").replaceChildren(...others);
  renderActions();
  renderScores();
  $("transcript").textContent = view.transcript;
  $("transcript").scrollTop = $("transcript").scrollHeight;
}

function renderActions(onlyCard) {
  const box = $("actions");
  if (!view.actions.length) {
    box.replaceChildren(el("span", { class: "label", text: view.terminal ? "the game is over" : "not your turn" }));
    return;
  }
  const shown = onlyCard ? view.actions.filter((a) => a.card === onlyCard) : view.actions;
  box.replaceChildren(...shown.map((a) => {
    const b = el("button", { class: "act", type: "button", "data-action": a.text, text: a.text });
    b.addEventListener("click", () => act(a.text));
    return b;
  }));
  if (onlyCard) {
    const all = el("button", { type: "button", text: "all moves" });
    all.addEventListener("click", () => renderActions());
    box.append(all);
  }
}

function showActions(c) { renderActions(c); }

function renderScores() {
  const obs = view.observation;
  const internal = new Set(view.internal);
  const vars = obs.seat_variables.filter((v) => !internal.has(v));
  const head = el("tr", {}, el("th", { text: "seat" }), el("th", { text: view.table.unit }), ...vars.map((v) => el("th", { text: v })));
  const rows = view.scores.map((score, s) => {
    const row = el("tr", {}, el("td", { text: `${s} ${seatName(s)}` }), el("td", { text: String(score) }),
      ...vars.map((v) => el("td", { text: show(obs.variables[v][s]) })));
    if (s === seat) row.classList.add("me");
    if (view.winners && view.winners.includes(s)) row.classList.add("winner");
    return row;
  });
  $("scores").replaceChildren(head, ...rows);
  const tableVars = Object.keys(obs.variables).filter((v) => !internal.has(v) && !obs.seat_variables.includes(v));
  const notes = tableVars.map((v) => el("div", { class: "label", text: `${v}: ${show(obs.variables[v])}` }));
  if (view.terminal) {
    const winners = view.winners.map(seatName).join(", ");
    const download = el("button", { type: "button", id: "download", text: "download the record (trickkit replay)" });
    download.addEventListener("click", downloadRecord);
    notes.push(el("p", { class: "turn", id: "winners", text: `won by ${winners} (${view.best} ${view.table.unit} wins)` }), download);
  }
  $("over").replaceChildren(...notes);
}

function show(v) {
  if (v === null || v === undefined) return "?";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) return "[" + v.map(show).join(", ") + "]";
  return String(v);
}

async function downloadRecord() {
  const response = await fetch(`/api/tables/${tableId}/record`, { headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) { $("error").textContent = (await response.json()).error; return; }
  const url = URL.createObjectURL(await response.blob());
  const a = el("a", { href: url, download: `${view.table.game}-${tableId}.jsonl` });
  document.body.append(a); a.click(); a.remove();
}

function received(message) {
  if (message.type === "view") {
    view = message.view;
    $("error").textContent = "";
    render();
  } else if (message.type === "error") {
    $("error").textContent = message.error;
  }
}

async function act(text) {
  $("error").textContent = "";
  const message = { type: "act", token, move: view.move, action: text };
  if (socket && socket.readyState === WebSocket.OPEN) { socket.send(JSON.stringify(message)); return; }
  const response = await fetch(`/api/tables/${tableId}/seats/${seat}/act`, {
    method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ move: view.move, action: text }),
  });
  const data = await response.json();
  if (response.ok) received({ type: "view", view: data }); else $("error").textContent = data.error;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${tableId}/seats/${seat}`);
  socket.addEventListener("open", () => { retries = 0; socket.send(JSON.stringify({ type: "hello", token })); });
  socket.addEventListener("message", (e) => received(JSON.parse(e.data)));
  socket.addEventListener("close", (e) => {
    if (e.code === 4403 || e.code === 4404 || retries >= 20) return;
    retries += 1;
    setTimeout(connect, Math.min(500 * retries, 5000));
  });
}

async function start() {
  const response = await fetch(`/api/tables/${tableId}/seats/${seat}`, { headers: { Authorization: `Bearer ${token}` } });
  const data = await response.json();
  if (!response.ok) { $("error").textContent = data.error; return; }
  received({ type: "view", view: data });
  connect();
}
start();
