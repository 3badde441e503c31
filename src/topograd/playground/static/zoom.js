// Zoom and pan of the graph: the drawing's viewBox is the window onto it. The wheel zooms
// around the pointer, a drag pans, two fingers pinch; the buttons zoom in and out around the
// window's centre, and Fit shows the whole graph, however small that makes it. A new graph is
// fitted for reading: a small one enlarged (up to 1.6 times), a large one shrunk to the
// panel, but never so far that its 12-pixel text drops below 9 pixels (in a narrow panel, a
// phone's or a notebook cell's, below 12): then it is shown from its inputs (in a narrow
// panel, from its output: the backward pass starts there), and the rest is a pan away (or a
// click on the minimap, an overview of the whole drawing with the window's rectangle on it,
// shown while part of the graph is out of view). A view the user chose is kept while only
// values change. Loaded before app.js, which owns the page's state.
"use strict";

const GROWN = 1.6; // the most "fit" enlarges a small graph
const READABLE = 0.75; // the least "fit" shrinks one: text at 9 px
const TALLEST = 0.72; // of the window's height, the panel's at most
const OUTLINE = 2; // half the running box's outline (graph.css: 3.5), kept in view with it
// px: a screen this wide or narrower (a phone's) draws the graph top to bottom, and so does a
// notebook cell (widget.js); a graph panel as narrow keeps 12-pixel text at 12 pixels when
// fitted. graph.css and style.css hold the same width for their phone's rules.
const NARROW_WIDTH = 600;
const NARROW = `(max-width: ${NARROW_WIDTH}px)`;

function narrowScreen() {
  return window.matchMedia(NARROW).matches;
}

const view = { scale: 1, x: 0, y: 0, expr: null, pointers: new Map() };

function drawing() {
  return $("graph").querySelector("svg");
}

// A new drawing: its own size kept aside, the window onto it restored or fitted.
function setUpView(svg, expr) {
  svg.dataset.width = svg.getAttribute("width");
  svg.dataset.height = svg.getAttribute("height");
  svg.setAttribute("preserveAspectRatio", "xMinYMin meet");
  if (expr === view.expr) {
    applyView();
  } else {
    view.expr = expr;
    fitView();
  }
}

function fitView() {
  const svg = drawing();
  if (!svg) return;
  const width = Number(svg.dataset.width);
  const height = Number(svg.dataset.height);
  const room = $("graph").clientWidth - 20;
  const tallest = TALLEST * window.innerHeight;
  const narrow = narrowScreen() || $("graph").clientWidth <= NARROW_WIDTH; // or a narrow cell
  const least = narrow ? 1 : READABLE; // there 12-pixel text stays 12 pixels
  view.scale = Math.max(least, Math.min(GROWN, room / width, tallest / height));
  view.x = 0;
  view.y = 0;
  applyView();
  const nodes = state.data?.nodes ?? [];
  if (narrow && nodes.length) reveal(svgNode(nodes[nodes.length - 1].id));
}

// Fit: the whole drawing in the window, however small, and the panel in the browser's.
function fitAll() {
  const svg = drawing();
  if (!svg) return;
  const room = $("graph").clientWidth - 20;
  const tallest = TALLEST * window.innerHeight;
  view.scale = Math.min(GROWN, room / Number(svg.dataset.width), tallest / Number(svg.dataset.height));
  view.x = 0;
  view.y = 0;
  applyView();
  const panel = $("graph").getBoundingClientRect();
  if (panel.top < 0 || panel.bottom > window.innerHeight) $("graph").scrollIntoView({ block: "nearest" });
}

function applyView() {
  const svg = drawing();
  if (!svg) return;
  const room = $("graph").clientWidth - 20;
  const tall = Math.min(Number(svg.dataset.height) * view.scale, TALLEST * window.innerHeight);
  const wide = Math.min(Number(svg.dataset.width) * view.scale, room);
  svg.setAttribute("width", String(Math.max(wide, 1)));
  svg.setAttribute("height", String(Math.max(tall, 1)));
  svg.setAttribute("viewBox", `${view.x} ${view.y} ${Math.max(wide, 1) / view.scale} ${Math.max(tall, 1) / view.scale}`);
  svg.dataset.scale = String(view.scale);
  showMinimap();
}

