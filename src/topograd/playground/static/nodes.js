// What the graph says about each node, beyond its box: its colour (the sign and size of its
// gradient so far, with a legend), the width of its edges (what flowed along them), and, when
// the pointer rests on it or it has the focus (Tab, or a click), a panel with its formula,
// value and gradient, the gradient written as the lesson writes it: the sum over the node's
// users of each local derivative × that user's gradient (the order of the edges' labels).
// Loaded before app.js, which owns the page's state.
"use strict";

// A box's fill for its gradient, as topograd's drawings fill theirs (viz/draw.py's
// gradient_fill; a test holds the two together): blue below 0, red above, deeper the larger
// next to the largest in the graph (on a log scale over four decades, so that 1e-3 and 1 both
// show), never so deep that the box's text is hard to read; white for 0, nan, inf, or nothing
// yet. The role of a box is its shape (the drawing's), never its fill.
function gradientColour(grad, largest) {
  if (typeof grad !== "number" || !Number.isFinite(grad) || grad === 0 || !(largest > 0)) return "#ffffff";
  const light = Math.floor(96 - 22 * depthOf(grad, largest) + 0.5);
  const rgb = hlsToRgb((grad > 0 ? 4 : 214) / 360, light / 100, 0.85);
  return `#${rgb.map((c) => Math.floor(255 * c + 0.5).toString(16).padStart(2, "0")).join("")}`;
}

// How deep a colour, or how wide an edge: 0 (four decades below the largest, or less) to 1.
function depthOf(x, largest) {
  return Math.max(0, Math.min(1, 1 + Math.log10(Math.abs(x) / largest) / 4));
}

// Python's colorsys.hls_to_rgb, step for step, so that both give the same bits.
function hlsToRgb(h, l, s) {
  const m2 = l <= 0.5 ? l * (1.0 + s) : l + s - l * s;
  const m1 = 2.0 * l - m2;
  return [channel(m1, m2, h + 1.0 / 3.0), channel(m1, m2, h), channel(m1, m2, h - 1.0 / 3.0)];
}

function channel(m1, m2, hue) {
  const turn = hue < 0 ? (hue % 1.0) + 1.0 : hue % 1.0; // Python's %: never below 0
  if (turn < 1.0 / 6.0) return m1 + (m2 - m1) * turn * 6.0;
  if (turn < 0.5) return m2;
  if (turn < 2.0 / 3.0) return m1 + (m2 - m1) * (2.0 / 3.0 - turn) * 6.0;
  return m1;
}

// The scale of the colours and widths: the largest finite |gradient| of the graph, final.
function largestGradient() {
  const grads = state.data.nodes.map((node) => node.grad).filter((g) => typeof g === "number" && Number.isFinite(g));
  return Math.max(0, ...grads.map(Math.abs));
}

// Every box filled by its gradient so far (`totals`: node -> its running total, null for the
// final gradients), on the scale of the final ones; a constant keeps none: white.
function colourByGradient(totals) {
  const largest = largestGradient();
  for (const node of state.data.nodes) {
    const box = svgNode(node.id)?.querySelector("rect");
    const grad = isConstant(node.id) ? 0 : totals === null ? node.grad : totals[node.id];
    if (box) box.style.fill = gradientColour(grad, largest);
  }
}

// Every operand's edge as wide as what has flowed along it, |contribution| (`flowed`: edge id
// -> contribution), on the colours' scale: 1 to 5 px, thinner still where nothing has.
function widthByContribution(flowed) {
  const largest = largestGradient();
  for (const edge of state.data.edges) {
    const path = svgNode(edge.id);
    if (path) path.style.strokeWidth = `${edgeWidth(flowed[edge.id], largest)}px`;
  }
}

function edgeWidth(contribution, largest) {
  if (contribution === "inf" || contribution === "-inf") return 5;
  if (typeof contribution !== "number" || contribution === 0 || !(largest > 0)) return 0.75;
  return 1 + 4 * depthOf(contribution, largest);
}

// What the colours, shapes and widths say: the drawing's own legend (the server's, as tg.draw
// writes it), its two swatches, and the edges' widths.
function showLegend(text) {
  const legend = $("legend");
  if (!legend || !text) return;
  const swatches = ["negative", "positive"].map((sign) => {
    const swatch = document.createElement("span");
    swatch.className = `swatch ${sign}`;
    swatch.style.background = gradientColour(sign === "negative" ? -1 : 1, 1);
    return swatch;
  });
  const words = document.createElement("span");
  words.className = "legend-text";
  words.textContent = ` ${text} An edge is as wide as the |contribution| that flowed along it.`;
  legend.querySelector(".legend-colours")?.replaceChildren(...swatches, words);
}

// Every box can be pointed at, focused and clicked; each tells its story in #node-info.
function explainNodes() {
  for (const node of state.data.nodes) {
    const group = svgNode(node.id);
    if (!group) continue;
    group.setAttribute("tabindex", "0");
    group.setAttribute("role", "button");
    group.setAttribute("aria-label", `${nameOf(node.id)}: value ${number(node.data)}, gradient ${number(node.grad)}`);
    for (const event of ["mouseenter", "focus", "click"]) {
      group.addEventListener(event, () => showNode(node.id));
    }
  }
}

