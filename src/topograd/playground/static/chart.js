// The central difference's error against its step h (1e-1 to 1e-15) for one input, on a small
// log-log chart: the seed lesson's caveat made visible. Too large a step errs by the
// function's curvature (truncation, shrinking as h²), too small a step by rounding (growing as
// ε/h); the check's own step, cbrt(ε) (times the input's size, as every step here), sits
// near the bottom of the valley. Loaded before app.js, which owns the page's state.
"use strict";

const CHECK_STEP = 6.055454452393343e-06; // cbrt(machine epsilon), as topograd's check
const chart = { ticket: 0 };

async function chartSteps() {
  const name = $("h-input").value;
  if (!state.data || !name || !$("h-details").open) return;
  const ticket = ++chart.ticket;
  let data;
  try {
    const reply = await fetch("/api/graph", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ expr: state.data.expr, values: state.values, steps_for: name }),
    });
    data = await reply.json();
    if (!reply.ok) return;
  } catch (error) {
    return;
  }
  if (ticket === chart.ticket) drawChart(data.step_errors, name, data.undefined);
}

function chartInputs(names) {
  const select = $("h-input");
  const chosen = select.value;
  select.replaceChildren(...names.map((name) => new Option(name, name)));
  if (names.includes(chosen)) select.value = chosen;
}

// `domain`: the server's words when the output is nan (an input outside a function's domain):
// then no step h gives an estimate, and the caption says why rather than blaming h.
function drawChart(rows, name, domain) {
  const box = $("h-chart");
  const [width, height, left, bottom] = [340, 190, 62, 34];
  const errors = rows.map((row) => (typeof row.error === "number" ? row.error : NaN));
  const shown = errors.filter((e) => e > 0);
  const low = Math.floor(Math.log10(Math.min(...shown, 1e-16)));
  const high = Math.ceil(Math.log10(Math.max(...shown, 1e-16)));
  const across = (h) => left + ((Math.log10(h) + 15) / 14) * (width - left - 16);
  const down = (e) => (height - bottom) - ((Math.log10(Math.max(e, 10 ** low)) - low) / Math.max(1, high - low)) * (height - bottom - 8);
  const svg = document.createElementNS($("graph").querySelector("svg")?.namespaceURI ?? box.namespaceURI, "svg");
  const make = appender(svg);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "h-chart");
  make("line", { x1: left, y1: height - bottom, x2: width - 16, y2: height - bottom, class: "axis" });
  make("line", { x1: left, y1: 8, x2: left, y2: height - bottom, class: "axis" });
  // a mark at every decade of h, its number at every other one (1e-15, 1e-13, ... 1e-1)
  for (let k = -15; k <= -1; k += 1) {
    make("line", { x1: across(10 ** k), y1: height - bottom, x2: across(10 ** k), y2: height - bottom + 3, class: "axis" });
    if (k % 2 !== 0) make("text", { x: across(10 ** k), y: height - bottom + 13, "text-anchor": "middle", class: "tick x-tick" }, `1e${k}`);
  }
  // a mark at every decade of the error, its number at no more than six of them, from the top
  const every = Math.max(1, Math.ceil((high - low) / 5));
  for (let k = low; k <= high; k += 1) {
    make("line", { x1: left - 3, y1: down(10 ** k), x2: left, y2: down(10 ** k), class: "axis" });
    if ((high - k) % every === 0) {
      make("text", { x: left - 5, y: down(10 ** k) + 3, "text-anchor": "end", class: "tick y-tick" }, `1e${k}`);
    }
  }
  make("text", { x: (width + left) / 2, y: height - 4, "text-anchor": "middle", class: "axis-title x-title" }, `step h × max(1, |${name}|)`);
  const middle = (height - bottom + 8) / 2;
  make("text", { x: 11, y: middle, "text-anchor": "middle", transform: `rotate(-90 11 ${middle})`, class: "axis-title y-title" }, "error |estimate − backprop|");
  make("line", { x1: across(CHECK_STEP), y1: 8, x2: across(CHECK_STEP), y2: height - bottom, class: "check-step" });
  make("text", { x: across(CHECK_STEP) + 3, y: 16, class: "tick" }, "the check's h");
  const estimated = rows.map((row, k) => k).filter((k) => !Number.isNaN(errors[k])); // nan: no mark
  const points = estimated.map((k) => `${across(rows[k].h)},${down(errors[k])}`);
  make("polyline", { points: points.join(" "), class: "errors" });
  estimated.forEach((k) => {
    const row = rows[k];
    const dot = make("circle", { cx: across(row.h), cy: down(errors[k]), r: 3, class: "error-point" });
    dot.dataset.h = String(row.h);
    dot.dataset.error = String(row.error);
    const title = document.createElementNS(svg.namespaceURI, "title");
    title.textContent = `h = ${number(row.h)}: estimate ${number(row.estimate)}, off by ${number(row.error)}`;
    dot.append(title);
  });
  box.replaceChildren(svg);
  $("h-caption").textContent = estimated.length === 0 && domain
    ? `No step h gives ${name} an estimate, large or small: ${domain}`
    : `|central difference − backprop| for ${name}: large steps err by the curvature (∝ h²), ` +
      "tiny ones by rounding (∝ ε/h), and at h = 1e-15 the difference of f is all noise.";
}
