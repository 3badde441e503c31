// The backward pass, step by step, on the drawn graph: which node runs, what flows along each of
// its edges (its local rule, ∂d/∂a = b, over local derivative × upstream gradient =
// contribution, placed off the boxes by labels.js; the arrow pointing the way the gradient
// goes), which nodes are done and which wait, each node's running total where paths meet, and
// the gradients table as it stands at that step. Any step can be shown from scratch, so Back is
// the same as Step. Loaded after format.js and graph.js; uses $, state and walkMoved(), which
// the page (app.js) and the notebook's widget (widget.js) each define.
"use strict";

// A new element of the graph's drawing (in its own namespace, the SVG one).
function drawn(svg, tag) {
  return document.createElementNS(svg.namespaceURI, tag);
}

// make(tag, attributes, text): a new element of ``svg`` with those attributes (and text), added
// to it last; the charts (h-chart, descent curve, a node's inset) are drawn with one each.
function appender(svg) {
  return (tag, attributes, text) => {
    const el = drawn(svg, tag);
    for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
    if (text) el.textContent = text;
    svg.append(el);
    return el;
  };
}

// The steps walked: every node's, or (the default) only those that pass something on: a
// leaf's step only confirms what has arrived.
function walked() {
  if (forwardPass()) {
    return state.data.nodes.map((node, index) => index).filter((index) => state.data.nodes[index].op);
  }
  const steps = state.data.steps;
  const all = !$("skip-inputs").checked;
  return steps.map((step, index) => index).filter((index) => all || steps[index].edges.length > 0);
}

function forwardPass() {
  return $("pass").value === "forward";
}

// Show the graph as it stands after `k` walked steps (0: before the walk, final gradients).
function showStep(k) {
  const order = walked();
  endJourney(); // a journey under way (travel.js) ends before the step is drawn afresh
  state.step = Math.max(0, Math.min(k, order.length));
  clearMarks();
  $("grads").classList.remove("forward");
  if (forwardPass()) {
    showForward(order);
    return;
  }
  if (state.step === 0) {
    for (const node of state.data.nodes) setGrad(node.id, number(node.grad));
    colourByGradient(null);
    widthByContribution(flowedUpTo(state.data.steps.length - 1));
    renderGradientCells(null);
    $("log").replaceChildren();
    progress();
    return;
  }
  const current = order[state.step - 1];
  // the steps skipped after the current one run with it (an input's step only confirms)
  const last = state.step < order.length ? order[state.step] - 1 : state.data.steps.length - 1;
  const totals = Object.create(null); // node -> running total
  const parts = Object.create(null); // node -> contributions so far
  for (let index = 0; index <= last; index += 1) {
    const step = state.data.steps[index];
    totals[step.node] = step.grad;
    done(step.node);
    for (const edge of step.edges) {
      totals[edge.parent] = edge.total;
      (parts[edge.parent] ??= []).push(edge.contribution);
    }
  }
  for (const node of state.data.nodes) {
    setGrad(node.id, node.id in totals ? number(totals[node.id]) : "?");
    if (!(node.id in totals)) svgNode(node.id)?.classList.add("waiting"); // nothing arrived yet
    if ((parts[node.id] ?? []).length > 1) runningSum(node.id, parts[node.id], totals[node.id]);
  }
  colourByGradient(totals);
  widthByContribution(flowedUpTo(last));
  highlight(state.data.steps[current]);
  for (const step of state.data.steps.slice(0, current)) delivered(step);
  renderGradientCells(totals);
  $("log").replaceChildren(...order.slice(0, state.step).map((index) => logLine(state.data.steps[index])));
  $("log").lastElementChild.classList.add("current");
  keepInView($("log").lastElementChild);
  progress();
}

// The forward pass after its first `state.step` operations: the inputs' values are known, each
// operation computes its value from its operands' in topological order; no gradient exists yet.
function showForward(order) {
  const nodes = state.data.nodes;
  $("grads").classList.add("forward");
  const known = new Set(nodes.filter((node) => !node.op).map((node) => node.id));
  for (const index of order.slice(0, state.step)) known.add(nodes[index].id);
  for (const node of nodes) {
    setData(node.id, known.has(node.id) ? number(node.data) : "?");
    setGrad(node.id, "?");
    svgNode(node.id)?.classList.add(known.has(node.id) ? "done" : "waiting");
  }
  renderGradientCells(Object.create(null));
  colourByGradient(Object.create(null)); // no gradient yet: every box white
  const lines = order.slice(0, state.step).map((index) => {
    const line = document.createElement("li");
    line.dataset.node = nodes[index].id;
    line.textContent = `${nameOf(nodes[index].id)} = ${formula(nodes[index], (operand) => number(operand.data))} = ${number(nodes[index].data)}`;
    return line;
  });
  $("log").replaceChildren(...lines);
  if (state.step > 0) {
    const current = nodes[order[state.step - 1]];
    reveal(svgNode(current.id));
    svgNode(current.id)?.classList.add("current");
    svgNode(`${current.id}-op`)?.classList.add("current");
    for (const edge of state.data.edges.filter((e) => e.target === current.id)) {
      svgNode(edge.id)?.classList.add("flow", "forward");
    }
    $("log").lastElementChild.classList.add("current");
    keepInView($("log").lastElementChild);
  }
  progress();
}