// Zoom by `factor`, keeping the drawing's point under (clientX, clientY) where it is.
function zoomAt(factor, clientX, clientY) {
  const svg = drawing();
  if (!svg) return;
  const box = svg.getBoundingClientRect();
  const scale = Math.max(0.02, Math.min(8, view.scale * factor));
  const px = clientX - box.left;
  const py = clientY - box.top;
  view.x += px / view.scale - px / scale;
  view.y += py / view.scale - py / scale;
  view.scale = scale;
  applyView();
}

// Zoom around the window's centre, which stays where it is in the drawing (the window itself
// narrows as the drawing shrinks below the panel's size: its centre in the drawing is kept,
// not its centre on the screen), the drawing never pushed wholly out of the window.
function zoomCentre(factor) {
  const svg = drawing();
  if (!svg) return;
  const before = svg.viewBox.baseVal;
  const centre = { x: before.x + before.width / 2, y: before.y + before.height / 2 };
  view.scale = Math.max(0.02, Math.min(8, view.scale * factor));
  applyView();
  centreOn(centre.x, centre.y);
}

// The window moved so that its centre is at (x, y) of the drawing, as far as the drawing goes.
function centreOn(x, y) {
  const svg = drawing();
  const shown = svg.viewBox.baseVal;
  const spare = (size, window) => Math.max(0, size - window);
  view.x = Math.max(0, Math.min(x - shown.width / 2, spare(Number(svg.dataset.width), shown.width)));
  view.y = Math.max(0, Math.min(y - shown.height / 2, spare(Number(svg.dataset.height), shown.height)));
  applyView();
}

// Pan so that nodes of the drawing (the one running, then those it sends to) are in the
// window, if they are not: the first whatever, with as many of the others as fit beside it at
// this scale (the nearest first), centred together. If not even the nearest fits beside it (a
// phone's 12-pixel drawing, a wide layer), the window leans towards that one from the first's
// edge: as much of it as there is room for, and the edge that joins them.
function reveal(...elements) {
  const svg = drawing();
  const [first, ...rest] = elements.filter(Boolean).map((element) => element.getBBox());
  if (!svg || !first) return;
  const shown = svg.viewBox.baseVal;
  const away = (box) => Math.hypot(box.x - first.x, box.y - first.y);
  const kept = [first];
  for (const box of rest.sort((a, b) => away(a) - away(b))) {
    const area = bounds([...kept, box]);
    if (area.right - area.left <= shown.width && area.bottom - area.top <= shown.height) kept.push(box);
  }
  const area = bounds(kept.length === 1 && rest.length ? [first, rest[0]] : kept);
  const inside = area.left >= shown.x && area.right <= shown.x + shown.width
    && area.top >= shown.y && area.bottom <= shown.y + shown.height;
  if (inside) return;
  const [x, y, wide, tall] = [first.x - OUTLINE, first.y - OUTLINE, first.width + 2 * OUTLINE, first.height + 2 * OUTLINE];
  view.x = windowStart(area.left, area.right, shown.width, x, wide);
  view.y = windowStart(area.top, area.bottom, shown.height, y, tall);
  applyView();
}

function bounds(boxes) {
  return {
    left: Math.min(...boxes.map((b) => b.x)),
    top: Math.min(...boxes.map((b) => b.y)),
    right: Math.max(...boxes.map((b) => b.x + b.width)),
    bottom: Math.max(...boxes.map((b) => b.y + b.height)),
  };
}

// Where a window `room` wide starts to centre [low, high], moved so that [start, start + size]
// stays in it; never before the drawing's start.
function windowStart(low, high, room, start, size) {
  const centred = (low + high) / 2 - room / 2;
  return Math.max(0, Math.max(start + size - room, Math.min(start, centred)));
}

function panBy(dx, dy) {
  view.x -= dx / view.scale;
  view.y -= dy / view.scale;
  applyView();
}

