// The playground's page: asks /api/graph for the graph of the typed expression, draws it, and
// (with stepper.js) walks its backward pass step by step. No eval, no inline script, no other
// server.
"use strict";

const state = {
  data: null, // the last good answer of /api/graph
  values: Object.create(null), // the value of every name typed so far (any name, even __proto__)
  step: 0, // how many steps of the backward walk are shown (stepper.js)
  timer: null, // Play's next step
  pending: null, // the debounce timer of an update
  asked: 0, // requests sent: only the answer to the latest is shown
  spans: Object.create(null), // each slider's half-range, from the value typed (not answers)
  restore: 0, // the step a link asks for, shown once its graph has arrived
  allVariables: false, // past SHOWN variables, whether the list shows them all
  drawn: Object.create(null), // a random start per name, drawn once (randomStarts)
  unchanged: new Set(), // the names whose value is still their random start
};

const SHOWN = 8; // variables listed before "N more variables"

const $ = (id) => document.getElementById(id);

// The walk moved a step (stepper.js): the address keeps it, for a reload or a link.
function walkMoved() {
  saveToAddress();
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
  $("expr").classList.add("invalid");
  $("graph").classList.add("stale");
}

function clearError() {
  $("error").hidden = true;
  $("error").textContent = "";
  $("expr").classList.remove("invalid");
  $("graph").classList.remove("stale");
}

