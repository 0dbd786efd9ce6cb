// Falcon's console: an entity's versions (who submitted each and when, who retired it, when and why) and the line
// diff of two of them, computed by the server (console/versions.py). Every line of a version is set as text.
"use strict";

const versionsView = { type: null, name: null };

function versionsPath(type, name) {
  return `api/versions/${encodeURIComponent(type)}/${encodeURIComponent(name)}`;
}

function who(by, at) {
  if (!by && !at) return "-";
  return [by, at].filter(Boolean).join(", ");
}

function fillVersionChoice(select, versions, chosen) {
  select.replaceChildren();
  for (const version of versions) {
    const option = el("option", version.current ? `${version.number} (in force)` : String(version.number));
    option.value = String(version.number);
    option.selected = version.number === chosen;
    select.append(option);
  }
}

async function showVersions(type, name) {
  versionsView.type = type;
  versionsView.name = name;
  const body = document.querySelector("#versions tbody");
  const diff = document.getElementById("versions-diff-content");
  body.replaceChildren();
  diff.replaceChildren();
  let answer;
  try {
    answer = await getJson(versionsPath(type, name));
  } catch (problem) {
    if (versionsView.type === type && versionsView.name === name) diff.append(el("p", problem.message, "error-text"));
    return;
  }
  if (versionsView.type !== type || versionsView.name !== name) return;  // another entity was opened meanwhile
  for (const version of [...answer.versions].reverse()) {
    const row = el("tr");
    row.dataset.version = String(version.number);
    row.append(el("td", version.current ? `${version.number} (in force)` : version.number),
      el("td", who(version.submittedBy, version.submittedAt)),
      el("td", version.current ? "-" : who(version.retiredBy, version.retiredAt)),
      el("td", version.retiredBecause || "-"));
    body.append(row);
  }
  const form = document.getElementById("versions-diff");
  const count = answer.versions.length;
  form.hidden = count < 2;
  fillVersionChoice(form.elements.from, answer.versions, Math.max(1, count - 1));
  fillVersionChoice(form.elements.to, answer.versions, count);
  if (count < 2) diff.append(el("p", "only one version: nothing to compare yet", "rules"));
  document.getElementById("entity-versions").dataset.loaded = `${type}/${name}`;
}

function diffRow(line) {
  const row = el("tr", undefined, `diff-${line.kind}`);
  const mark = { hunk: "", context: " ", removed: "-", added: "+" }[line.kind];
  row.append(el("td", line.old, "diff-number"), el("td", line.new, "diff-number"), el("td", mark, "diff-mark"),
    el("td", line.text, "diff-text"));
  return row;
}

async function showDiff(type, name, from, to) {
  const target = document.getElementById("versions-diff-content");
  target.replaceChildren();
  let answer;
  try {
    answer = await getJson(`${versionsPath(type, name)}/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  } catch (problem) {
    target.append(el("p", problem.message, "error-text"));
    return;
  }
  if (versionsView.type !== type || versionsView.name !== name) return;
  const title = el("h4", `version ${answer.from} to version ${answer.to}`);
  if (answer.identical) {
    target.append(title, el("p", "the two versions are the same", "rules"));
    return;
  }
  const table = el("table", undefined, "diff");
  table.id = "versions-diff-table";
  const body = el("tbody");
  for (const line of answer.lines) body.append(diffRow(line));
  table.append(body);
  target.append(title, table);
}

function routeVersions() {
  const match = location.hash.match(/^#\/entity\/([^/]+)\/([^/]+)$/);
  const section = document.getElementById("entity-versions");
  if (section) section.hidden = !match;
  if (match) showVersions(decodeURIComponent(match[1]), decodeURIComponent(match[2]));
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("versions-diff");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (versionsView.type) showDiff(versionsView.type, versionsView.name, form.elements.from.value, form.elements.to.value);
  });
  window.addEventListener("hashchange", routeVersions);
  routeVersions();
});
