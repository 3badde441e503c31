// The drawn graph and the gradients table, as both the page and the notebook's stepper widget
// show them: an element of the drawing by its id, a node's name and gradient label, and the
// table of each input's gradient beside its central difference. Uses $ and state, which the
// page (app.js) and the widget (widget.js) each define for their own elements.
"use strict";

// An id of this graph's drawing as the document holds it: the page's as drawn, a notebook
// widget's behind its own prefix (state.scope, widget.js), so that two widgets never share one.
function scoped(id) {
  return `${state.scope ?? ""}${id}`;
}

// An element of the drawing by topograd's id ("n3", an edge's "n3.0"): looked up in this
// graph's panel, so that several drawings (a notebook's) never mix.
function svgNode(id) {
  return $("graph").querySelector(`[id="${CSS.escape(scoped(`tg-${id}`))}"]`);
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

// A number of the expression (the 2 of 2*x): a leaf without a name.
function isConstant(id) {
  const node = state.data.nodes.find((n) => n.id === id);
  return node.op === "" && node.label === "";
}

function renderGradients(data) {
  const rows = data.names.map((name) => {
    const row = document.createElement("tr");
    row.dataset.name = name;
    const grad = data.grads[name];
    const check = data.checks[name];
    const gap = number(data.differences[name]); // relative where large: the server's, as the CLI's
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
  // A nan made by a function outside its domain is told as such, not blamed on the step h.
  const domain = $("domain-note");
  if (domain) {
    domain.textContent = data.undefined || "";
    domain.hidden = !data.undefined;
  }
  $("check-note").hidden = Boolean(domain && data.undefined) || !rows.some((row) => row.classList.contains("disagrees"));
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