async function update() {
  // on a phone's narrow screen the graph is drawn top to bottom (zoom.js's narrowScreen)
  const body = JSON.stringify({ expr: $("expr").value, values: state.values, down: narrowScreen() });
  const ticket = ++state.asked;
  let reply;
  let data;
  try {
    reply = await fetch("/api/graph", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    data = await reply.json();
  } catch (error) {
    if (ticket === state.asked) showError(`the playground's server did not answer (${error.message})`);
    return;
  }
  if (ticket !== state.asked) return; // a newer request is under way: this answer is stale
  state.restore = reply.ok ? state.restore : 0; // a link's step is for its own graph only
  if (!reply.ok) {
    showError(data.error || `the server answered ${reply.status}`);
    return;
  }
  clearError();
  if (randomStarts(data.names)) return; // asked again, with a value for every name
  const sameGraph = state.data !== null && state.data.expr === data.expr;
  if (descent.expr !== null && descent.expr !== data.expr) clearDescent(); // another story
  const step = state.step;
  state.data = data;
  Object.assign(state.values, data.values);
  render();
  if (state.restore || (sameGraph && step)) showStep(state.restore || step); // values moved: the walk stays
  state.restore = 0;
  const shown = $("node-info").dataset.node;
  if (!$("node-info").hidden && data.nodes.some((node) => node.id === shown)) showNode(shown);
  saveToAddress();
}

// A name the page has no value for (typed, not a preset's) starts at a small random value,
// uniform in [-1, 1] and rounded to two decimals, drawn once per name: the server's default,
// 1 for every name, saturates tanh(w1*x1 + w2*x2 + ...) and makes every gradient 0. True
// if some name was new (the page then asks again, with the values drawn).
function randomStarts(names) {
  const fresh = names.filter((name) => !(name in state.values));
  for (const name of fresh) {
    state.drawn[name] ??= Math.round((Math.random() * 2 - 1) * 100) / 100 + 0; // (+ 0: never -0)
    state.values[name] = state.drawn[name];
    state.unchanged.add(name);
  }
  if (fresh.length) later(0);
  return fresh.length > 0;
}

// The page says which values it drew, as long as they are in the expression and untouched.
function showRandomStarts(names) {
  const drawn = names.filter((name) => state.unchanged.has(name));
  const note = $("random-note");
  note.hidden = drawn.length === 0;
  const list = drawn.length > 4 ? `${drawn.slice(0, 4).join(", ")} and ${drawn.length - 4} more` : drawn.join(", ");
  note.textContent = `${list} ${drawn.length === 1 ? "starts" : "start"} at random: uniform in [−1, 1], ` +
    "rounded to two decimals, drawn once per name (not 1, which saturates tanh). Type a value to change one.";
}

// A value the page cannot use is refused aloud, as the server refuses one (its message names
// the field), never dropped in silence; the graph stays as it was.
function refuseValue(field, message) {
  field.classList.add("invalid");
  field.setAttribute("aria-invalid", "true");
  $("error").textContent = message;
  $("error").hidden = false;
}

function later(delay = 150) {
  state.asked += 1; // an answer already on its way is now stale: a newer edit is waiting
  clearTimeout(state.pending);
  state.pending = setTimeout(update, delay);
}

function render() {
  const data = state.data;
  renderVariables(data.names, data.values);
  showRandomStarts(data.names);
  $("value").textContent = valueLine(data);
  $("graph").innerHTML = data.svg; // topograd's own SVG, labels escaped on the server
  setUpView($("graph").querySelector("svg"), data.expr);
  showLegend(data.legend);
  explainNodes();
  if ($("node-info").dataset.node && !state.data.nodes.some((n) => n.id === $("node-info").dataset.node)) {
    $("node-info").hidden = true;
  }
  renderGradients(data);
  chartInputs(data.names);
  chartSteps();
  pathInputs(data.names);
  showPaths();
  stop();
  showStep(0);
}

function renderVariables(names, values) {
  const box = $("variables");
  const shown = [...box.querySelectorAll(".variable")].map((row) => row.dataset.name);
  if (shown.join(" ") !== names.join(" ")) {
    box.replaceChildren(...names.map((name) => variableRow(name)));
  }
  for (const name of names) {
    const row = box.querySelector(`.variable[data-name="${CSS.escape(name)}"]`);
    const [field, slider] = row.querySelectorAll("input");
    if (document.activeElement !== field) field.value = values[name];
    state.spans[name] ??= spanFor(values[name]);
    const span = state.spans[name];
    slider.min = String(-span);
    slider.max = String(span);
    if (document.activeElement !== slider) slider.value = values[name];
  }
  foldVariables();
}

// Past SHOWN variables, the first SHOWN and a toggle for the rest (open, the list scrolls in
// its own box), so that Step is not pushed far below the graph.
function foldVariables() {
  const rows = [...$("variables").querySelectorAll(".variable")];
  const toggle = $("more-variables");
  const folds = rows.length > SHOWN;
  toggle.hidden = !folds;
  const open = folds && state.allVariables;
  rows.forEach((row, k) => { row.hidden = folds && !open && k >= SHOWN; });
  $("variables").classList.toggle("open", open);
  toggle.setAttribute("aria-expanded", String(open));
  toggle.textContent = open ? `show the first ${SHOWN} only` : `${rows.length - SHOWN} more variables`;
}

// A slider reaches twice the value typed (at least 10) either way; moving it never widens it.
function spanFor(x) {
  return Math.max(10, Math.ceil(Math.abs(x) * 2));
}

function variableRow(name) {
  const row = document.createElement("div");
  row.className = "variable";
  row.dataset.name = name;
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name;
  const field = document.createElement("input");
  field.type = "text"; // not "number": its value would be "" for 1e309, and the page could not say why
  field.inputMode = "decimal";
  field.spellcheck = false;
  field.setAttribute("aria-label", `value of ${name}`);
  const slider = document.createElement("input");
  slider.type = "range";
  slider.step = "0.01";
  slider.setAttribute("aria-label", `slider for ${name}`);
  field.addEventListener("input", () => {
    const x = Number(field.value);
    if (field.value.trim() === "") return; // being typed: nothing to say yet
    if (Number.isNaN(x)) {
      refuseValue(field, `the value of ${name}, ${field.value.trim()}, is not a number`);
      return;
    }
    if (!Number.isFinite(x)) {
      refuseValue(field, `the value of ${name}, ${field.value.trim()}, is too large: beyond 1.79769e+308 a float is inf`);
      return;
    }
    field.classList.remove("invalid");
    field.removeAttribute("aria-invalid");
    state.values[name] = x;
    state.unchanged.delete(name);
    state.spans[name] = spanFor(x);
    slider.value = field.value;
    later();
  });
  slider.addEventListener("input", () => {
    state.values[name] = Number(slider.value);
    state.unchanged.delete(name);
    field.value = slider.value;
    later(60);
  });
  row.append(label, field, slider);
  return row;
}

function choose(button) {
  clearDescent(); // its note and curve were of the expression and values left behind
  $("expr").value = button.dataset.expr;
  $("preset-note").textContent = button.dataset.note;
  state.values = Object.assign(Object.create(null), JSON.parse(button.dataset.values));
  state.unchanged.clear(); // a preset's values are its own
  state.spans = Object.create(null);
  later(0);
}

// The operators and functions an expression may use, from the server's op registry; each
// function's name shows its value and its derivative when the pointer rests on it.
async function grammar() {
  try {
    const reply = await fetch("/api/functions");
    const data = await reply.json();
    const hint = $("grammar");
    hint.textContent = `numbers, names, ${data.operators.join(" ")}, and `;
    data.functions.forEach((name, k) => {
      const [maths, derivative] = data.maths[name];
      const word = document.createElement("span");
      word.className = "function";
      word.textContent = name;
      word.title = `${maths}; derivative: ${derivative}`;
      hint.append(k ? " " : "", word);
    });
    hint.append(" (or lines that name their values: d = a*b; e = tanh(d))");
  } catch (error) {
    // the hint keeps its general words; the expressions still work
  }
}

document.addEventListener("DOMContentLoaded", () => {
  grammar();
  $("expr").addEventListener("input", () => {
    $("preset-note").textContent = "";
    clearDescent();
    later(250);
  });
  $("more-variables").addEventListener("click", () => {
    state.allVariables = !state.allVariables;
    foldVariables();
  });
  $("step").addEventListener("click", () => { stop(); stepOn(); });
  $("back").addEventListener("click", () => { stop(); showStep(state.step - 1); });
  $("play").addEventListener("click", play);
  $("reset").addEventListener("click", () => { if (state.data) { stop(); showStep(0); } });
  $("skip-inputs").addEventListener("change", () => state.data && showStep(0));
  $("pass").addEventListener("change", () => {
    stop();
    if (state.data) showStep(0);
  });
  document.addEventListener("keydown", keys);
  for (const button of $("presets").querySelectorAll("button")) {
    button.addEventListener("click", () => choose(button));
  }
  $("descend").addEventListener("click", () => descendSteps(1));
  $("descend-run").addEventListener("click", () => {
    if ($("descend-run").textContent === "Stop") {
      stopDescent();
      return;
    }
    const count = Math.floor(Number($("descent-count").value));
    if (count >= 1) descendSteps(Math.min(count, 500));
  });
  listenForViews();
  window.matchMedia(NARROW).addEventListener("change", () => {
    view.expr = null; // the drawing turns: fit it afresh
    if (state.data) later(0);
  });
  $("h-details").addEventListener("toggle", chartSteps);
  $("h-input").addEventListener("change", chartSteps);
  $("paths-details").addEventListener("toggle", showPaths);
  $("paths-input").addEventListener("change", showPaths);
  $("download-svg").addEventListener("click", () => state.data && downloadSvg());
  $("download-png").addEventListener("click", () => state.data && downloadPng());
  const linked = fromAddress();
  if (linked) {
    $("expr").value = linked.expr;
    $("pass").value = linked.pass;
    $("skip-inputs").checked = !linked.all;
    state.values = linked.values;
    state.restore = linked.step;
    later(0);
  } else {
    choose($("presets").querySelector("button"));
  }
});