function listenForViews() {
  const panel = $("graph");
  panel.addEventListener("wheel", (event) => {
    if (!drawing()) return;
    event.preventDefault();
    zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX, event.clientY);
  }, { passive: false });
  panel.addEventListener("pointerdown", (event) => {
    view.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  });
  panel.addEventListener("pointermove", (event) => {
    const last = view.pointers.get(event.pointerId);
    if (!last) return;
    const others = [...view.pointers.entries()].filter(([id]) => id !== event.pointerId);
    if (others.length === 0) {
      panBy(event.clientX - last.x, event.clientY - last.y);
    } else {
      const [, other] = others[0];
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(event.clientX - other.x, event.clientY - other.y);
      if (before > 0) zoomAt(after / before, (event.clientX + other.x) / 2, (event.clientY + other.y) / 2);
    }
    view.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  });
  for (const end of ["pointerup", "pointercancel", "pointerleave"]) {
    panel.addEventListener(end, (event) => view.pointers.delete(event.pointerId));
  }
  $("zoom-in").addEventListener("click", () => zoomCentre(1.25));
  $("zoom-out").addEventListener("click", () => zoomCentre(0.8));
  $("zoom-fit").addEventListener("click", fitAll);
  listenToMinimap();
}

// The minimap: every box of the drawing as a grey rectangle and the window as a blue one, at
// most MAP pixels either way; shown while part of the drawing is out of the window. Only the
// page has one (#minimap); the widget has none.
const MAP = 160;

function showMinimap() {
  const map = $("minimap");
  const svg = drawing();
  if (!map || !svg) return;
  const [wide, tall] = [Number(svg.dataset.width), Number(svg.dataset.height)];
  const shown = svg.viewBox.baseVal;
  map.hidden = shown.x <= 0 && shown.y <= 0 && shown.width >= wide - 1 && shown.height >= tall - 1;
  if (map.hidden) return;
  const scale = Math.min(MAP / wide, MAP / tall);
  let overview = map.querySelector("svg");
  if (!overview || overview.dataset.of !== `${view.expr} ${wide} ${tall}`) {
    overview = mapOf(svg, wide, tall);
    overview.dataset.of = `${view.expr} ${wide} ${tall}`;
    map.replaceChildren(overview);
  }
  overview.setAttribute("width", String(Math.max(wide * scale, MAP / 4))); // (a thin drawing's
  overview.setAttribute("height", String(Math.max(tall * scale, MAP / 4))); // map is stretched)
  const frame = overview.querySelector("rect.window");
  for (const [name, value] of [["x", shown.x], ["y", shown.y], ["width", shown.width], ["height", shown.height]]) {
    frame.setAttribute(name, String(value));
  }
}

function mapOf(svg, wide, tall) {
  const overview = drawn(svg, "svg");
  overview.setAttribute("viewBox", `0 0 ${wide} ${tall}`);
  overview.setAttribute("preserveAspectRatio", "none");
  const make = appender(overview);
  make("rect", { x: 0, y: 0, width: wide, height: tall, class: "ground" });
  for (const group of svg.querySelectorAll("g.node.value")) {
    const box = group.getBBox();
    const rect = make("rect", { x: box.x, y: box.y, width: box.width, height: box.height, class: "box" });
    rect.dataset.node = group.dataset.node;
  }
  make("rect", { x: 0, y: 0, width: 0, height: 0, class: "window", "vector-effect": "non-scaling-stroke" });
  return overview;
}

// A click or a drag on the minimap centres the window on the point under the pointer.
function listenToMinimap() {
  const map = $("minimap");
  if (!map) return;
  const follow = (event) => {
    const overview = map.querySelector("svg");
    const svg = drawing();
    if (!overview || !svg) return;
    const box = overview.getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * Number(svg.dataset.width);
    const y = ((event.clientY - box.top) / box.height) * Number(svg.dataset.height);
    centreOn(x, y);
  };
  map.addEventListener("pointerdown", (event) => {
    map.setPointerCapture?.(event.pointerId);
    follow(event);
  });
  map.addEventListener("pointermove", (event) => {
    if (event.buttons & 1) follow(event);
  });
}
