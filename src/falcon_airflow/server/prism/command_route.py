"""falcon-airflow's own command line pointed at a Prism: ``POST /api/falcon-airflow/{command}/{action}``.

A server runs these commands on its store; a Prism has none, so it turns each into the Falcon call it declares
(the action's route of ``operate/declarations/``: path, query parameters by their Falcon names, the definition
or properties body), runs that call on its own routes as the same caller (the request's credentials, checked
again by the Prism's authentication), and answers with the merged result in the shape the command prints:
``status``, ``message``, ``text``, ``exit_code`` (0 SUCCEEDED, 1 PARTIAL), or ``FAILED`` with 400.
"""

from __future__ import annotations

import base64
import binascii
import collections
import json
from typing import Any
from urllib.parse import quote

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.operate import declarations
from falcon_airflow.operate.instance_actions import dependency_line
from falcon_airflow.operate.sla_alert import missed_line
from falcon_airflow.parsing.secure import parse_xml_bytes
from falcon_airflow.server.prism.forwarding import USER_NAME
from falcon_airflow.server.prism.merging import (
    read_api_result,
    read_entity_list,
    read_entity_summary,
    read_feed_lookup,
    read_sla_alert,
)
from falcon_airflow.timekeeping.dates import format_falcon_date

ENTITY_ACTIONS = ("submit", "update", "submitAndSchedule", "schedule", "suspend", "resume", "delete", "status",
                  "definition", "list", "dependency", "summary", "validate", "touch", "updateClusterDependents",
                  "lookup", "slaAlert")
INSTANCE_ACTIONS = ("running", "status", "list", "summary", "logs", "params", "listing", "dependency", "triage",
                    "kill", "suspend", "resume", "rerun", "search")
ADMIN_CALLS = {"version": "api/admin/version", "stack": "api/admin/stack",
               "setsafemode": "api/admin/setSafeMode/{mode}"}
"""The ``admin`` actions a Prism answers about itself (``server/prism/admin.py``), by their Falcon calls."""
ROUTED = {"entity": ENTITY_ACTIONS, "instance": INSTANCE_ACTIONS, "admin": tuple(ADMIN_CALLS)}
LOCAL_ONLY = frozenset({"url", "entities", "json", "format", "debug"})
"""The command line's options that say where and how it runs on the caller's machine."""
MAX_REQUEST_BYTES = 8 * 1024 * 1024


def failed(message: str, status: int = 400, *, usage: bool = False) -> Response:
    return JSONResponse({"status": "FAILED", "message": message, "details": [], "usage": usage},
                        status_code=status)


def _value(value: Any) -> str:
    return "true" if value is True else str(value)


def falcon_call(command: str, action: str, values: dict[str, Any],
                file: bytes | None) -> tuple[str, str, list[tuple[str, str]], bytes | None, str]:
    """(method, path, query, body, accept) of the Falcon call a command stands for."""
    if command == "admin":
        mode = str(values.get("setsafemode") or "").strip().lower()
        if action == "setsafemode" and mode not in ("true", "false"):
            raise ValueError(f"admin -setsafemode needs true or false, not {values.get('setsafemode')!r}")
        accept = {"version": "application/json", "stack": "text/plain"}.get(action, "text/xml")
        return "GET", ADMIN_CALLS[action].replace("{mode}", mode), [], None, accept
    declared = declarations.action(command, action)
    names = {option.dest: option.name for option in declarations.command(command).options}
    routes = declared.routes
    given = {key for key, value in values.items() if value not in (None, False, "")}
    # the most specific route the options fill (entity -list -type feed: api/entities/list/{type})
    fitting = sorted((item for item in routes if set(item.path_keys()) <= given),
                     key=lambda item: -len(item.path_keys()))
    route = fitting[0] if fitting else routes[0]
    path_keys = set(route.path_keys())
    missing = [key for key in path_keys if values.get(key) in (None, False, "")]
    if missing:
        raise ValueError(f"{command} -{action} needs {', '.join('-' + names.get(key, key) for key in missing)}")
    path = route.path
    for key in path_keys:
        path = path.replace("{" + key + "}", quote(str(values[key]), safe=""))
    in_body = {dest for _, dest in route.properties}
    query = [(names.get(key, key), _value(value)) for key, value in values.items()
             if key not in path_keys and key not in in_body and key != route.body and key != action
             and key in names and value not in (None, False, "")]
    body: bytes | None = None
    if route.body is not None and not route.properties:
        body = file
    elif route.properties:
        lines = [f"{prop}={values[dest]}" for prop, dest in route.properties if values.get(dest)]
        body = ("\n".join(lines) + "\n").encode() if lines else b""
    # a lookup's FeedLookupResult has no XML form a colo gives; every instance result is read as JSON
    accept = "application/json" if command == "instance" or action == "lookup" else "text/xml"
    return route.method, path.removeprefix("/"), query, body, accept


