// The graph views (a note's neighbourhood, the hubs), drawn with cytoscape: its
// concentric layout is deterministic and fast on a few hundred nodes, and a tap on
// a node opens the note. The same nodes are listed as links below the canvas, for
// the keyboard and for screen readers.
import type cytoscape from "cytoscape";
import { api, type Graph } from "./api";
import { errorBox, h, noteHref } from "./dom";

let cy: cytoscape.Core | null = null;

export interface GraphQuery { path: string; depth: number; types: string; max: number }

export function destroyGraph(): void {
  cy?.destroy();
  cy = null;
  (window as unknown as { nornGraph?: unknown }).nornGraph = undefined;
}

export async function renderGraph(view: HTMLElement, g: GraphQuery): Promise<void> {
  destroyGraph();
  const hubs = g.path === "";
  const form = controls(g, hubs);
  const canvas = h("div", { id: "graph", class: "graph", role: "img", "aria-label": hubs ? "Hubs graph" : `Graph around ${g.path}` });
  const list = h("div", { class: "graph-list" });
  view.replaceChildren(h("h1", {}, hubs ? "Hubs" : "Graph: " + g.path), form, canvas, list);
  await loadGraph(g, canvas, list);
}

// refreshGraph reloads the open graph (a commit landed); nothing if none is open.
export async function refreshGraph(g: GraphQuery): Promise<void> {
  const canvas = document.getElementById("graph");
  const list = document.querySelector<HTMLElement>(".graph-list");
  if (!cy || !canvas || !list) return;
  await loadGraph(g, canvas, list);
}

async function loadGraph(g: GraphQuery, canvas: HTMLElement, list: HTMLElement): Promise<void> {
  let data: Graph;
  try {
    data = g.path === "" ? await api.hubs(g.max) : await api.graph(g.path, g.depth, g.types, g.max);
  } catch (err) {
    list.replaceChildren(errorBox(err));
    return;
  }
  await draw(canvas, data);
  list.replaceChildren(
    h("p", { class: "muted" }, `${data.nodes.length} notes, ${data.edges.length} links${data.truncated ? " (truncated: raise max)" : ""}`),
    h("ul", { class: "graph-nodes" }, ...data.nodes.map((n) =>
      h("li", {}, h("a", { href: noteHref(n.id), "data-path": n.id }, n.title || n.id), h("span", { class: "muted" }, ` ${n.degree}`)))));
  canvas.dataset.nodes = String(data.nodes.length);
}

// loadCytoscape loads the graph library on first use: a chunk of its own, so the
// other views never fetch or parse it.
let lib: Promise<typeof cytoscape> | null = null;
function loadCytoscape(): Promise<typeof cytoscape> {
  lib ??= import("cytoscape").then((m) => m.default);
  return lib;
}

async function draw(canvas: HTMLElement, data: Graph): Promise<void> {
  const ids = new Set(data.nodes.map((n) => n.id));
  const elements: cytoscape.ElementDefinition[] = [
    ...data.nodes.map((n) => ({ data: { id: n.id, label: n.title || n.id, degree: n.degree }, classes: n.center ? "center" : "" })),
    ...data.edges.filter((e) => ids.has(e.source) && ids.has(e.target)).map((e, i) => ({
      data: { id: `e${i}`, source: e.source, target: e.target, type: e.type }, classes: e.type && e.type !== "link" ? "typed" : "",
    })),
  ];
  const layout: cytoscape.LayoutOptions = {
    name: "concentric", animate: false, minNodeSpacing: 12,
    concentric: (n: cytoscape.NodeSingular) => (n.hasClass("center") ? 1000 : Number(n.data("degree")) || 0),
  } as cytoscape.LayoutOptions;
  if (cy) {
    cy.elements().remove();
    cy.add(elements);
    cy.layout(layout).run();
    return;
  }
  noInlineStyle();
  const make = await loadCytoscape();
  if (!canvas.isConnected) return; // the view changed meanwhile
  cy = make({
    container: canvas, elements, layout,
    minZoom: 0.2, maxZoom: 3, wheelSensitivity: 0.3,
    style: [
      { selector: "node", style: { label: "data(label)", "font-size": 10, "background-color": "#5b7db1", color: "#222", width: "mapData(degree, 0, 40, 10, 36)", height: "mapData(degree, 0, 40, 10, 36)", "text-valign": "bottom", "text-margin-y": 3 } },
      { selector: "node.center", style: { "background-color": "#c2562f" } },
      { selector: "edge", style: { width: 1, "line-color": "#b8c1cc", "curve-style": "straight", "target-arrow-shape": "triangle", "target-arrow-color": "#b8c1cc", "arrow-scale": 0.6 } },
      { selector: "edge.typed", style: { "line-color": "#8a63b5", "target-arrow-color": "#8a63b5", label: "data(type)", "font-size": 8, color: "#8a63b5" } },
    ],
  });
  cy.on("tap", "node", (e) => { location.hash = noteHref(e.target.id()); });
  (window as unknown as { nornGraph?: unknown }).nornGraph = cy; // the browser tests find a node's position here
}

// noInlineStyle keeps cytoscape from adding its one-rule <style> element, which
// the page's Content-Security-Policy (no inline style) would refuse: it adds one
// only when no element has its id, and app.css carries the rule itself.
function noInlineStyle(): void {
  const id = "__________cytoscape_stylesheet";
  if (!document.getElementById(id)) document.head.append(h("meta", { id, name: "cytoscape-style", content: "in app.css" }));
}

function controls(g: GraphQuery, hubs: boolean): HTMLElement {
  const max = h("input", { type: "number", name: "max", min: 1, max: 2000, value: g.max, "aria-label": "Most nodes" });
  const depth = h("input", { type: "number", name: "depth", min: 1, max: 4, value: g.depth, "aria-label": "Depth" });
  const types = h("input", { type: "text", name: "types", value: g.types, placeholder: "all types (e.g. supports,refines)", "aria-label": "Edge types" });
  const form = h("form", { class: "graph-controls" },
    hubs ? null : [h("label", {}, "Depth ", depth), h("label", {}, "Types ", types)],
    h("label", {}, "Max ", max),
    h("button", { type: "submit" }, "Show"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const p = new URLSearchParams({ max: max.value });
    if (!hubs) { p.set("depth", depth.value); if (types.value.trim()) p.set("types", types.value.trim()); }
    location.hash = (hubs ? "#/hubs" : "#/graph/" + encodeURI(g.path)) + "?" + p.toString();
  });
  return form;
}
