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
  if (ticket === chart.ticket) drawChart(data.step_errors, name);
}

function chartInputs(names) {
  const select = $("h-input");
  const chosen = select.value;
  select.replaceChildren(...names.map((name) => new Option(name, name)));
  if (names.includes(chosen)) select.value = chosen;
}

function drawChart(rows, name) {
  const box = $("h-chart");
  const [width, height, left, bottom] = [320, 170, 44, 28];
  const errors = rows.map((row) => (typeof row.error === "number" ? row.error : NaN));
  const shown = errors.filter((e) => e > 0);
  const low = Math.floor(Math.log10(Math.min(...shown, 1e-16)));
  const high = Math.ceil(Math.log10(Math.max(...shown, 1e-16)));
  const across = (h) => left + ((Math.log10(h) + 15) / 14) * (width - left - 8);
  const down = (e) => (height - bottom) - ((Math.log10(Math.max(e, 10 ** low)) - low) / Math.max(1, high - low)) * (height - bottom - 8);
  const svg = document.createElementNS($("graph").querySelector("svg")?.namespaceURI ?? box.namespaceURI, "svg");
  const make = (tag, attributes, text) => {
    const el = document.createElementNS(svg.namespaceURI, tag);
    for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
    if (text) el.textContent = text;
    svg.append(el);
    return el;
  };
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "h-chart");
  make("line", { x1: left, y1: height - bottom, x2: width - 8, y2: height - bottom, class: "axis" });
  make("line", { x1: left, y1: 8, x2: left, y2: height - bottom, class: "axis" });
  for (const k of [-15, -10, -5, -1]) {
    make("text", { x: across(10 ** k), y: height - bottom + 14, "text-anchor": "middle", class: "tick" }, `1e${k}`);
  }
  make("text", { x: left - 4, y: 14, "text-anchor": "end", class: "tick" }, `1e${high}`);
  make("text", { x: left - 4, y: height - bottom, "text-anchor": "end", class: "tick" }, `1e${low}`);
  make("text", { x: (width + left) / 2, y: height - 2, "text-anchor": "middle", class: "tick" }, `step h × max(1, |${name}|)`);
  make("line", { x1: across(CHECK_STEP), y1: 8, x2: across(CHECK_STEP), y2: height - bottom, class: "check-step" });
  make("text", { x: across(CHECK_STEP) + 3, y: 16, class: "tick" }, "the check's h");
  const points = rows.map((row, k) => `${across(row.h)},${down(errors[k] || 0)}`);
  make("polyline", { points: points.join(" "), class: "errors" });
  rows.forEach((row, k) => {
    const dot = make("circle", { cx: across(row.h), cy: down(errors[k] || 0), r: 3, class: "error-point" });
    dot.dataset.h = String(row.h);
    dot.dataset.error = String(row.error);
    const title = document.createElementNS(svg.namespaceURI, "title");
    title.textContent = `h = ${number(row.h)}: estimate ${number(row.estimate)}, off by ${number(row.error)}`;
    dot.append(title);
  });
  box.replaceChildren(svg);
  $("h-caption").textContent =
    `|central difference − backprop| for ${name}: large steps err by the curvature (∝ h²), ` +
    "tiny ones by rounding (∝ ε/h), and at h = 1e-15 the difference of f is all noise.";
}
