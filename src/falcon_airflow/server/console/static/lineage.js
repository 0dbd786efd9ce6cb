// Falcon's console: the lineage of the entity the page shows, drawn as SVG here (no library): its entity graph,
// the graph of its recent instances, a feed's columns (upstream columns, transformation types, history) and an
// Oozie process's workflow. Zoom with the wheel or the buttons, pan by dragging. Every label is set as text.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const lineageView = { type: null, name: null };

function svgEl(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function zoomable(svg, width, height) {
  // The view box is the camera: the wheel scales it around the pointer, a drag moves it.
  const view = { x: 0, y: 0, w: width, h: height };
  const apply = () => svg.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
  const zoom = (factor, cx, cy) => {
    const next = Math.min(Math.max(view.w * factor, width / 20), width * 20);
    const scale = next / view.w;
    view.x = cx - (cx - view.x) * scale;
    view.y = cy - (cy - view.y) * scale;
    view.w = next;
    view.h *= scale;
    apply();
  };
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const box = svg.getBoundingClientRect();
    const cx = view.x + (event.clientX - box.left) / box.width * view.w;
    const cy = view.y + (event.clientY - box.top) / box.height * view.h;
    zoom(event.deltaY > 0 ? 1.15 : 1 / 1.15, cx, cy);
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", (event) => {
    if (event.target.closest && event.target.closest("a")) return;
    drag = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y };
    svg.setPointerCapture(event.pointerId);
  });
  svg.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const box = svg.getBoundingClientRect();
    view.x = drag.vx - (event.clientX - drag.x) / box.width * view.w;
    view.y = drag.vy - (event.clientY - drag.y) / box.height * view.h;
    apply();
  });
  svg.addEventListener("pointerup", () => { drag = null; });
  apply();
  const controls = el("div", null, "zoom-controls");
  const button = (label, title, act) => {
    const node = el("button", label);
    node.type = "button";
    node.title = title;
    node.addEventListener("click", act);
    controls.append(node);
  };
  button("+", "zoom in", () => zoom(1 / 1.25, view.x + view.w / 2, view.y + view.h / 2));
  button("\u2212", "zoom out", () => zoom(1.25, view.x + view.w / 2, view.y + view.h / 2));
  button("fit", "show everything", () => { Object.assign(view, { x: 0, y: 0, w: width, h: height }); apply(); });
  return controls;
}

function bezierAt(points, t) {
  // A point of the cubic curve through the four points, at t in [0, 1].
  const u = 1 - t;
  const weights = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t];
  return [0, 1].map((axis) => weights.reduce((sum, weight, index) => sum + weight * points[index][axis], 0));
}

function curve(from, to, height) {
  // Sideways between columns, around when the target is not to the right. The label sits a third of the way
  // along: edges that meet at one node (the feeds stored on a cluster) keep their labels apart.
  let points;
  const sx = from.x + from.width, sy = from.y + height / 2;
  const tx = to.x, ty = to.y + height / 2;
  if (tx > sx) {
    const bend = Math.max(30, (tx - sx) / 2);
    points = [[sx, sy], [sx + bend, sy], [tx - bend, ty], [tx, ty]];
  } else {
    const ax = from.x + from.width / 2, ay = from.y + height;
    const bx = to.x + to.width / 2, by = to.y;
    points = [[ax, ay], [ax, ay + 40], [bx, by - 40], [bx, by]];
  }
  const [mx, my] = bezierAt(points, 0.35);
  const d = `M${points[0].join(",")} C${points[1].join(",")} ${points[2].join(",")} ${points[3].join(",")}`;
  return { d, mx, my };
}

