// Share and keep: the page's state (expression, values, step) lives in the URL's fragment, so a
// reload or a pasted link shows the same; and the graph downloads as SVG or as PNG, as it is
// shown. Loaded before app.js, which owns the page's state.
"use strict";

// expr=…&v.a=2&v.b=-3&step=2 (a value's key is its name after "v.", so no name is reserved)
function saveToAddress() {
  if (!state.data) return;
  const fields = new URLSearchParams();
  fields.set("expr", state.data.expr);
  for (const name of state.data.names) fields.set(`v.${name}`, String(state.values[name]));
  if (state.step) fields.set("step", String(state.step));
  if (forwardPass()) fields.set("pass", "forward");
  if (!$("skip-inputs").checked) fields.set("all", "1");
  history.replaceState(null, "", `#${fields}`);
}

// The state a link carries, or null.
function fromAddress() {
  const fields = new URLSearchParams(location.hash.slice(1));
  if (!fields.has("expr")) return null;
  const values = Object.create(null);
  for (const [key, text] of fields) {
    const x = Number(text);
    if (key.startsWith("v.") && text.trim() !== "" && Number.isFinite(x)) values[key.slice(2)] = x;
  }
  const step = Number(fields.get("step") ?? 0);
  const pass = fields.get("pass") === "forward" ? "forward" : "backward";
  const all = fields.get("all") === "1";
  return { expr: fields.get("expr"), values, pass, all, step: Number.isInteger(step) && step > 0 ? step : 0 };
}

function download(name, blob) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// The drawing as shown (the marks of the step too), standalone.
function svgText() {
  const shown = $("graph").querySelector("svg");
  const svg = shown.cloneNode(true);
  svg.setAttribute("xmlns", svg.namespaceURI);
  svg.setAttribute("width", shown.dataset.width); // the whole drawing, whatever the zoom
  svg.setAttribute("height", shown.dataset.height);
  svg.setAttribute("viewBox", `0 0 ${shown.dataset.width} ${shown.dataset.height}`);
  const style = document.createElementNS(svg.namespaceURI, "style");
  style.textContent = [...document.styleSheets]
    .flatMap((sheet) => [...sheet.cssRules])
    .map((rule) => rule.cssText)
    .filter((text) => /\.(node|edge|flow|running-sum)/.test(text))
    .join("\n")
    .replace(/var\((--[a-z-]+)\)/g, (_, name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim());
  svg.prepend(style);
  return new XMLSerializer().serializeToString(svg);
}

function downloadSvg() {
  download("topograd-graph.svg", new Blob([svgText()], { type: "image/svg+xml" }));
}

// The SVG drawn on a canvas at twice its size (a data: URL, which the page's policy allows).
function downloadPng() {
  const svg = $("graph").querySelector("svg");
  const scale = 2;
  const width = Number(svg.dataset.width) * scale;
  const height = Number(svg.dataset.height) * scale;
  const picture = new Image();
  picture.onload = () => {
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    context.fillStyle = "#ffffff";
    context.fillRect(0, 0, width, height);
    context.drawImage(picture, 0, 0, width, height);
    canvas.toBlob((blob) => download("topograd-graph.png", blob), "image/png");
  };
  const bytes = new TextEncoder().encode(svgText());
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  picture.src = `data:image/svg+xml;base64,${btoa(binary)}`;
}
