// Gradient descent on the inputs, as a loop: each step moves every input x ← x − η·∂e/∂x,
// then asks for the graph again (the server's answer: the new output and its gradients). Beside
// each step's change of the output, Δe, stands its first-order prediction −η‖∇e‖² (Taylor:
// e(x − η∇e) ≈ e − η ∇e·∇e), which holds while η is small; at a large η the output climbs or
// swings instead, and the curve shows it as it happens. Loaded before app.js, which owns the
// page's state and update().
"use strict";

const descent = {
  run: 0, // the loop under way: a newer run, Stop or a new expression ends an older one
  loops: 0, // loops not yet returned: an ended one may still be showing its step under way
  expr: null, // the expression the rows are of
  start: null, // the output before the first step
  rows: [], // one per step: { before, after, change, predicted, moves }
};

// A short pause between two steps, so that the curve grows step by step; none where the
// reader asks for reduced motion (the steps still come one answer at a time).
function pace() {
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  return new Promise((resolve) => setTimeout(resolve, still ? 0 : 120));
}

// The button reads "Stopping…" until the step under way is shown, then "Run": after that no
// step of the ended loop comes.
function stopDescent() {
  descent.run += 1;
  $("descend-run").textContent = descent.loops > 0 ? "Stopping…" : "Run";
}

// No steps shown: a new expression (a preset, or typed) starts a new story.
function clearDescent() {
  stopDescent();
  Object.assign(descent, { expr: null, start: null, rows: [] });
  $("descent-note").textContent = "";
  $("descent-chart").replaceChildren();
  $("descent-table").tBodies[0].replaceChildren();
  $("descent-table").hidden = true;
}

async function descendSteps(count) {
  const rate = Number($("rate").value);
  if (!state.data || $("rate").value.trim() === "" || !Number.isFinite(rate)) return;
  const run = ++descent.run;
  if (descent.expr !== state.data.expr) {
    Object.assign(descent, { expr: state.data.expr, start: state.data.value, rows: [] });
  }
  if (count > 1) $("descend-run").textContent = "Stop";
  descent.loops += 1;
  try {
    await descendFor(run, count, rate);
  } finally {
    descent.loops -= 1;
    if (run === descent.run || descent.loops === 0) $("descend-run").textContent = "Run";
  }
}

async function descendFor(run, count, rate) {
  for (let k = 0; k < count && run === descent.run; k += 1) {
    if (k > 0) await pace();
    if (run !== descent.run) break;
    const before = state.data;
    const row = step(before, rate);
    await update();
    if (state.data === before) break; // refused (an input beyond float range): the error says so
    row.after = state.data.value;
    row.change = typeof row.after === "number" && typeof row.before === "number" ? row.after - row.before : NaN;
    descent.rows.push(row);
    showDescent(rate);
    if (typeof row.after !== "number" || !Number.isFinite(row.after)) break; // diverged
  }
}

// One step's moves on state.values, and what a first-order look at the gradients predicts.
function step(data, rate) {
  const moves = [];
  let squared = 0;
  for (const name of data.names) {
    const grad = data.grads[name];
    if (typeof grad !== "number") continue; // inf or nan: no step along it
    squared += grad * grad;
    const from = state.values[name];
    state.values[name] = from - rate * grad;
    moves.push(`${name} ${number(from)} → ${number(state.values[name])}`);
  }
  return { before: data.value, predicted: -rate * squared, moves };
}