function showNode(id) {
  const node = state.data.nodes.find((n) => n.id === id);
  const out = state.data.nodes[state.data.nodes.length - 1];
  const terms = [];
  for (const step of state.data.steps) {
    for (const edge of step.edges) {
      if (edge.parent === id) terms.push({ user: step.node, upstream: step.grad, edge });
    }
  }
  const panel = $("node-info");
  const lines = [
    `${nameOf(id)}${node.op ? ` = ${formula(node)}` : node.label ? " (an input)" : " (a constant)"}`,
    `value ${number(node.data)}, gradient ∂${out.bracketed}/∂${node.bracketed} = ${number(node.grad)}`,
  ];
  if (id === out.id) {
    lines.push("the output: its gradient is seeded with 1");
  } else if (terms.length) {
    // each term as its edge's label writes it: local derivative × upstream gradient
    const sum = terms
      .map((t) => `${number(t.edge.partial)} × ${number(t.upstream)}`)
      .join(" + ");
    lines.push(`= Σ over its users of (local derivative × user's gradient) = ${sum} = ${number(node.grad)}`);
    for (const t of terms) {
      lines.push(`  from ${nameOf(t.user)}: ${t.edge.rule}; ${number(t.edge.partial)} × ${number(t.upstream)} = ${number(t.edge.contribution)}`);
    }
  }
  panel.replaceChildren(...lines.map((text) => {
    const line = document.createElement("div");
    line.textContent = text;
    return line;
  }));
  const curve = state.data.curves?.[id];
  if (curve) panel.append(curveInset(curve, nameOf(edgeInto(id).source), nameOf(id)));
  panel.dataset.node = id;
  panel.hidden = false;
}

function edgeInto(id) {
  return state.data.edges.find((edge) => edge.target === id);
}

// Why a gradient vanishes (or dies) through an activation: the function and its derivative
// around the input the node was given (the server's samples: the registry's forward and rule),
// the input marked on both, and what the node multiplies its gradient by.
function curveInset(curve, operand, node) {
  const box = document.createElement("figure");
  box.className = "curve-inset";
  const svg = document.createElementNS($("graph").querySelector("svg").namespaceURI, "svg");
  const [width, height, left, bottom] = [260, 130, 34, 22];
  const ys = [...curve.f, ...curve.df];
  const low = Math.min(0, ...ys);
  const high = Math.max(1, ...ys);
  const [first, last] = [curve.x[0], curve.x[curve.x.length - 1]];
  const across = (x) => left + ((x - first) / (last - first)) * (width - left - 8);
  const down = (y) => 6 + ((high - y) / (high - low)) * (height - bottom - 6);
  const make = appender(svg);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  make("line", { x1: left, y1: down(0), x2: width - 8, y2: down(0), class: "axis" });
  make("line", { x1: across(0), y1: 6, x2: across(0), y2: height - bottom, class: "axis" });
  for (const [x, anchor] of [[first, "start"], [0, "middle"], [last, "end"]]) {
    make("text", { x: across(x), y: height - bottom + 11, "text-anchor": anchor, class: "tick" }, number(x));
  }
  for (const y of [low, high]) make("text", { x: left - 3, y: down(y) + 3, "text-anchor": "end", class: "tick" }, number(y));
  const line = (values) => curve.x.map((x, k) => `${across(x)},${down(values[k])}`).join(" ");
  make("polyline", { points: line(curve.f), class: "function" });
  make("polyline", { points: line(curve.df), class: "derivative" });
  make("line", { x1: across(curve.at), y1: 6, x2: across(curve.at), y2: height - bottom, class: "input" });
  for (const [kind, y] of [["value", curve.value], ["slope", curve.slope]]) {
    const dot = make("circle", { cx: across(curve.at), cy: down(y), r: 3.5, class: `at ${kind}` });
    dot.dataset.x = String(curve.at);
    dot.dataset.y = String(y);
  }
  make("text", { x: left + 4, y: 14, class: "key function" }, curve.op);
  make("text", { x: left + 4, y: 26, class: "key derivative" }, `${curve.op}' (dashed)`);
  const words = document.createElement("figcaption");
  words.textContent =
    `${curve.op}(${operand}) at ${operand} = ${number(curve.at)}: ${curve.op} = ${number(curve.value)}, ` +
    `its derivative ${number(curve.slope)}, so the gradient passed back to ${operand} is ${number(curve.slope)} × ` +
    `${node}'s${curve.slope === 0 ? ": nothing gets through" : Math.abs(curve.slope) < 0.01 ? ": almost nothing gets through" : ""}`;
  box.dataset.op = curve.op;
  box.append(svg, words);
  return box;
}

// A node's operation written with each operand as `show` gives it (its name, its value):
// "d + c", "2 * -3", "tanh(4)".
function formula(node, show = (operand) => nameOf(operand.id)) {
  const operands = state.data.edges
    .filter((edge) => edge.target === node.id)
    .map((edge) => show(state.data.nodes.find((n) => n.id === edge.source)));
  if (node.op === "Σ") return operands.join(" + "); // a chain of sums, drawn as one node
  return operands.length === 2 ? `${operands[0]} ${node.op} ${operands[1]}` : `${node.op}(${operands.join(", ")})`;
}

// The line over the graph: the output's name, what computes it as typed (or, for a graph
// built in Python, from its operands' names) and its value, "e = tanh(n) = 0.999329".
function valueLine(data) {
  const out = data.nodes[data.nodes.length - 1];
  const computed = data.formula || (out.op ? formula(out) : "");
  const parts = [data.output, ...(computed && computed !== data.output ? [computed] : [])];
  return `${parts.join(" = ")} = ${number(data.value)}`;
}
