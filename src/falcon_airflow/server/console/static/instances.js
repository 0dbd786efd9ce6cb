// Falcon's console: the instances of the entity the page shows. A feed: a grid of instance times x clusters, each
// cell's state (available, missing, late, replicating, replicated, evicted ...) and path. A process: its instances
// with state, run, duration, each task's try and log link, and for a waiting one the reason down to its root cause.
// Entity text reaches the page through textContent only (el() of console.js).
"use strict";

const instanceView = { type: null, name: null, start: "", end: "" };

function instancesSection() {
  return document.getElementById("entity-instances");
}

function airflowLink(text, url) {
  const link = el("a", text);
  link.href = url;
  link.addEventListener("click", (event) => openInAirflow(event, url));
  return link;
}

function formatDuration(seconds) {
  if (seconds === null || seconds === undefined) return "-";
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes}m ${whole % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

function stateClass(state) {
  return `state state-${String(state).replace(/[^a-z]+/gi, "-").toLowerCase()}`;
}

function feedCell(cell) {
  const box = el("td");
  if (!cell) {
    box.append(el("span", "-", "rules"));
    return box;
  }
  box.dataset.state = cell.state;
  box.className = "instance-cell";
  // the feed's instance actions act on the runs that brought the instance here (replication, import)
  const arrived = cell.runs.filter((run) => run.direction !== "out");
  if (arrived.length) {
    box.dataset.actionStatus = arrived[arrived.length - 1].status;
    box.dataset.lifecycle = arrived[arrived.length - 1].lifecycle;
  }
  box.append(el("span", cell.state, stateClass(cell.state)));
  const others = cell.facts.filter((fact) => fact !== cell.state);
  if (others.length) box.append(" ", el("span", `(${others.join(", ")})`, "rules"));
  const where = cell.partition || cell.path;
  if (where) box.append(el("div", where, "path"));
  if (cell.size !== null && cell.size !== undefined) box.append(el("div", `${cell.size} bytes`, "rules"));
  if (cell.evicted) {
    const line = el("div", "evicted by ", "rules");
    line.append(cell.evicted.url ? airflowLink(cell.evicted.by, cell.evicted.url) : cell.evicted.by);
    if (cell.evicted.at) line.append(` at ${cell.evicted.at}`);
    if (cell.evicted.archivedTo) line.append(`, archived to ${cell.evicted.archivedTo}`);
    box.append(line);
  }
  for (const run of cell.runs) {
    const line = el("div", `${run.lifecycle.toLowerCase()} ${run.status}`, "rules");
    if (run.direction === "out") line.append(` to ${run.targetCluster}`);
    else if (run.sourceCluster) line.append(` from ${run.sourceCluster}`);
    if (run.url) line.append(" ", airflowLink("run", run.url));
    box.append(line);
  }
  if (cell.details) box.append(el("div", cell.details, "rules"));
  return box;
}

function renderFeedGrid(target, grid) {
  const legend = el("p", "States: ", "rules");
  legend.append(...grid.states.flatMap((state) => [el("span", state, stateClass(state)), " "]));
  const table = el("table");
  table.id = "instance-grid";
  const head = el("tr");
  head.append(el("th", "Instance"));
  for (const cluster of grid.clusters) head.append(el("th", cluster));
  table.append(el("thead"));
  table.tHead.append(head);
  const body = el("tbody");
  const cells = new Map(grid.cells.map((cell) => [`${cell.instance}\u0000${cell.cluster}`, cell]));
  for (const instance of grid.instances) {
    const row = el("tr");
    row.dataset.instance = instance;
    row.append(el("td", instance));
    for (const cluster of grid.clusters) {
      const cell = feedCell(cells.get(`${instance}\u0000${cluster}`));
      cell.dataset.cluster = cluster;
      row.append(cell);
    }
    body.append(row);
  }
  table.append(body);
  target.append(legend, table);
  if (!grid.instances.length) target.append(el("p", "no instance in this window", "rules"));
  for (const note of grid.notes || []) target.append(el("p", note, "rules"));
}

function renderTriage(node, depth) {
  // The triage walk: a process instance, its missing input instances, their producers, down to the root cause.
  const item = el("li");
  if (node.missingInputs !== undefined) {
    item.append(el("span", `process ${node.name} ${node.instance} on ${node.cluster}: `),
      el("span", node.status, stateClass(node.status)));
    if (node.note) item.append(el("div", node.note, "rules"));
    const inner = el("ul");
    for (const missing of node.missingInputs) inner.append(renderTriage(missing, depth + 1));
    for (const lost of node.missingOutputs || []) {
      inner.append(el("li", `output ${lost.feed} ${lost.instance} on ${lost.cluster} is gone: ${lost.cause}`));
    }
    if (inner.childElementCount) item.append(inner);
  } else {
    item.append(el("span", `waits for feed ${node.feed} ${node.instance} on ${node.cluster}`),
      el("div", node.path, "path"));
    if (node.gone) item.append(el("div", node.gone, "rules"));
    const inner = el("ul");
    if (!node.producers.length) inner.append(el("li", "nothing produces it: expected from outside", "root-cause"));
    for (const producer of node.producers) inner.append(renderTriage(producer, depth + 1));
    item.append(inner);
  }
  return item;
}

function renderProcessInstances(target, answer) {
  const table = el("table");
  table.id = "process-instances";
  const head = el("tr");
  for (const title of ["Instance", "Cluster", "Status", "Run", "Duration", "Tasks (try, log)", "Reason",
    "Actions"]) {
    head.append(el("th", title));
  }
  table.append(el("thead"));
  table.tHead.append(head);
  const body = el("tbody");
  for (const item of answer.instances) {
    const row = el("tr");
    row.dataset.instance = item.instance;
    row.dataset.status = item.status;
    const instance = el("td");
    instance.append(item.url ? airflowLink(item.instance, item.url) : item.instance);
    row.append(instance, el("td", item.cluster));
    row.append(el("td", item.status, stateClass(item.status)));
    row.append(el("td", item.run === null || item.run === undefined ? "-" : item.run));
    row.append(el("td", formatDuration(item.duration)));
    const tasks = el("td");
    for (const task of item.tasks) {
      const line = el("div");
      const label = `${task.task} (try ${task.try ?? "-"}, ${task.status.toLowerCase()})`;
      line.append(task.log ? airflowLink(label, task.log) : label);
      tasks.append(line);
    }
    row.append(tasks);
    const reason = el("td", null, "reason");
    if (item.details) reason.append(el("div", item.details));
    if (item.triage && item.triage.graph) {
      const tree = el("ul", null, "triage");
      tree.append(renderTriage(item.triage.graph, 0));
      reason.append(tree);
    } else if (item.triage && item.triage.error) {
      reason.append(el("div", item.triage.error, "rules"));
    }
    row.append(reason);
    row.dataset.cluster = item.cluster;
    row.dataset.actionStatus = item.status;  // actions.js adds the buttons this status and the user's rights allow
    row.append(el("td", null, "instance-actions"));
    body.append(row);
  }
  table.append(body);
  target.append(table);
  if (!answer.instances.length) target.append(el("p", "no instance in this window", "rules"));
}

async function showInstances(type, name) {
  const section = instancesSection();
  if (!section) return;
  const content = document.getElementById("instances-content");
  instanceView.type = type;
  instanceView.name = name;
  section.hidden = !(type === "feed" || type === "process");
  if (section.hidden) return;
  const params = new URLSearchParams();
  if (instanceView.start) params.set("start", instanceView.start);
  if (instanceView.end) params.set("end", instanceView.end);
  content.replaceChildren(el("p", "loading ...", "rules"));
  let answer;
  try {
    answer = await getJson(`api/instances/${encodeURIComponent(type)}/${encodeURIComponent(name)}?${params}`);
  } catch (problem) {
    content.replaceChildren(el("p", problem.message, "error-text"));
    return;
  }
  if (instanceView.type !== type || instanceView.name !== name) return;  // another entity opened meanwhile
  content.replaceChildren(el("p", `${answer.start} to ${answer.end}`, "rules"));
  if (type === "feed") renderFeedGrid(content, answer);
  else renderProcessInstances(content, answer);
  content.dataset.loaded = `${type}/${name}`;
  if (window.falconActions) window.falconActions.decorate();
}

function routeInstances() {
  const match = location.hash.match(/^#\/entity\/([^/]+)\/([^/]+)$/);
  const section = instancesSection();
  if (!match) {
    if (section) section.hidden = true;
    return;
  }
  const [type, name] = [decodeURIComponent(match[1]), decodeURIComponent(match[2])];
  if (type !== instanceView.type || name !== instanceView.name) {
    // another entity: its own latest instances, not the window chosen for the previous one
    instanceView.start = instanceView.end = "";
    document.getElementById("instances-window").reset();
  }
  showInstances(type, name);
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("instances-window");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    instanceView.start = String(data.get("start") || "").trim();
    instanceView.end = String(data.get("end") || "").trim();
    if (instanceView.type) showInstances(instanceView.type, instanceView.name);
  });
  window.addEventListener("hashchange", routeInstances);
  routeInstances();
});