def entity_list_text(content: bytes) -> str:
    """An entity list as Falcon's CLI printed it (``EntityList.toString``)."""
    elements = read_entity_list(content)
    lines = [str(len(elements))]
    for item in elements:
        line = f"({item.type}) {item.name}" + (f"({item.status})" if item.status else "")
        for values in (item.tags, item.pipelines, item.clusters):
            if values:
                line += " - [" + ", ".join(values) + "]"
        lines.append(line)
    return "\n".join(lines)


def _printed(status: str, message: str, text: str) -> JSONResponse:
    """An answer in the shape the command prints: its text, and exit 0 only for SUCCEEDED."""
    return JSONResponse({"status": status, "message": message, "text": text, "warnings": [], "notes": [],
                         "exit_code": 0 if status == "SUCCEEDED" else 1})


def lookup_text(content: bytes) -> JSONResponse | Response:
    """A merged ``FeedLookupResult``: the colos' lines, then each place that holds the path."""
    header, places = read_feed_lookup("", content)
    if header.status.value == "FAILED":
        return failed(header.message)
    lines = [header.message, *(f"{place.feed_name}  cluster {place.cluster_name}  {place.location_type.upper()}"
                               for place in places)]
    return _printed(header.status.value, header.message, "\n".join(lines))


def sla_alert_text(content: bytes) -> JSONResponse | Response:
    """A merged ``SchedulableEntityInstanceResult``: each missed instance as a server's ``entity -slaAlert``
    prints it."""
    header, missed = read_sla_alert("", content)
    if header.status.value == "FAILED":
        return failed(header.message)
    lines = [missed_line({"entityName": item.entity_name, "entityType": item.entity_type, "cluster": item.cluster,
                          "instanceTime": format_falcon_date(item.instance_time), "tags": item.tags or ""})
             for item in missed]
    return _printed(header.status.value, header.message, "\n".join([header.message, *lines]))


def admin_answer(action: str, response: httpx.Response) -> Response:
    """The Prism's own answer to ``admin -<action>``, printed as a server's is (naming the Prism)."""
    content = response.content
    if response.status_code >= 400:
        if response.headers.get("content-type", "").startswith("text/xml"):
            return failed(read_api_result("", content).message, response.status_code)
        return failed(content.decode("utf-8", "replace")[:1000] or response.reason_phrase, response.status_code)
    text = content.decode("utf-8", "replace")
    if action == "version":
        found = {str(item.get("key")): str(item.get("value")) for item in json.loads(content).get("properties", [])}
        text = (f"Falcon Prism build version: falcon-airflow {found.get('Version')}, colos {found.get('colos')}, "
                f"safemode {found.get('safemode')}")
    elif action == "setsafemode":
        text = f"Falcon Prism safemode set to : {text.strip()}"
    return _printed("SUCCEEDED", text if action != "stack" else "the Prism's threads and tasks", text)