function drawGraph(target, graph, options) {
  // graph: {width, height, nodeHeight, nodes: [{id, type, name, x, y, width, attributes}], edges: [{from, to, label}]}
  const figure = el("div", null, "graph");
  if (!graph.nodes.length) {
    target.append(el("p", options.empty, "rules"));
    return;
  }
  const svg = svgEl("svg", { role: "img", "aria-label": options.title, class: "graph-svg",
    preserveAspectRatio: "xMinYMin meet" });
  svg.style.height = `${Math.min(Math.max(graph.height, 160), 520)}px`;
  const defs = svgEl("defs");
  const marker = svgEl("marker", { id: `${options.id}-arrow`, viewBox: "0 0 10 10", refX: 10, refY: 5,
    markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
  marker.append(svgEl("path", { d: "M0,0 L10,5 L0,10 z", class: "graph-arrow" }));
  defs.append(marker);
  svg.append(defs);
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const edges = svgEl("g", { class: "graph-edges" });
  for (const edge of graph.edges) {
    const from = byId.get(edge.from), to = byId.get(edge.to);
    if (!from || !to) continue;
    const shape = curve(from, to, graph.nodeHeight);
    const group = svgEl("g", { class: `graph-edge edge-${String(edge.label).split(" ")[0].replace(/[^a-z-]/gi, "")}` });
    group.append(svgEl("path", { d: shape.d, "marker-end": `url(#${options.id}-arrow)` }));
    if (edge.label) group.append(svgEl("text", { x: shape.mx, y: shape.my - 4, "text-anchor": "middle" }, edge.label));
    edges.append(group);
  }
  const nodes = svgEl("g", { class: "graph-nodes" });
  for (const node of graph.nodes) {
    const kind = (node.attributes && node.attributes.job) || node.type;
    const group = svgEl("g", { class: `graph-node node-${kind}${node.attributes && node.attributes.selected ? " selected" : ""}` });
    group.dataset.id = node.id;
    group.append(svgEl("rect", { x: node.x, y: node.y, width: node.width, height: graph.nodeHeight, rx: 5 }));
    const label = svgEl("text", { x: node.x + node.width / 2, y: node.y + graph.nodeHeight / 2 + 4,
      "text-anchor": "middle" }, node.name);
    const title = svgEl("title", {}, [node.type, node.name, ...Object.entries(node.attributes || {})
      .map(([key, value]) => `${key}: ${value}`)].join("\n"));
    group.append(title);
    if (node.type === "feed" || node.type === "process" || node.type === "cluster") {
      const link = svgEl("a", { href: entityHref(node.type, node.name) });
      link.append(label);
      group.append(link);
    } else {
      group.append(label);
    }
    nodes.append(group);
  }
  svg.append(edges, nodes);
  figure.append(zoomable(svg, graph.width, graph.height), svg);
  target.append(figure);
}

function drawWorkflow(target, workflow) {
  if (workflow.error) {
    target.append(el("p", workflow.error, "error-text"));
    return;
  }
  const width = 150, height = 44, columnGap = 70, rowGap = 26, margin = 20;
  const nodes = workflow.nodes.map((node) => ({
    id: node.name, type: node.type.split(":")[0], name: node.name, attributes: { type: node.type },
    x: margin + node.column * (width + columnGap), y: margin + node.row * (height + rowGap), width }));
  const right = Math.max(...nodes.map((node) => node.x + width)) + margin;
  const bottom = Math.max(...nodes.map((node) => node.y + height)) + margin;
  drawGraph(target, { width: right, height: bottom, nodeHeight: height, nodes,
    edges: workflow.edges.map((edge) => ({ from: edge.from, to: edge.to, label: edge.kind })) },
  { id: "workflow", title: `workflow ${workflow.name}`, empty: "the workflow has no node" });
}

function columnStep(step) {
  const line = el("li");
  line.append(el("span", `${step.from.where} `, "rules"), el("code", step.from.field), " \u2192 ",
    el("span", `${step.to.where} `, "rules"), el("code", step.to.field), " ");
  for (const kind of step.transformations) line.append(el("span", kind, "transformation"), " ");
  if (step.datasetLevel) line.append(el("span", "(whole dataset)", "rules"), " ");
  if (step.job) line.append(el("span", step.job, "rules"));
  return line;
}

function historyRow(row) {
  const line = el("li");
  line.append(el("span", row.operation, `operation operation-${row.operation}`), " ",
    el("span", `${row.where} ${row.instances.join(", ")}`));
  for (const source of row.from || []) {
    line.append(" \u2190 ", el("code", `${source.where}.${source.field}`), ` ${source.transformations.join(" ")}`);
  }
  if (row.to) line.append(" \u2192 ", el("code", `${row.to.where}.${row.to.field || ""}`));
  if (row.job) line.append(" ", el("span", `${row.job} ${row.at || ""}`, "rules"));
  return line;
}

function renderColumns(target, columns) {
  if (!columns.length) {
    target.append(el("p", "no column lineage recorded for this feed yet (its Spark jobs' OpenLineage events)",
      "rules"));
    return;
  }
  const table = el("table");
  table.id = "column-lineage";
  const head = el("tr");
  for (const title of ["Column", "Upstream columns (transformation, job)", "History"]) head.append(el("th", title));
  table.append(el("thead"));
  table.tHead.append(head);
  const body = el("tbody");
  for (const column of columns) {
    const row = el("tr");
    row.dataset.column = column.name;
    row.append(el("td", column.name, "column-name"));
    const upstream = el("td");
    const steps = el("ul", null, "upstream");
    for (const step of column.upstream) steps.append(columnStep(step));
    if (!column.upstream.length) steps.append(el("li", "none recorded", "rules"));
    upstream.append(steps);
    const history = el("td");
    const rows = el("ul", null, "history");
    for (const item of column.history) rows.append(historyRow(item));
    history.append(rows);
    row.append(upstream, history);
    body.append(row);
  }
  table.append(body);
  target.append(table);
}

async function showLineage(type, name, instance) {
  const section = document.getElementById("entity-lineage");
  if (!section) return;
  lineageView.type = type;
  lineageView.name = name;
  const parts = Object.fromEntries(["entities", "instances", "columns", "workflow"].map(
    (key) => [key, document.getElementById(`lineage-${key}`)]));
  for (const part of Object.values(parts)) part.replaceChildren();
  parts.entities.append(el("p", "loading ...", "rules"));
  const query = instance ? `?instance=${encodeURIComponent(instance)}` : "";
  let answer;
  try {
    answer = await getJson(`api/lineage/${encodeURIComponent(type)}/${encodeURIComponent(name)}${query}`);
  } catch (problem) {
    parts.entities.replaceChildren(el("p", problem.message, "error-text"));
    return;
  }
  if (lineageView.type !== type || lineageView.name !== name) return;
  parts.entities.replaceChildren(el("h4", "Entities"));
  drawGraph(parts.entities, answer.entities, { id: "entities", title: `lineage of ${type} ${name}`,
    empty: "no related entity" });
  parts.instances.parentElement.hidden = !answer.instances;
  if (answer.instances) {
    parts.instances.append(el("h4", "Instances"));
    const picker = el("select");
    picker.setAttribute("aria-label", "instance");
    picker.append(el("option", `the newest ${answer.instances.shown.length}`));
    picker.firstChild.value = "";
    for (const moment of [...answer.instances.instances].reverse()) {
      const option = el("option", moment);
      option.value = moment;
      option.selected = instance === moment;
      picker.append(option);
    }
    picker.addEventListener("change", () => showLineage(type, name, picker.value));
    parts.instances.append(picker);
    drawGraph(parts.instances, answer.instances, { id: "instances", title: `instances of ${type} ${name}`,
      empty: "no instance of it in the lineage events yet" });
  }
  parts.columns.parentElement.hidden = !answer.columns;
  if (answer.columns) {
    parts.columns.append(el("h4", "Columns"));
    renderColumns(parts.columns, answer.columns);
  }
  parts.workflow.parentElement.hidden = !answer.workflow;
  if (answer.workflow) {
    parts.workflow.append(el("h4", `Oozie workflow ${answer.workflow.name || ""}`));
    drawWorkflow(parts.workflow, answer.workflow);
  }
  section.dataset.loaded = `${type}/${name}`;
}

function routeLineage() {
  const match = location.hash.match(/^#\/entity\/([^/]+)\/([^/]+)$/);
  const section = document.getElementById("entity-lineage");
  if (section) section.hidden = !match;
  if (match) showLineage(decodeURIComponent(match[1]), decodeURIComponent(match[2]), "");
}

document.addEventListener("DOMContentLoaded", () => {
  window.addEventListener("hashchange", routeLineage);
  routeLineage();
});
