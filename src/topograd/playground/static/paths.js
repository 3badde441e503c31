// The chain rule as a sum over paths: for the input chosen, every path from it to the output,
// each the product of the local derivatives along it (its rules, then its numbers), and their
// sum beside backprop's gradient, which the += at each shared node adds up without listing
// them. Pointing at a path lights its edges on the graph. Loaded before app.js, which owns the
// page's state.
"use strict";

const pathsAsked = { ticket: 0 };

async function showPaths() {
  const name = $("paths-input").value;
  if (!state.data || !name || !$("paths-details").open) return;
  const ticket = ++pathsAsked.ticket;
  let data;
  try {
    const reply = await fetch("/api/graph", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ expr: state.data.expr, values: state.values, paths_for: name }),
    });
    data = await reply.json();
    if (!reply.ok) return;
  } catch (error) {
    return;
  }
  if (ticket === pathsAsked.ticket && data.expr === state.data.expr) listPaths(data, name);
}

function pathInputs(names) {
  const select = $("paths-input");
  const chosen = select.value;
  select.replaceChildren(...names.map((name) => new Option(name, name)));
  if (names.includes(chosen)) select.value = chosen;
}

function listPaths(data, name) {
  const found = data.paths;
  const named = (id) => {
    const node = data.nodes.find((n) => n.id === id);
    return node.label || (node.op ? id : number(node.data));
  };
  const items = found.paths.map((path) => {
    const item = document.createElement("li");
    item.tabIndex = 0;
    item.dataset.edges = path.edges.join(" ");
    item.dataset.product = String(path.product);
    const route = [...path.nodes].reverse().map(named).join(" → ");
    const numbers = path.partials.map(number).join(" × ");
    item.textContent = `${route}: ${path.rules.map((rule) => rule.split(" = ")[0]).join(" · ")} = ` +
      `${path.rules.map((rule) => rule.split(" = ").slice(1).join(" = ")).join(" · ")} = ${numbers} = ${number(path.product)}`;
    for (const event of ["mouseenter", "focus"]) item.addEventListener(event, () => lightPath(path.edges));
    for (const event of ["mouseleave", "blur"]) item.addEventListener(event, () => lightPath([]));
    return item;
  });
  $("paths").replaceChildren(...items);
  const out = data.output;
  const count = found.count === 1 ? "the 1 path" : `the ${found.count} paths`;
  $("paths-sum").textContent = found.complete
    ? `Σ over ${count} = ${found.paths.map((p) => number(p.product)).join(" + ")} = ${number(found.sum)}: ` +
      `∂${out}/∂${name} (backprop's += at each shared node: ${number(found.gradient)})`
    : `${found.count} paths, the first ${found.paths.length} listed (their sum ${number(found.sum)}, ` +
      `not the whole); backprop adds them all at the shared nodes: ∂${out}/∂${name} = ${number(found.gradient)}`;
}

// One path's edges drawn lit on the graph (none: every edge as it was).
function lightPath(edges) {
  for (const lit of $("graph").querySelectorAll(".path-lit")) lit.classList.remove("path-lit");
  for (const id of edges) svgNode(id)?.classList.add("path-lit");
}
