// Where the walk's words go on the drawing (the page's and the notebook widget's): an edge's
// label (its local rule over its numbers), what an earlier step delivered (dimmed) and a
// node's running sum, each on a white ground, placed off every box of the graph (values and
// ops) and off every word placed before it, as near its edge or node as there is room. The
// places tried form rings around the preferred one; words that find no room within reach go
// below the drawing, which grows to hold them.
// Words away from their edge or node are tied to it by a leader line. Uses drawn() and marks()
// of stepper.js, and applyView() of zoom.js when the drawing grows.
"use strict";

const PAD = 3; // the white ground around the words, each side
const REACH = 40; // rings of places tried around the preferred one
const RING = [10, 7]; // a ring's step across and down, in the drawing's units

// An edge's label, two lines: the local rule, then local derivative × upstream = contribution.
function edgeLabel(path, rule, numbers) {
  const svg = path.ownerSVGElement;
  const at = path.getPointAtLength(path.getTotalLength() / 2);
  const words = drawn(svg, "text");
  words.setAttribute("class", "flow-label");
  words.setAttribute("text-anchor", "middle");
  words.dataset.edge = path.dataset.edge;
  for (const [cls, text, down] of [["rule", rule, "0"], ["numbers", numbers, "1.25em"]]) {
    const line = drawn(svg, "tspan");
    line.setAttribute("class", cls);
    line.setAttribute("dy", down);
    line.textContent = text;
    words.append(line);
  }
  placeWords(svg, words, at);
}

// What an earlier step delivered along an edge, one dimmed line: "+= 3".
function earlierLabel(path, text) {
  const svg = path.ownerSVGElement;
  const words = drawn(svg, "text");
  words.setAttribute("class", "delivered");
  words.setAttribute("text-anchor", "middle");
  words.dataset.edge = path.dataset.edge;
  words.textContent = text;
  placeWords(svg, words, path.getPointAtLength(path.getTotalLength() / 2));
}

// Words under a node's box where they fit (a running sum), else the nearest free place.
function nodeWords(box, words) {
  const svg = box.ownerSVGElement;
  words.setAttribute("text-anchor", "middle");
  marks(svg).append(words);
  const size = words.getBBox();
  const [x, y, high] = ["x", "y", "height"].map((name) => Number(box.getAttribute(name)));
  placeWords(svg, words, { x: x + size.width / 2, y: y + high + 2 + size.height / 2 });
}

// Put `words` (a text of the marks' layer, or not yet in it) where its ground overlaps no box
// and no ground already placed, centred as near `at` as can be, and tied to `at` if away.
function placeWords(svg, words, at) {
  const layer = marks(svg);
  if (!words.parentNode) layer.append(words);
  moveWords(words, at.x, at.y);
  const measured = words.getBBox();
  const size = { width: measured.width + 2 * PAD, height: measured.height + 2 * PAD };
  const lift = { x: measured.x + measured.width / 2 - at.x, y: measured.y + measured.height / 2 - at.y };
  const taken = obstacles(svg);
  const wide = Math.max(Number(svg.dataset.width), spareWidth(svg));
  const tall = Number(svg.dataset.height);
  const ground = (cx, cy) => ({ x: cx - size.width / 2, y: cy - size.height / 2, width: size.width, height: size.height });
  const fits = (box) => box.x >= 0 && box.y >= 0 && box.x + box.width <= wide && box.y + box.height <= tall
    && !taken.some((other) => overlap(other, box));
  let spot = null;
  for (const [dx, dy] of ringOffsets()) {
    const box = ground(at.x + dx, at.y + dy);
    if (fits(box)) {
      spot = box;
      break;
    }
  }
  spot ??= belowTheDrawing(svg, size, at.x);
  if (spot.x + spot.width > Number(svg.dataset.width)) widen(svg, spot.x + spot.width);
  moveWords(words, spot.x + size.width / 2 - lift.x, spot.y + size.height / 2 - lift.y);
  const rect = drawn(svg, "rect");
  rect.setAttribute("class", "flow-ground");
  for (const name of ["x", "y", "width", "height"]) rect.setAttribute(name, String(spot[name]));
  layer.insertBefore(rect, words);
  if (!within(spot, at, 2)) layer.insertBefore(leader(svg, spot, at), rect);
}

// The places tried, nearest first: rings of offsets around the preferred place.
const ringCache = [];
function ringOffsets() {
  if (ringCache.length) return ringCache;
  for (let i = -REACH; i <= REACH; i += 1) {
    for (let j = -REACH; j <= REACH; j += 1) ringCache.push([i * RING[0], j * RING[1]]);
  }
  ringCache.sort((a, b) => Math.hypot(a[0], a[1] * 1.4) - Math.hypot(b[0], b[1] * 1.4));
  return ringCache;
}

// What words must stay off: every node's box, every ground placed so far.
function obstacles(svg) {
  const boxes = [...svg.querySelectorAll("g.node")].map((group) => group.getBBox());
  const grounds = [...marks(svg).querySelectorAll("rect.flow-ground")].map((rect) => rect.getBBox());
  return [...boxes, ...grounds];
}

// A place in a strip below the drawing, which grows by the strip's height, and to the words'
// width if they are wider than it (a narrow drawing, top to bottom); the view too.
function belowTheDrawing(svg, size, x) {
  svg.dataset.drawnHeight ??= svg.dataset.height;
  svg.dataset.drawnWidth ??= svg.dataset.width;
  const top = Number(svg.dataset.height) + 4;
  svg.dataset.height = String(top + size.height);
  svg.dataset.width = String(Math.max(Number(svg.dataset.width), size.width));
  if (typeof applyView === "function") applyView();
  const left = Math.max(0, Math.min(x - size.width / 2, Number(svg.dataset.width) - size.width));
  return { x: left, y: top, width: size.width, height: size.height };
}

// A drawing top to bottom (a phone's) is narrower than its panel: words may use the room
// beside it, in the drawing's units, and the drawing widens to hold them (widen).
function spareWidth(svg) {
  if (svg.dataset.down !== "true") return 0;
  return ($("graph").clientWidth - 20) / Number(svg.dataset.scale || 1);
}

function widen(svg, width) {
  svg.dataset.drawnHeight ??= svg.dataset.height;
  svg.dataset.drawnWidth ??= svg.dataset.width;
  svg.dataset.width = String(width);
  if (typeof applyView === "function") applyView();
}

// The drawing back to its own size, once the walk's marks are cleared.
function unGrow(svg) {
  if (svg?.dataset.drawnWidth === undefined) return;
  svg.dataset.height = svg.dataset.drawnHeight;
  svg.dataset.width = svg.dataset.drawnWidth;
  delete svg.dataset.drawnHeight;
  delete svg.dataset.drawnWidth;
  if (typeof applyView === "function") applyView();
}

function moveWords(words, x, y) {
  words.setAttribute("x", String(x));
  words.setAttribute("y", String(y));
  for (const line of words.querySelectorAll("tspan")) line.setAttribute("x", String(x));
}

function leader(svg, box, at) {
  const line = drawn(svg, "line");
  line.setAttribute("class", "flow-leader");
  const x = Math.max(box.x, Math.min(at.x, box.x + box.width));
  const y = Math.max(box.y, Math.min(at.y, box.y + box.height));
  for (const [name, value] of [["x1", at.x], ["y1", at.y], ["x2", x], ["y2", y]]) line.setAttribute(name, String(value));
  return line;
}

function within(box, at, margin) {
  return at.x >= box.x - margin && at.x <= box.x + box.width + margin
    && at.y >= box.y - margin && at.y <= box.y + box.height + margin;
}

function overlap(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
