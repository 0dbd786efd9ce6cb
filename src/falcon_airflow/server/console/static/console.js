// Falcon's console: the entity list and an entity's page. Every piece of entity text reaches the page through
// textContent (never innerHTML), so a definition, a tag or a name is always shown as text, never read as markup.
"use strict";

const PAGE_SIZE = 50;
const state = { sort: "name", descending: false, offset: 0 };

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function followTheme() {
  // The page is in Airflow's iframe, on Airflow's origin: Airflow's UI marks its dark theme on its <html>.
  let dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  try {
    const root = window.parent.document.documentElement;
    if (window.parent !== window) {
      dark = root.classList.contains("dark") || root.dataset.theme === "dark" || root.style.colorScheme === "dark";
    }
  } catch (ignored) { /* another origin: keep the browser's preference */ }
  document.documentElement.dataset.theme = dark ? "dark" : "light";
}

function watchTheme() {
  // Airflow's UI (next-themes) switches its theme by the class and color-scheme of its <html>: follow each switch.
  try {
    if (window.parent === window) return;
    new MutationObserver(followTheme).observe(window.parent.document.documentElement,
      { attributes: true, attributeFilter: ["class", "style", "data-theme"] });
  } catch (ignored) { /* another origin: nothing to watch */ }
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function getJson(path) {
  const response = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(body.error || body.errorMessage || body.message || `HTTP ${response.status}`);
  return body;
}

function openInAirflow(event, url) {
  // Airflow's frame is sandboxed without top navigation: its own router (same origin) is asked to show the page,
  // as its links do, so the DAG opens in the whole window; elsewhere the link opens here.
  try {
    const top = window.parent;
    if (top === window) return;
    const index = ((top.history.state && top.history.state.idx) || 0) + 1;
    top.history.pushState({ usr: null, key: Math.random().toString(36).slice(2, 10), idx: index }, "", url);
    top.dispatchEvent(new PopStateEvent("popstate", { state: top.history.state }));
    event.preventDefault();
  } catch (ignored) { /* another origin: follow the link in the frame */ }
}

function entityHref(type, name) {
  return `#/entity/${encodeURIComponent(type)}/${encodeURIComponent(name)}`;
}

// -- the list --------------------------------------------------------------------------------------------------

// The list's filters change it only while the page shows the list: a filter's change or a late answer must never
// take the user back from an entity's page they opened meanwhile.
function onEntityRoute() {
  return /^#\/entity\//.test(location.hash);
}

async function showList() {
  if (onEntityRoute()) return;
  document.getElementById("entity-view").hidden = true;
  document.getElementById("list-view").hidden = false;
  const form = new FormData(document.getElementById("filters"));
  const params = new URLSearchParams();
  for (const key of ["type", "status", "tag", "q"]) {
    const value = String(form.get(key) || "").trim();
    if (value) params.set(key, value);
  }
  params.set("sort", (state.descending ? "-" : "") + state.sort);
  params.set("offset", String(state.offset));
  params.set("limit", String(PAGE_SIZE));
  let page;
  try {
    page = await getJson(`api/entities?${params}`);
    if (onEntityRoute()) return;
    showError("");
  } catch (problem) {
    if (!onEntityRoute()) showError(problem.message);
    return;
  }
  const body = document.querySelector("#entities tbody");
  body.replaceChildren();
  for (const entity of page.entities) {
    const row = el("tr");
    row.dataset.type = entity.type;
    row.dataset.name = entity.name;
    row.append(el("td", entity.type));
    const name = el("td");
    const link = el("a", entity.name);
    link.href = entityHref(entity.type, entity.name);
    name.append(link);
    row.append(name);
    const status = el("td", entity.status, `status-${entity.status}`);
    if (entity.rules.length) status.append(" ", el("span", `(${entity.rules.join(", ")})`, "rules"));
    row.append(status);
    const tags = el("td");
    for (const tag of entity.tags) tags.append(el("span", tag, "tag"));
    row.append(tags);
    row.append(el("td", entity.owner));
    body.append(row);
  }
  const last = Math.min(page.offset + page.entities.length, page.total);
  document.getElementById("range").textContent =
    page.total ? `${page.offset + 1}-${last} of ${page.total}` : "no entity matches";
  document.getElementById("previous").disabled = page.offset === 0;
  document.getElementById("next").disabled = last >= page.total;
  for (const button of document.querySelectorAll("th button")) {
    const sorted = button.dataset.sort === state.sort;
    if (sorted) button.setAttribute("aria-sort", state.descending ? "descending" : "ascending");
    else button.removeAttribute("aria-sort");
  }
}

// -- an entity -------------------------------------------------------------------------------------------------

// One token of the definition: a comment, a CDATA section, a declaration, a tag, or the text between tags.
const XML_TOKENS = /(<!--[\s\S]*?-->)|(<!\[CDATA\[[\s\S]*?\]\]>)|(<[?!][\s\S]*?>)|(<\/?[^>]*>)|([^<]+)/g;
const XML_ATTRIBUTES = /(\s+)([^\s=/>]+)(\s*=\s*)("[^"]*"|'[^']*')?/g;

function highlightTag(target, tag) {
  const open = tag.match(/^<\/?[^\s/>]*/)[0];
  target.append(el("span", open, "xml-tag"));
  let rest = tag.slice(open.length);
  const close = rest.match(/\/?>$/);
  const end = close ? close[0] : "";
  rest = rest.slice(0, rest.length - end.length);
  let position = 0;
  for (const match of rest.matchAll(XML_ATTRIBUTES)) {
    if (match.index > position) target.append(rest.slice(position, match.index));
    target.append(match[1], el("span", match[2], "xml-attr"), match[3]);
    if (match[4]) target.append(el("span", match[4], "xml-value"));
    position = match.index + match[0].length;
  }
  if (position < rest.length) target.append(rest.slice(position));
  if (end) target.append(el("span", end, "xml-tag"));
}

function highlightXml(target, text) {
  target.replaceChildren();
  for (const match of text.matchAll(XML_TOKENS)) {
    if (match[1] || match[3]) target.append(el("span", match[0], "xml-comment"));
    else if (match[2]) target.append(el("span", match[0], "xml-value"));
    else if (match[4]) highlightTag(target, match[0]);
    else target.append(match[0]);
  }
}

function fillList(id, items, render) {
  const list = document.getElementById(id);
  list.replaceChildren();
  if (!items.length) list.append(el("li", "none", "rules"));
  for (const item of items) {
    const line = el("li");
    render(line, item);
    list.append(line);
  }
}

async function showEntity(type, name) {
  document.getElementById("list-view").hidden = true;
  document.getElementById("entity-view").hidden = false;
  document.getElementById("entity-title").textContent = `${type} ${name}`;
  let entity;
  try {
    entity = await getJson(`api/entities/${encodeURIComponent(type)}/${encodeURIComponent(name)}`);
    showError("");
  } catch (problem) {
    showError(problem.message);
    return;
  }
  const facts = document.getElementById("entity-facts");
  facts.replaceChildren();
  const fact = (label, value) => facts.append(el("dt", label), el("dd", value || "-"));
  fact("Status", entity.status);
  fact("Owner", entity.owner);
  fact("Tags", entity.tags.join(", "));
  fact("Clusters", entity.clusters.join(", "));
  fillList("entity-issues", entity.issues, (line, rule) => line.append(el("span", rule, "status-INVALID")));
  fillList("entity-dags", entity.dags, (line, dag) => {
    const link = el("a", dag.dag_id);
    link.href = dag.url;
    link.addEventListener("click", (event) => openInAirflow(event, dag.url));
    line.append(link, ` ${dag.lifecycle.toLowerCase()} on ${dag.cluster}`);
  });
  const relation = (wanted) => entity.dependencies.filter((item) => item.relation === wanted);
  const dependency = (line, item) => {
    const link = el("a", item.name);
    link.href = entityHref(item.type, item.name);
    line.append(`${item.type} `, link);
    if (item.tag && item.tag.length) line.append(` (${item.tag.join(", ")})`);
  };
  fillList("entity-uses", relation("uses"), dependency);
  fillList("entity-used-by", relation("used by"), dependency);
  highlightXml(document.getElementById("entity-definition"), entity.definition);
}

// -- routing ---------------------------------------------------------------------------------------------------

function route() {
  const match = location.hash.match(/^#\/entity\/([^/]+)\/([^/]+)$/);
  if (match) showEntity(decodeURIComponent(match[1]), decodeURIComponent(match[2]));
  else showList();
}

function restart() {
  state.offset = 0;
  showList();
}

document.addEventListener("DOMContentLoaded", () => {
  followTheme();
  watchTheme();
  const form = document.getElementById("filters");
  form.addEventListener("change", restart);
  let typing;
  form.addEventListener("input", (event) => {
    if (event.target.tagName === "SELECT") return;  // a choice is a "change" already: one fetch, not two
    clearTimeout(typing);
    typing = setTimeout(restart, 250);
  });
  form.addEventListener("submit", (event) => { event.preventDefault(); restart(); });
  for (const button of document.querySelectorAll("th button")) {
    button.addEventListener("click", () => {
      state.descending = state.sort === button.dataset.sort ? !state.descending : false;
      state.sort = button.dataset.sort;
      restart();
    });
  }
  document.getElementById("previous").addEventListener("click", () => {
    state.offset = Math.max(0, state.offset - PAGE_SIZE); showList();
  });
  document.getElementById("next").addEventListener("click", () => { state.offset += PAGE_SIZE; showList(); });
  window.addEventListener("hashchange", route);
  route();
});
