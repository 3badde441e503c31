// The stepper in a notebook (tg.widget): the playground's drawing and walk of the backward (or
// forward) pass, for a Value built in Python. topograd/notebook/stepper.py composes this file
// after graph.js, nodes.js, stepper.js and zoom.js into render(), the widget's entry point,
// where $ finds this widget's own elements (by their ids behind its prefix, state.scope),
// state is its own and model is its link to Python
// (the graph's data, and the step shown, which either side may set).
"use strict";

// The walk moved a step: Python's widget.step follows.
function walkMoved() {
  if (model.get("step") !== state.step) {
    model.set("step", state.step);
    model.save_changes();
  }
}

function show() {
  state.data = model.get("data");
  $("value").textContent = valueLine(state.data);
  // topograd's own SVG, its labels escaped in Python: top to bottom in a narrow cell
  const down = el.classList.contains("tg-narrow") && state.data.svg_down;
  $("graph").innerHTML = down ? state.data.svg_down : state.data.svg;
  scopeIds($("graph"), state.scope);
  setUpView($("graph").querySelector("svg"), state.data.expr);
  showLegend(state.data.legend);
  explainNodes();
  renderGradients(state.data);
  follow();
}

// Show the step Python asked for (and only then stop a Play: stopping tells Python the step
// shown, which must be the new one).
function follow() {
  showStep(model.get("step"));
  stop();
}

// Every id under `root` made this widget's own, behind its prefix (data-id keeps the name its
// styles read), and the drawing's references to its arrows with them: a notebook may show
// several widgets, or one widget twice, and a document's ids must stay unique.
function scopeIds(root, scope) {
  for (const element of root.querySelectorAll("[id]")) {
    element.dataset.id = element.id;
    element.id = scope + element.id;
  }
  for (const element of root.querySelectorAll("[marker-end], [marker-start]")) {
    for (const name of ["marker-end", "marker-start"]) {
      const value = element.getAttribute(name);
      if (value) element.setAttribute(name, value.replace("url(#", `url(#${scope}`));
    }
  }
}

function start() {
  scopeIds(el, state.scope);
  el.classList.add("topograd-widget");
  el.tabIndex = 0; // → Step, ← Back, space Play once the widget has the focus
  $("step").addEventListener("click", () => { stop(); stepOn(); });
  $("back").addEventListener("click", () => { stop(); showStep(state.step - 1); });
  $("play").addEventListener("click", play);
  $("reset").addEventListener("click", () => { stop(); showStep(0); });
  $("skip-inputs").addEventListener("change", () => showStep(0));
  $("pass").addEventListener("change", () => { stop(); showStep(0); });
  el.addEventListener("keydown", keys);
  listenForViews();
  // a cell as narrow as a phone's screen (laid out: 0 is not yet) lays the widget out for one
  const resized = new ResizeObserver(() => {
    const narrow = el.clientWidth > 0 && el.clientWidth <= NARROW_WIDTH;
    if (narrow === el.classList.contains("tg-narrow")) return;
    el.classList.toggle("tg-narrow", narrow);
    show();
  });
  resized.observe(el);
  model.on("change:step", () => {
    if (model.get("step") !== state.step) follow();
  });
  model.on("change:data", show);
  show();
  return () => {
    clearTimeout(state.timer);
    resized.disconnect();
  };
}
