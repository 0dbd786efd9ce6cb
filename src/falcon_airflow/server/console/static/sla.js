// Falcon's console: the SLA an entity declares (a feed's slaLow and slaHigh, a process's shouldStartIn and
// shouldEndIn; its own and each cluster's) and its instances that missed it lately (entity -slaAlert, on the
// server: console/sla_view.py). Every value is set as text.
"use strict";

const slaView = { type: null, name: null };

function renderSla(target, answer) {
  if (!answer.declared.length) {
    target.append(el("p", answer.applies ? "no SLA declared" : `a ${answer.type} has no SLA`, "rules"));
    return;
  }
  const limits = el("dl");
  limits.id = "sla-declared";
  for (const item of answer.declared) {
    limits.append(el("dt", item.cluster ? `on ${item.cluster}` : `the ${answer.type}`),
      el("dd", item.limits.map((limit) => `${limit.name} ${limit.value}`).join(", ")));
  }
  target.append(limits);
  const span = answer.window ? ` (instances from ${answer.window.start} to ${answer.window.end})` : "";
  target.append(el("h4", `Missed${span}`));
  if (answer.missesError) {
    target.append(el("p", `the misses could not be read: ${answer.missesError}`, "error-text"));
    return;
  }
  if (!answer.misses.length) {
    target.append(el("p", "no instance missed its SLA", "rules"));
    return;
  }
  const table = el("table");
  table.id = "sla-misses";
  const head = el("tr");
  head.append(el("th", "Instance"), el("th", "Cluster"), el("th", "Missed"));
  table.append(el("thead"), el("tbody"));
  table.tHead.append(head);
  for (const miss of answer.misses) {
    const row = el("tr");
    row.dataset.instance = miss.instanceTime;
    row.append(el("td", miss.instanceTime), el("td", miss.cluster), el("td", miss.tag, "state-late"));
    table.tBodies[0].append(row);
  }
  target.append(table);
}

async function showSla(type, name) {
  slaView.type = type;
  slaView.name = name;
  const target = document.getElementById("sla-content");
  target.replaceChildren();
  let answer;
  try {
    answer = await getJson(`api/sla/${encodeURIComponent(type)}/${encodeURIComponent(name)}`);
  } catch (problem) {
    if (slaView.type === type && slaView.name === name) target.append(el("p", problem.message, "error-text"));
    return;
  }
  if (slaView.type !== type || slaView.name !== name) return;  // another entity was opened meanwhile
  renderSla(target, answer);
  target.dataset.loaded = `${type}/${name}`;
}

function routeSla() {
  const match = location.hash.match(/^#\/entity\/([^/]+)\/([^/]+)$/);
  const section = document.getElementById("entity-sla");
  if (section) section.hidden = !match;
  if (match) showSla(decodeURIComponent(match[1]), decodeURIComponent(match[2]));
}

document.addEventListener("DOMContentLoaded", () => {
  window.addEventListener("hashchange", routeSla);
  routeSla();
});
