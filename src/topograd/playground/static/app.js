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
};

const $ = (id) => document.getElementById(id);

// The page's one number formatter, with the command line's rules: Python's format(x, ".6g")
// (six significant digits, exponents from 1e-05 and 1e+06 on, ties to even), and "inf",
// "-inf", "nan", "-0". The server sends non-finite numbers as those strings.
function number(x) {
  if (typeof x === "string") return x;
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const sign = x < 0 ? "-" : "";
  const { digits, exponent } = sixDigits(Math.abs(x));
  if (exponent < -4 || exponent >= 6) {
    const mantissa = trimZeros(`${digits[0]}.${digits.slice(1)}`);
    const power = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${power}`;
  }
  const fixed =
    exponent >= 0
      ? `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`
      : `0.${"0".repeat(-exponent - 1)}${digits}`;
  return sign + trimZeros(fixed);
}

// The six significant digits of x > 0 and its decimal exponent, rounded as Python rounds:
// toExponential rounds a tie away from zero; an exact tie (the digits after the sixth are 5
// and then zeros, in x's exact expansion) goes to the even sixth digit instead.
function sixDigits(x) {
  const [rounded, power] = x.toExponential(5).split("e");
  const [exact, exactPower] = x.toExponential(99).split("e");
  const all = exact.replace(".", "");
  const tie = /^50*$/.test(all.slice(6));
  if (tie && Number(all[5]) % 2 === 0) return { digits: all.slice(0, 6), exponent: Number(exactPower) };
  return { digits: rounded.replace(".", ""), exponent: Number(power) };
}

function trimZeros(text) {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
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
  const body = JSON.stringify({ expr: $("expr").value, values: state.values });
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
  const sameGraph = state.data !== null && state.data.expr === data.expr;
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

function later(delay = 150) {
  state.asked += 1; // an answer already on its way is now stale: a newer edit is waiting
  clearTimeout(state.pending);
  state.pending = setTimeout(update, delay);
}

function render() {
  const data = state.data;
  renderVariables(data.names, data.values);
  $("value").textContent = `${data.expr} = ${number(data.value)}`;
  $("graph").innerHTML = data.svg; // topograd's own SVG, labels escaped on the server
  setUpView($("graph").querySelector("svg"), data.expr);
  explainNodes();
  if ($("node-info").dataset.node && !state.data.nodes.some((n) => n.id === $("node-info").dataset.node)) {
    $("node-info").hidden = true;
  }
  renderGradients(data);
  chartInputs(data.names);
  chartSteps();
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
  field.type = "number";
  field.step = "any";
  field.setAttribute("aria-label", `value of ${name}`);
  const slider = document.createElement("input");
  slider.type = "range";
  slider.step = "0.01";
  slider.setAttribute("aria-label", `slider for ${name}`);
  field.addEventListener("input", () => {
    const x = Number(field.value);
    if (field.value.trim() === "" || !Number.isFinite(x)) return;
    state.values[name] = x;
    state.spans[name] = spanFor(x);
    slider.value = field.value;
    later();
  });
  slider.addEventListener("input", () => {
    state.values[name] = Number(slider.value);
    field.value = slider.value;
    later(60);
  });
  row.append(label, field, slider);
  return row;
}

function renderGradients(data) {
  const rows = data.names.map((name) => {
    const row = document.createElement("tr");
    row.dataset.name = name;
    const grad = data.grads[name];
    const check = data.checks[name];
    const gap = typeof grad === "number" && typeof check === "number" ? number(Math.abs(grad - check)) : "";
    if (!agree(grad, check)) row.classList.add("disagrees");
    row.dataset.node = data.nodes.find((node) => node.label === name && !node.op)?.id ?? "";
    for (const [cls, text] of [["name", name], ["grad", number(grad)], ["check", number(check)], ["gap", gap]]) {
      const cell = document.createElement("td");
      cell.className = cls;
      cell.textContent = text;
      if (cls === "grad") cell.dataset.value = String(grad);
      row.append(cell);
    }
    return row;
  });
  $("grads").tBodies[0].replaceChildren(...rows);
  $("check-note").hidden = !rows.some((row) => row.classList.contains("disagrees"));
}

// The backprop column as it stands: final (totals null), or the running totals of a step of
// the walk ("?" where nothing has arrived yet).
function renderGradientCells(totals) {
  for (const row of $("grads").tBodies[0].rows) {
    const cell = row.querySelector("td.grad");
    const id = row.dataset.node;
    const shown = totals === null ? state.data.grads[row.dataset.name] : totals[id];
    cell.textContent = shown === undefined ? "?" : number(shown);
    row.classList.toggle("pending", totals !== null && shown === undefined);
  }
}

// Whether backprop's gradient and the central difference agree: to 1e-6 of their size (the
// difference's own error is about 1e-10 of it where the function is smooth at its step).
function agree(grad, check) {
  if (typeof grad !== "number" || typeof check !== "number") return grad === check;
  return Math.abs(grad - check) <= 1e-6 * Math.max(1, Math.abs(grad), Math.abs(check));
}

// The backward pass, step by step.

function svgNode(id) {
  return document.getElementById(`tg-${id}`);
}

function setGrad(id, text) {
  const label = svgNode(id)?.querySelector("text.grad");
  if (label) label.textContent = `grad ${text}`;
}

function nameOf(id) {
  const node = state.data.nodes.find((n) => n.id === id);
  const label = node.label.length > 28 ? `${node.label.slice(0, 27)}…` : node.label; // as the graph
  return label || (node.op ? id : number(node.data));
}

// One step downhill on every input, x ← x − η·∂e/∂x, then the graph again: training's first step.
function descend() {
  const rate = Number($("rate").value);
  if (!state.data || $("rate").value.trim() === "" || !Number.isFinite(rate)) return;
  const moves = [];
  for (const name of state.data.names) {
    const grad = state.data.grads[name];
    if (typeof grad !== "number") continue;
    const before = state.values[name];
    state.values[name] = before - rate * grad;
    moves.push(`${name} ${number(before)} → ${number(state.values[name])}`);
  }
  $("descent-note").textContent =
    `x ← x − η·∂e/∂x, η = ${number(rate)}: ${moves.join(", ")}; the output was ${number(state.data.value)}`;
  later(0);
}

function choose(button) {
  $("expr").value = button.dataset.expr;
  $("preset-note").textContent = button.dataset.note;
  state.values = Object.assign(Object.create(null), JSON.parse(button.dataset.values));
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
  } catch (error) {
    // the hint keeps its general words; the expressions still work
  }
}

document.addEventListener("DOMContentLoaded", () => {
  grammar();
  $("expr").addEventListener("input", () => {
    $("preset-note").textContent = "";
    later(250);
  });
  $("step").addEventListener("click", () => { stop(); showStep(state.step + 1); });
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
  $("descend").addEventListener("click", descend);
  listenForViews();
  $("h-details").addEventListener("toggle", chartSteps);
  $("h-input").addEventListener("change", chartSteps);
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
