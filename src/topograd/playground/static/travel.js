// The += made visible. When the walk takes a step forward (Step, →, Play), each contribution
// the running node hands on travels along its edge, a dot carrying its number, from that node
// to the operand it is added into, one after another; as each arrives, the receiver's gradient
// (its box's text and fill, its running sum, its row of the table) ticks to the new total:
// 1 → 4 → 7 at the x of x*x + x. showStep has drawn the step's final state before the journey
// starts and draws a newer one from scratch, ending the journey first, so a step taken while
// the dots are under way never leaves a number half-updated. Where the reader prefers reduced
// motion nothing travels: the final state appears at once. Loaded after stepper.js, labels.js
// and nodes.js; stepOn() is every step forward: Step (app.js, widget.js), and Play and the →
// key (stepper.js's play() and keys()).
"use strict";

const JOURNEY = 600; // ms for all of a step's contributions at speed 1 (Play waits 700 a step)

let journey = null; // the journey under way: its edges, how many have arrived, its frame

// One step forward, its contributions travelling unless the reader prefers reduced motion.
function stepOn() {
  const from = state.step;
  showStep(from + 1);
  if (state.step !== from + 1 || forwardPass()) return;
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  travel(state.data.steps[walked()[state.step - 1]]);
}

// Each receiver shown as it stood before the step, then a dot sent along every edge in turn.
function travel(step) {
  const index = state.data.steps.indexOf(step);
  const totals = Object.create(null); // before this step: node -> its total
  const parts = Object.create(null); // node -> the contributions it had
  for (const earlier of state.data.steps.slice(0, index)) {
    for (const edge of earlier.edges) {
      totals[edge.parent] = edge.total;
      (parts[edge.parent] ??= []).push(edge.contribution);
    }
  }
  const edges = step.edges.filter((edge) => !isConstant(edge.parent) && svgNode(`${step.node}.${edge.operand}`));
  if (edges.length === 0) return;
  for (const edge of edges) showArrived(edge.parent, totals[edge.parent], parts[edge.parent] ?? []);
  const svg = $("graph").querySelector("svg");
  const layer = drawn(svg, "g");
  layer.setAttribute("class", "travelling");
  const dot = drawn(svg, "circle");
  dot.setAttribute("class", "travel-dot");
  dot.setAttribute("r", "6");
  const words = drawn(svg, "text");
  words.setAttribute("class", "travel-words");
  layer.append(dot, words);
  svg.append(layer);
  const each = JOURNEY / Number($("speed").value) / edges.length;
  journey = { step, edges, arrived: 0, parts, layer, dot, words, each, started: performance.now(), frame: 0 };
  carry(journey, 0); // on its edge from the start, before the first frame is painted
  journey.frame = requestAnimationFrame(onTheWay);
}

// A frame of the journey: the contributions whose time is up arrive, the next one moves on.
function onTheWay(now) {
  const trip = journey;
  if (!trip) return;
  const along = (now - trip.started) / trip.each;
  while (trip.arrived < Math.min(Math.floor(along), trip.edges.length)) arrive(trip);
  if (trip.arrived >= trip.edges.length) {
    endJourney();
    return;
  }
  carry(trip, along - trip.arrived);
  trip.frame = requestAnimationFrame(onTheWay);
}

// The dot and its number `part` (0 to 1) of the way along the next edge, from the running
// node back to the operand (the edge is drawn from the operand to its user).
function carry(trip, part) {
  const edge = trip.edges[trip.arrived];
  const path = svgNode(`${trip.step.node}.${edge.operand}`);
  const at = path.getPointAtLength(path.getTotalLength() * (1 - part));
  trip.dot.dataset.edge = path.dataset.edge;
  trip.dot.setAttribute("cx", String(at.x));
  trip.dot.setAttribute("cy", String(at.y));
  trip.words.setAttribute("x", String(at.x + 9));
  trip.words.setAttribute("y", String(at.y - 8));
  trip.words.textContent = `+= ${number(edge.contribution)}`;
}

// The next contribution reaches its receiver: += into its total.
function arrive(trip) {
  const edge = trip.edges[trip.arrived];
  (trip.parts[edge.parent] ??= []).push(edge.contribution);
  showArrived(edge.parent, edge.total, trip.parts[edge.parent]);
  trip.arrived += 1;
}

// The journey over, now or cut short (a newer step, Back, a new graph): every contribution
// still on its way arrives at once, and the dot goes.
function endJourney() {
  const trip = journey;
  if (!trip) return;
  journey = null;
  cancelAnimationFrame(trip.frame);
  while (trip.arrived < trip.edges.length) arrive(trip);
  trip.layer.remove();
}

// A receiver as it stands with the contributions `parts` in, `total` their sum (undefined:
// nothing yet): its gradient's text and fill, its running sum, its row of the table.
function showArrived(id, total, parts) {
  const known = total !== undefined;
  setGrad(id, known ? number(total) : "?");
  svgNode(id)?.classList.toggle("waiting", !known);
  const box = svgNode(id)?.querySelector("rect");
  if (box) box.style.fill = gradientColour(known ? total : undefined, largestGradient());
  const sum = $("graph").querySelector(`text.running-sum[data-node="${CSS.escape(id)}"]`);
  if (sum) {
    sum.style.visibility = parts.length > 1 ? "" : "hidden";
    if (parts.length > 1) sumWords(sum, parts, total);
  }
  const row = [...$("grads").tBodies[0].rows].find((r) => r.dataset.node === id);
  if (row) {
    row.querySelector("td.grad").textContent = known ? number(total) : "?";
    row.classList.toggle("pending", !known);
  }
}
