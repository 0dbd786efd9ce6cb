// Falcon's console: the actions a user may take on an entity and its instances. The page asks the server which
// actions its authorization allows this user (api/actions/<type>/<name>) and shows a button for each of those only;
// the server decides again when the action is asked for. Every write carries the console's write token in a header
// (api/write-token), which the browser never sends by itself: Airflow's session cookie alone changes nothing.
// Messages reach the page through textContent only.
"use strict";

(function () {
  const ENTITY_ACTIONS = { schedule: "Schedule", suspend: "Suspend", resume: "Resume", delete: "Delete" };
  const INSTANCE_ACTIONS = { kill: "Kill", rerun: "Rerun", suspend: "Suspend", resume: "Resume" };
  const CONFIRM_MS = 5000;
  let current = "";  // "<type>/<name>" the buttons are for
  let offered = null;  // the server's answer for current: the allowed actions and the states each changes

  function node(tag, text, className) {
    const made = document.createElement(tag);
    if (text !== undefined && text !== null) made.textContent = String(text);
    if (className) made.className = className;
    return made;
  }

  function section() {
    let found = document.getElementById("entity-actions");
    if (!found) {
      found = node("section");
      found.id = "entity-actions";
      found.hidden = true;
      document.getElementById("entity-facts").after(found);
    }
    return found;
  }

  function path(type, name, ...rest) {
    return ["api/actions", encodeURIComponent(type), encodeURIComponent(name), ...rest].join("/");
  }

  async function readJson(response) {
    const body = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok) throw new Error(body.error || body.errorMessage || `HTTP ${response.status}`);
    return body;
  }

  async function writeHeaders() {
    const issued = await readJson(await fetch("api/write-token", {
      credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store" }));
    return { [issued.header]: issued.token };
  }

  async function post(url, body) {
    const headers = { Accept: "application/json", ...(await writeHeaders()) };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return readJson(await fetch(url, { method: "POST", credentials: "same-origin", headers,
      body: body === undefined ? undefined : JSON.stringify(body) }));
  }

  // outcome: "pending" while the request is out, then "done" or "refused" (what pages and tests wait for)
  function showResult(message, outcome) {
    const line = document.getElementById("action-result");
    if (!line) return;
    line.textContent = message;
    line.className = outcome === "refused" ? "status-INVALID" : "rules";
    line.dataset.outcome = outcome;
  }

  async function run(label, work, also) {
    const buttons = [...section().querySelectorAll("button"), ...(also ? also.querySelectorAll("button") : [])];
    for (const item of buttons) item.disabled = true;
    showResult(`${label}...`, "pending");
    try {
      const answer = await work();
      showResult(`${label}: ${answer.message || answer.status}`, "done");
      return true;
    } catch (problem) {
      showResult(`${label} refused: ${problem.message}`, "refused");
      return false;
    } finally {
      for (const item of buttons) item.disabled = false;
    }
  }

  async function entityAction(button, type, name, action) {
    if (action === "delete" && button.dataset.confirming !== "yes") {
      // Airflow's frame allows no dialogs: a second click within a few seconds confirms
      button.dataset.confirming = "yes";
      button.textContent = `Confirm delete of ${name}`;
      setTimeout(() => { button.dataset.confirming = ""; button.textContent = ENTITY_ACTIONS.delete; }, CONFIRM_MS);
      return;
    }
    const done = await run(`${ENTITY_ACTIONS[action]} ${type} ${name}`,
      () => post(path(type, name, action)));
    if (done && action === "delete") location.hash = "#/";
    else if (done) {
      if (typeof showEntity === "function") showEntity(type, name);  // console.js: the new status
      const said = document.getElementById("action-result").textContent;
      current = "";  // the new state offers other buttons (a suspended feed: resume)
      await follow();
      showResult(said, "done");
    }
  }

  async function instanceAction(type, name, action, start, end) {
    const label = `${INSTANCE_ACTIONS[action] || action} ${type} ${name} instances ${start} to ${end}`;
    return run(label, () => post(path(type, name, "instances", action), { start, end }));
  }

  function render(type, name, allowed) {
    const target = section();
    target.replaceChildren(node("h3", "Actions"));
    const entityButtons = node("p");
    entityButtons.id = "entity-action-buttons";
    for (const action of allowed.entity) {
      const button = node("button", ENTITY_ACTIONS[action] || action);
      button.type = "button";
      button.dataset.action = action;
      button.addEventListener("click", () => entityAction(button, type, name, action));
      entityButtons.append(button, " ");
    }
    if (allowed.entity.length) target.append(entityButtons);
    if (!allowed.entity.length && !allowed.instance.length) {
      target.append(node("p", `${allowed.user} may take no action on this ${type}.`, "rules"));
    }
    const result = node("p", "", "rules");
    result.id = "action-result";
    result.setAttribute("role", "status");
    target.append(result);
    target.hidden = false;
  }

  async function follow() {
    const match = location.hash.match(/^#\/entity\/([^/]+)\/([^/]+)$/);
    const target = section();
    if (!match) {
      current = "";
      target.hidden = true;
      target.replaceChildren();
      return;
    }
    const type = decodeURIComponent(match[1]);
    const name = decodeURIComponent(match[2]);
    const key = `${type}/${name}`;
    if (key === current && !target.hidden) return;
    current = key;
    offered = null;
    target.hidden = true;
    target.replaceChildren();
    try {
      const allowed = await readJson(await fetch(path(type, name), {
        credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store" }));
      if (current === key) {
        offered = { type, name, ...allowed };
        render(type, name, allowed);
        decorate();
      }
    } catch (ignored) {
      // an entity the user may not read or that is gone: console.js says so; no buttons
    }
  }

  // One instance's buttons: the actions the server allows this user that change an instance in this status
  // (allowed.instanceStates, the server's table), as the instances view shows it.
  function instanceButtons(status, instance, cluster, lifecycle) {
    const box = node("span", null, "instance-action-buttons");
    if (!offered || !status) return box;
    for (const action of offered.instance) {
      if (!(offered.instanceStates[action] || []).includes(String(status).toUpperCase())) continue;
      const button = node("button", INSTANCE_ACTIONS[action] || action);
      button.type = "button";
      button.dataset.instanceAction = action;
      const { type, name } = offered;
      button.addEventListener("click", async () => {
        const done = await run(`${INSTANCE_ACTIONS[action]} ${type} ${name} ${instance} on ${cluster}`,
          () => post(path(type, name, "instances", action), { instance, cluster, lifecycle }), box);
        if (done && typeof showInstances === "function") showInstances(type, name);  // instances.js: new states
      });
      box.append(button, " ");
    }
    return box;
  }

  // The instances view's rows (a process) and cells (a feed) carry data-instance, data-cluster and the status an
  // instance action acts on; each gets its buttons here, whichever of the two answers came last.
  function decorate() {
    const content = document.getElementById("instances-content");
    if (!content || !offered || content.dataset.loaded !== `${offered.type}/${offered.name}`) return;
    for (const target of content.querySelectorAll("[data-action-status]")) {
      const slot = target.querySelector(".instance-actions") || target;
      const row = target.closest("[data-instance]");
      const instance = target.dataset.instance || (row && row.dataset.instance);
      slot.querySelector(".instance-action-buttons")?.remove();
      slot.append(instanceButtons(target.dataset.actionStatus, instance, target.dataset.cluster,
        target.dataset.lifecycle));
    }
  }

  // for the instances view: its buttons once it is drawn
  window.falconActions = { instanceAction, decorate };

  document.addEventListener("DOMContentLoaded", () => {
    window.addEventListener("hashchange", follow);
    follow();
  });
})();