function setData(id, text) {
  const label = svgNode(id)?.querySelector("text.data");
  if (label) label.textContent = `data ${text}`;
}

// Scroll the log, and only the log (never the page), to its line.
function keepInView(line) {
  const log = $("log");
  if (line.offsetTop < log.scrollTop) log.scrollTop = line.offsetTop;
  if (line.offsetTop + line.offsetHeight > log.scrollTop + log.clientHeight) {
    log.scrollTop = line.offsetTop + line.offsetHeight - log.clientHeight;
  }
}

function done(id) {
  const box = svgNode(id);
  box?.classList.remove("waiting");
  box?.classList.add("done");
  svgNode(`${id}-op`)?.classList.add("done");
}

// The running step: its node, and on each edge to an operand what flows along it.
function highlight(step) {
  reveal(svgNode(step.node), ...step.edges.map((edge) => svgNode(edge.parent)));
  svgNode(step.node)?.classList.add("current");
  svgNode(`${step.node}-op`)?.classList.add("current");
  for (const edge of step.edges) {
    const path = svgNode(`${step.node}.${edge.operand}`);
    svgNode(edge.parent)?.classList.add("received");
    if (!path) continue;
    path.classList.add("flow");
    path.setAttribute("marker-end", "");
    path.setAttribute("marker-start", `url(#${scoped("tg-arrow-back")})`);
    edgeLabel(path, edge.rule, `${number(edge.partial)} × ${number(step.grad)} = ${number(edge.contribution)}`);
  }
}

// Under a node that several paths reach, the sum of what has arrived and how it grew, one
// += at a time: "Σ 1 + 3 + 3 = 7 (+= one by one: 1 → 4 → 7)".
function runningSum(id, parts, total) {
  const box = svgNode(id)?.querySelector("rect");
  if (!box) return;
  const words = drawn(box.ownerSVGElement, "text");
  words.setAttribute("class", "running-sum");
  words.dataset.node = id;
  sumWords(words, parts, total);
  nodeWords(box, words);
}

// The running sum's two lines, the sum and how it grew (narrow enough for a phone's drawing).
function sumWords(words, parts, total) {
  let running = 0;
  const totals = parts.map((part) => number((running += part)));
  const lines = [`Σ ${parts.map(number).join(" + ")} = ${number(total)} `, `(+= one by one: ${totals.join(" → ")})`];
  words.replaceChildren(...lines.map((text, k) => {
    const line = drawn(words.ownerSVGElement ?? $("graph").querySelector("svg"), "tspan");
    line.setAttribute("dy", k ? "1.25em" : "0");
    if (words.hasAttribute("x")) line.setAttribute("x", words.getAttribute("x"));
    line.textContent = text;
    return line;
  }));
}

// What an earlier step delivered stays on its edges, dimmed: "+= 3" beside each.
function delivered(step) {
  for (const edge of step.edges) {
    const path = svgNode(`${step.node}.${edge.operand}`);
    if (path && !isConstant(edge.parent)) earlierLabel(path, `+= ${number(edge.contribution)}`);
  }
}

// The group that holds this page's marks on the graph (drawn last, so on top), and the arrow
// the flowing edges point with.
function marks(svg) {
  let layer = svg.querySelector("g.marks");
  if (!layer) {
    layer = drawn(svg, "g");
    layer.setAttribute("class", "marks");
    svg.append(layer);
    const marker = drawn(svg, "marker");
    for (const [name, value] of [["id", scoped("tg-arrow-back")], ["viewBox", "0 0 10 10"], ["refX", "9"], ["refY", "5"],
      ["markerWidth", "10"], ["markerHeight", "10"], ["markerUnits", "userSpaceOnUse"],
      ["orient", "auto-start-reverse"]]) {
      marker.setAttribute(name, value);
    }
    const head = drawn(svg, "path");
    head.setAttribute("d", "M0,1 L9,5 L0,9 z");
    head.setAttribute("class", "flow-head");
    marker.append(head);
    svg.querySelector("defs").append(marker);
  }
  return layer;
}

