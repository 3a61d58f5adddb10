// trickkit web table: the lobby (choose a game and its parameters, give each seat to a human or a bot).
"use strict";
const $ = (id) => document.getElementById(id);
let games = [];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function current() { return games.find((g) => g.key === $("game").value); }

function paramInput(p) {
  const id = "param-" + p.name;
  let input;
  if (p.type === "bool") {
    input = el("input", { type: "checkbox", id });
    input.checked = !!p.default;
  } else if (p.type === "choice") {
    input = el("select", { id });
    for (const c of p.choices) input.append(el("option", { value: String(c), text: String(c) }));
    input.value = String(p.default);
  } else {
    input = el("input", { id, type: p.type === "int" ? "number" : "text" });
    if (p.min !== undefined) input.min = p.min;
    if (p.max !== undefined) input.max = p.max;
    input.value = String(p.default);
  }
  input.dataset.param = p.name;
  input.dataset.type = p.type;
  return el("label", { title: p.description || "" }, p.name + " ", input, el("small", { text: " " + (p.description || "") }));
}

function seatRow(i) {
  const kind = el("select", { id: `seat-${i}-kind` });
  for (const [v, t] of [["human", "human (a link)"], ["random", "bot: random"], ["first", "bot: first legal"], ["ismcts", "bot: ISMCTS"]]) {
    kind.append(el("option", { value: v, text: t }));
  }
  kind.value = i === 0 ? "human" : "random";
  const name = el("input", { id: `seat-${i}-name`, placeholder: `seat ${i}`, maxlength: "40", size: "10" });
  const iters = el("input", { id: `seat-${i}-iterations`, type: "number", min: "1", max: "5000", value: "200", size: "6" });
  const opts = el("span", {}, " iterations ", iters);
  opts.hidden = true;
  kind.addEventListener("change", () => { opts.hidden = kind.value !== "ismcts"; });
  return el("div", { class: "seat-row" }, `seat ${i}: `, kind, name, opts);
}

function redraw() {
  const g = current();
  if (!g) return;
  $("rules-link").href = g.rules;
  const players = $("players");
  players.min = g.players.min; players.max = g.players.max;
  if (!players.value || +players.value < g.players.min || +players.value > g.players.max) players.value = g.players.default;
  $("params").replaceChildren(...g.parameters.map(paramInput));
  drawSeats();
}

function drawSeats() {
  const n = Math.max(1, Math.min(12, +$("players").value || 1));
  $("seats").replaceChildren(...Array.from({ length: n }, (_, i) => seatRow(i)));
}

function request() {
  const params = {};
  for (const input of document.querySelectorAll("[data-param]")) {
    const t = input.dataset.type;
    params[input.dataset.param] = t === "bool" ? input.checked : t === "int" ? Number(input.value) : input.value;
    const p = current().parameters.find((q) => q.name === input.dataset.param);
    if (t === "choice" && p && typeof p.default === "number") params[input.dataset.param] = Number(input.value);
  }
  const seats = [];
  const n = +$("players").value;
  for (let i = 0; i < n; i++) {
    const kind = $(`seat-${i}-kind`).value;
    const name = $(`seat-${i}-name`).value;
    if (kind === "human") seats.push({ kind: "human", name });
    else if (kind === "ismcts") seats.push({ kind: "bot", name, agent: `ismcts:iterations=${+$(`seat-${i}-iterations`).value || 200}` });
    else seats.push({ kind: "bot", name, agent: kind });
  }
  return { game: $("game").value, players: n, params, seats };
}

async function openTable(event) {
  event.preventDefault();
  $("error").textContent = "";
  const response = await fetch("/api/tables", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request()),
  });
  const data = await response.json();
  if (!response.ok) { $("error").textContent = data.error; return; }
  const items = data.seats.map((s) => {
    if (!s.link) return el("li", { text: `seat ${s.seat}: ${s.name} (bot)` });
    const url = new URL(s.link, location.href).href;
    return el("li", {}, `seat ${s.seat}: ${s.name} — `, el("a", { href: url, target: "_blank", rel: "noopener", class: "seat-link", text: url }));
  });
  $("links").replaceChildren(...items);
  listTables();
}

async function listTables() {
  const tables = await (await fetch("/api/tables")).json();
  $("tables").replaceChildren(...tables.map((t) => el("li", {
    text: `${t.title} (${t.id}): ${t.seats.map((s) => s.name).join(", ")} · move ${t.move}${t.finished ? " · over" : ""}`,
  })));
}

async function start() {
  games = await (await fetch("/api/games")).json();
  for (const g of games) $("game").append(el("option", { value: g.key, text: g.title + (g.shipped ? "" : " (file)") }));
  $("game").addEventListener("change", () => { $("players").value = ""; redraw(); });
  $("players").addEventListener("change", drawSeats);
  $("new-table").addEventListener("submit", openTable);
  redraw();
  listTables();
}
start();