def answer_of(response: httpx.Response) -> Response:
    """The Falcon call's answer as the command line reads a server's."""
    content = response.content
    media_type = response.headers.get("content-type", "").split(";")[0]
    if response.status_code in (401, 403, 406):
        return failed(content.decode("utf-8", "replace")[:1000] or response.reason_phrase, response.status_code)
    if media_type == "application/json":
        document = json.loads(content)
        if isinstance(document, dict) and "elements" in document:
            return lookup_text(content)
        status = str(document.get("status") or "FAILED")
        instances = document.get("instances") or []
        dependencies = document.get("dependencies") or []  # instance -dependency, as a server prints them
        text = "\n".join([str(document.get("message") or "").rstrip("\n"),
                          *(f"{item.get('instance')} {item.get('cluster')} {item.get('status')}"
                            for item in instances if isinstance(item, dict)),
                          *(dependency_line(collections.defaultdict(lambda: None, item))
                            for item in dependencies if isinstance(item, dict))])
        return JSONResponse({**document, "text": text, "warnings": [], "notes": [],
                             "exit_code": 0 if status == "SUCCEEDED" else 1})
    root = parse_xml_bytes(content, "the Prism's answer").root
    tag = "" if root is None else str(root.tag).rsplit("}", 1)[-1]
    if tag == "result":
        result = read_api_result("", content)
        if result.status.value == "FAILED":
            return failed(result.message)
        return _printed(result.status.value, result.message, result.message)
    if tag == "instances":
        return sla_alert_text(content)
    if tag == "entitySummaryResult":
        header, summaries = read_entity_summary("", content)
        if header.status.value == "FAILED":
            return failed(header.message)
        lines = [header.message]
        for summary in summaries:
            lines.append(f"({summary.type}) {summary.name}" + (f"({summary.status})" if summary.status else ""))
            lines += [f"  {item.instance} {item.cluster} {item.status}" for item in summary.instances]
        return _printed(header.status.value, header.message, "\n".join(lines))
    if tag == "entities":
        text = entity_list_text(content)
        return _printed("SUCCEEDED", text, text)
    text = content.decode("utf-8", "replace")  # a definition
    return _printed("SUCCEEDED", text, text)


def router() -> APIRouter:
    routes = APIRouter()

    @routes.post("/api/falcon-airflow/{command}/{action}")
    async def _run(request: Request, command: str, action: str) -> Response:
        if action not in ROUTED.get(command, ()):
            return failed(f"{command} -{action} is not routed by the Prism yet: ask a colo's server "
                          "(docs/prism.md)", 404, usage=True)
        raw = await request.body()
        if len(raw) > MAX_REQUEST_BYTES:
            return failed(f"the request is larger than {MAX_REQUEST_BYTES:,} bytes", 413)
        try:
            document = json.loads(raw or b"{}")
            values = {key: value for key, value in dict(document.get("options") or {}).items()
                      if key not in LOCAL_ONLY}
            sent = document.get("file")
            file = base64.b64decode(str(sent.get("data", "")), validate=True) if isinstance(sent, dict) else None
            method, path, query, body, accept = falcon_call(command, action, values, file)
        except (ValueError, TypeError, AttributeError, binascii.Error) as problem:
            return failed(f"the request cannot be routed: {problem}", usage=True)
        # the same caller on the Prism's own route: its credentials, authenticated again
        headers = {"Accept": accept, "Content-Type": "text/xml" if command == "entity" else "text/plain"}
        for name in ("authorization", "cookie"):
            if name in request.headers:
                headers[name] = request.headers[name]
        claimed = request.query_params.get(USER_NAME)
        if claimed:
            query.append((USER_NAME, claimed))
        transport = httpx.ASGITransport(app=request.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://prism") as own:
            response = await own.request(method, f"/{path}", params=tuple(query), content=body,
                                         headers=headers, timeout=None)
        return admin_answer(action, response) if command == "admin" else answer_of(response)

    return routes