function clearMarks() {
  const svg = $("graph").querySelector("svg");
  svg?.querySelector("g.marks")?.replaceChildren();
  unGrow(svg);
  const panel = $("graph");
  for (const el of panel.querySelectorAll(".current, .received, .flow, .waiting, .done")) {
    el.classList.remove("current", "received", "flow", "waiting", "done");
  }
  for (const box of panel.querySelectorAll(".node rect")) box.style.fill = "";
  for (const node of state.data.nodes) setData(node.id, number(node.data));
  for (const path of panel.querySelectorAll(".forward")) path.classList.remove("forward");
  for (const path of panel.querySelectorAll("path.edge")) {
    path.setAttribute("marker-end", `url(#${scoped("tg-arrow")})`);
    path.removeAttribute("marker-start");
    path.style.strokeWidth = "";
  }
}

// What has flowed along each operand's edge once the steps up to `last` have run: edge id ->
// contribution.
function flowedUpTo(last) {
  const flowed = Object.create(null);
  for (const step of state.data.steps.slice(0, last + 1)) {
    for (const edge of step.edges) flowed[`${step.node}.${edge.operand}`] = edge.contribution;
  }
  return flowed;
}

// A constant (the 2 of 2*x) keeps no gradient: the log says so rather than "into 2 (now 3)".
// A chain of sums drawn as one Σ passes the same number to every term: said once.
function logLine(step) {
  let text = isConstant(step.node)
    ? `${nameOf(step.node)}: a constant, it keeps no gradient`
    : `${nameOf(step.node)}: gradient ${number(step.grad)}`;
  const sum = state.data.nodes.find((node) => node.id === step.node).op === "Σ";
  if (sum) {
    const [first] = step.edges;
    text += `; Σ passes ${number(first.partial)} × ${number(step.grad)} = ${number(first.contribution)} to each of its ${step.edges.length} terms, +=`;
    text += step.edges.map((edge) => (isConstant(edge.parent)
      ? ` not into ${nameOf(edge.parent)} (a constant)`
      : ` into ${nameOf(edge.parent)} (now ${number(edge.total)})`)).join(",");
  }
  for (const edge of sum ? [] : step.edges) {
    if (isConstant(edge.parent)) {
      text += `; ${nameOf(edge.parent)} is a constant: nothing flows into it`;
      continue;
    }
    text += `; += ${number(edge.partial)} × ${number(step.grad)} = ${number(edge.contribution)}`;
    text += ` into ${nameOf(edge.parent)} (now ${number(edge.total)})`;
  }
  const line = document.createElement("li");
  line.dataset.node = step.node;
  line.textContent = text;
  return line;
}

function progress() {
  walkMoved();
  const total = walked().length;
  const before = forwardPass() ? `${total} operations to compute, inputs first` : `${total} steps; gradients shown are final`;
  $("progress").textContent = state.step === 0 ? before : `step ${state.step} of ${total}`;
  $("step").disabled = state.step >= total;
  $("back").disabled = state.step === 0;
  $("play").disabled = state.step >= total && !state.timer;
}

function play() {
  if (state.timer) return stop();
  if (state.step >= walked().length) showStep(0);
  $("play").textContent = "Pause";
  const tick = () => {
    if (state.step >= walked().length) return stop();
    stepOn();
    state.timer = setTimeout(tick, 700 / Number($("speed").value));
  };
  tick();
}

function stop() {
  clearTimeout(state.timer);
  state.timer = null;
  $("play").textContent = "Play";
  progress();
}

// → Step, ← Back, space Play/Pause, when no field has the keys. The walk's own buttons keep
// the focus once clicked, and leave the arrows to the walk (space stays theirs: it clicks).
function keys(event) {
  const target = event.target;
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return; // the browser's
  const arrow = event.key === "ArrowRight" || event.key === "ArrowLeft";
  const walkButton = target instanceof Element && target.closest("button") && $("stepper")?.contains(target);
  if (target instanceof Element && target.closest("input, select, textarea, summary, button, [role=button]")
    && !(arrow && walkButton)) {
    return; // a control's own keys
  }
  if (!state.data) return;
  if (event.key === "ArrowRight") {
    stop();
    stepOn();
  } else if (event.key === "ArrowLeft") {
    stop();
    showStep(state.step - 1);
  } else if (event.key === " ") {
    play();
  } else {
    return;
  }
  event.preventDefault();
}
