// Zoom and pan of the graph: the drawing's viewBox is the window onto it. The wheel zooms
// around the pointer, a drag pans, two fingers pinch; the buttons zoom in, out, and "fit". At
// "fit" a small graph is enlarged (up to 1.6 times) and a large one shrinks to the panel, but
// never so far that its 12-pixel text drops below 9 pixels: then it is shown from its inputs,
// and the rest is a pan away. A view the user chose is kept while only values change.
// Loaded before app.js, which owns the page's state.
"use strict";

const GROWN = 1.6; // the most "fit" enlarges a small graph
const READABLE = 0.75; // the least "fit" shrinks one: text at 9 px
const TALLEST = 0.72; // of the window's height, the panel's at most

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
  view.scale = Math.max(READABLE, Math.min(GROWN, room / width, tallest / height));
  view.x = 0;
  view.y = 0;
  applyView();
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
}

// Zoom by `factor`, keeping the drawing's point under (clientX, clientY) where it is.
function zoomAt(factor, clientX, clientY) {
  const svg = drawing();
  if (!svg) return;
  const box = svg.getBoundingClientRect();
  const scale = Math.max(0.1, Math.min(8, view.scale * factor));
  const px = clientX - box.left;
  const py = clientY - box.top;
  view.x += px / view.scale - px / scale;
  view.y += py / view.scale - py / scale;
  view.scale = scale;
  applyView();
}

function zoomCentre(factor) {
  const box = drawing()?.getBoundingClientRect();
  if (box) zoomAt(factor, box.left + box.width / 2, box.top + box.height / 2);
}

// Pan so that a node of the drawing (the one running) is in the window, if it is not.
function reveal(element) {
  const svg = drawing();
  if (!svg || !element) return;
  const box = element.getBBox();
  const shown = svg.viewBox.baseVal;
  const inside = box.x >= shown.x && box.x + box.width <= shown.x + shown.width
    && box.y >= shown.y && box.y + box.height <= shown.y + shown.height;
  if (inside) return;
  view.x = Math.max(0, box.x + box.width / 2 - shown.width / 2);
  view.y = Math.max(0, box.y + box.height / 2 - shown.height / 2);
  applyView();
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
  $("zoom-fit").addEventListener("click", fitView);
}
