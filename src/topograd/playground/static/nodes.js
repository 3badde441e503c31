// What the graph says about each node, beyond its box: its colour (the sign and size of its
// gradient, with a legend), and, when the pointer rests on it or it has the focus (Tab, or a
// click), a panel with its formula, value and gradient, the gradient written as the lesson
// writes it: the sum over the node's users of each user's gradient × its local derivative.
// Loaded before app.js, which owns the page's state.
"use strict";

// Colours of a gradient: blue below zero, red above, deeper the larger it is next to the
// largest in the graph (on a log scale over four decades, so that 1e-3 and 1 both show),
// never so deep that the box's text is hard to read.
function gradientColour(grad, largest) {
  if (typeof grad !== "number" || grad === 0 || !(largest > 0)) return "#ffffff";
  const depth = Math.max(0, Math.min(1, 1 + Math.log10(Math.abs(grad) / largest) / 4));
  const light = Math.round(96 - 22 * depth);
  return grad > 0 ? `hsl(4 85% ${light}%)` : `hsl(214 85% ${light}%)`;
}

function colourByGradient() {
  const grads = state.data.nodes.map((node) => node.grad).filter((g) => typeof g === "number" && Number.isFinite(g));
  const largest = Math.max(0, ...grads.map(Math.abs));
  for (const node of state.data.nodes) {
    const box = svgNode(node.id)?.querySelector("rect");
    if (box) box.style.fill = gradientColour(node.grad, largest);
  }
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
    `value ${number(node.data)}, gradient d${nameOf(out.id)}/d${nameOf(id)} = ${number(node.grad)}`,
  ];
  if (id === out.id) {
    lines.push("the output: its gradient is seeded with 1");
  } else if (terms.length) {
    const sum = terms
      .map((t) => `${number(t.upstream)} × ${number(t.edge.partial)}`)
      .join(" + ");
    lines.push(`= Σ over its users of (user's gradient × local derivative) = ${sum} = ${number(node.grad)}`);
    for (const t of terms) {
      lines.push(`  from ${nameOf(t.user)}: ${number(t.upstream)} × ${number(t.edge.partial)} = ${number(t.edge.contribution)}`);
    }
  }
  panel.replaceChildren(...lines.map((text) => {
    const line = document.createElement("div");
    line.textContent = text;
    return line;
  }));
  panel.dataset.node = id;
  panel.hidden = false;
}

// A node's operation written with each operand as `show` gives it (its name, its value):
// "d + c", "2 * -3", "tanh(4)".
function formula(node, show = (operand) => nameOf(operand.id)) {
  const operands = state.data.edges
    .filter((edge) => edge.target === node.id)
    .map((edge) => show(state.data.nodes.find((n) => n.id === edge.source)));
  return operands.length === 2 ? `${operands[0]} ${node.op} ${operands[1]}` : `${node.op}(${operands.join(", ")})`;
}