function showDescent(rate) {
  const rows = descent.rows;
  const last = rows[rows.length - 1];
  const out = state.data.output;
  const rises = rows.filter((row) => row.change > 0).length;
  $("descent-note").textContent =
    `x ← x − η·∂${out}/∂x, η = ${number(rate)}, step ${rows.length}: ${last.moves.join(", ")}; ` +
    `${out} ${number(last.before)} → ${number(last.after)}, Δ${out} = ${number(last.change)} ` +
    `beside −η‖∇${out}‖² = ${number(last.predicted)}` +
    (rises ? `. ${out} went up at ${rises} of ${rows.length} steps: η is too large here (the ` +
      "prediction holds only for a small step), and the steps diverge or swing" : "");
  const body = $("descent-table").tBodies[0];
  const cells = [rows.length, last.after, last.change, last.predicted].map((x, k) => {
    const cell = document.createElement("td");
    cell.textContent = k === 0 ? String(x) : number(x);
    cell.dataset.value = String(x);
    return cell;
  });
  const line = document.createElement("tr");
  line.classList.toggle("rises", last.change > 0);
  line.append(...cells);
  body.append(line);
  $("descent-table").hidden = false;
  $("descent-table").querySelector("th.output").textContent = out;
  $("descent-table").querySelector("th.change").textContent = `Δ${out}`;
  $("descent-table").querySelector("th.predicted").textContent = `−η‖∇${out}‖²`;
  line.scrollIntoView?.({ block: "nearest" });
  drawDescent(out);
}

// The output after each step (step 0: before the first) and, a hollow mark, where the step's
// first-order prediction put it (the output before it − η‖∇e‖²), on a linear scale from the
// lowest to the highest finite of them; a step that went up is marked so.
function drawDescent(out) {
  const values = [descent.start, ...descent.rows.map((row) => row.after)];
  const guesses = descent.rows.map((row) => (typeof row.before === "number" ? row.before + row.predicted : NaN));
  const shown = [...values, ...guesses].filter((v) => typeof v === "number" && Number.isFinite(v));
  const [width, height, left, bottom] = [340, 170, 64, 30];
  let low = Math.min(...shown);
  let high = Math.max(...shown);
  if (high - low < 1e-12 * Math.max(1, Math.abs(high))) [low, high] = [low - 0.5, high + 0.5];
  const across = (k) => left + (k / Math.max(1, values.length - 1)) * (width - left - 12);
  const down = (v) => 8 + ((high - Math.min(high, Math.max(low, v))) / (high - low)) * (height - bottom - 8);
  const box = $("descent-chart");
  const svg = document.createElementNS($("graph").querySelector("svg")?.namespaceURI ?? box.namespaceURI, "svg");
  const make = appender(svg);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "descent-chart");
  make("line", { x1: left, y1: height - bottom, x2: width - 12, y2: height - bottom, class: "axis" });
  make("line", { x1: left, y1: 8, x2: left, y2: height - bottom, class: "axis" });
  for (const v of [low, high]) {
    make("text", { x: left - 5, y: down(v) + 3, "text-anchor": "end", class: "tick" }, number(v));
  }
  make("text", { x: left, y: height - bottom + 12, "text-anchor": "middle", class: "tick" }, "0");
  make("text", { x: across(values.length - 1), y: height - bottom + 12, "text-anchor": "middle", class: "tick" }, String(values.length - 1));
  make("text", { x: (width + left) / 2, y: height - 3, "text-anchor": "middle", class: "axis-title" }, "step of gradient descent");
  make("text", { x: 11, y: (height - bottom) / 2, "text-anchor": "middle", transform: `rotate(-90 11 ${(height - bottom) / 2})`, class: "axis-title" }, out);
  const finite = values.map((v, k) => [k, v]).filter(([, v]) => typeof v === "number" && Number.isFinite(v));
  make("polyline", { points: finite.map(([k, v]) => `${across(k)},${down(v)}`).join(" "), class: "outputs" });
  guesses.forEach((guess, k) => {
    if (Number.isFinite(guess)) make("circle", { cx: across(k + 1), cy: down(guess), r: 3.5, class: "predicted" });
  });
  finite.forEach(([k, v]) => {
    const rose = k > 0 && descent.rows[k - 1].change > 0;
    const dot = make("circle", { cx: across(k), cy: down(v), r: 2.5, class: rose ? "output rises" : "output" });
    dot.dataset.step = String(k);
    dot.dataset.value = String(v);
  });
  box.replaceChildren(svg);
}
