"""``extension``: Falcon's mirroring extensions and their jobs, kept in the store like entities, with the routes of
Falcon 0.10's ``api/extension/`` resource that run them.

A job's properties are the body of ``submit``, ``submitAndSchedule``, ``update`` and ``validate`` (posted as
Falcon's client posts the file); the calls on a job name it in the path. ``extensionJobDetails/{job}`` (Falcon
0.11's) answers ``-detail``.
"""

from __future__ import annotations

from falcon_airflow.operate.declarations import (
    ENTITY_ACTION,
    JSON,
    TEXT,
    XML_JSON,
    Action,
    CommandDeclaration,
    Option,
    Route,
)

ACTIONS_MODULE = "falcon_airflow.operate.extension_actions"

OPTIONS = (
    Option("extensionName", "extension_name", "hdfs-mirroring, hdfs-snapshot-mirroring or hive-mirroring", "NAME",
           audit="extensionName"),
    Option("jobName", "job_name", "the job's name (its jobName property)", "NAME", audit="jobName"),
    Option("file", "file", "the job's properties file", "FILE", audit="file"),
    Option("start", "start", "-instances: first instance time, yyyy-MM-ddTHH:mmZ", "TIME", audit="start"),
    Option("end", "end", "-instances: last instance time, yyyy-MM-ddTHH:mmZ (inclusive)", "TIME", audit="end"),
    Option("instanceStatus", "instance_status", "-instances: only these states (comma-separated)", "STATES"),
    Option("offset", "offset", "-instances: skip this many instances", "N"),
    Option("numResults", "num_results", "-instances: at most this many instances", "N"),
)


PATH = "/api/extension"


def _route(call: str, method: str = "GET", produces: tuple[str, ...] = JSON, key: str | None = None,
           body: str | None = None) -> Route:
    return Route("POST" if method == "POST" else "GET", f"{PATH}/{call}" + (f"/{{{key}}}" if key else ""),
                 body=body, produces=produces)


def _read(name: str, help_text: str, function: str, required: tuple[str, ...] = (),
          optional: tuple[str, ...] = (), routes: tuple[Route, ...] = ()) -> Action:
    return Action("extension", name, help_text, f"{ACTIONS_MODULE}:{function}", "read", required=required,
                  optional=optional, routes=routes)


def _change(name: str, help_text: str, function: str, required: tuple[str, ...]) -> Action:
    key = "job_name" if "job_name" in required else "extension_name"
    route = _route(name, "POST", ENTITY_ACTION, key, body="file" if "file" in required else None)
    return Action("extension", name, help_text, f"{ACTIONS_MODULE}:{function}", "change", lock=True,
                  required=required, routes=(route,))


_JOB_FILE = ("extension_name", "file")

ACTIONS = (
    _read("enumerate", "the extensions there are", "enumerate_extensions", routes=(_route("enumerate"),)),
    _read("describe", "an extension's properties (-extensionName)", "describe", required=("extension_name",),
          routes=(_route("describe", produces=TEXT, key="extension_name"),)),
    _read("definition", "an extension's properties as JSON (-extensionName), or a job's file (-jobName)",
          "definition", optional=("extension_name", "job_name"),
          routes=(_route("definition", key="extension_name"),)),
    _read("detail", "a job: its extension, state, DAG and archived versions (-jobName)", "detail",
          required=("job_name",), routes=(_route("extensionJobDetails", key="job_name"),)),
    _read("list", "the submitted jobs (-extensionName optional)", "list_jobs", optional=("extension_name",),
          routes=(_route("list", produces=XML_JSON, key="extension_name"), _route("list", produces=XML_JSON))),
    _read("instances", "a job's runs with Falcon's instance states (-jobName; -start, -end, -instanceStatus)",
          "instances", required=("job_name",), optional=("start", "end", "instance_status", "offset",
                                                          "num_results"),
          routes=(_route("instances", key="job_name"),)),
    _read("validate", "validate a job's properties against the store (-extensionName, -file)", "validate",
          required=_JOB_FILE,
          routes=(_route("validate", "POST", ENTITY_ACTION, "extension_name", body="file"),)),
    _change("submit", "submit a job (-extensionName, -file): validated, then written to the store", "submit",
            _JOB_FILE),
    _change("submitAndSchedule", "submit and schedule a job in one atomic action (-extensionName, -file)",
            "submit_and_schedule", _JOB_FILE),
    _change("update", "replace a job's properties (-extensionName, -file); runs from now on use them", "update",
            _JOB_FILE),
    _change("schedule", "schedule a submitted job (-jobName): its DAG is unpaused", "schedule", ("job_name",)),
    _change("suspend", "suspend a running job (-jobName): its DAG is paused", "suspend", ("job_name",)),
    _change("resume", "resume a suspended job (-jobName)", "resume", ("job_name",)),
    _change("delete", "delete a job (-jobName): its DAG deleted, its properties archived", "delete", ("job_name",)),
)

COMMAND = CommandDeclaration("extension", ACTIONS, OPTIONS,
                             journal="falcon_airflow.operate.extension_actions:ACTIONS")
