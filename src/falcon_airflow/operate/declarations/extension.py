"""``extension``: Falcon's mirroring extensions and their jobs, kept in the store like entities."""

from __future__ import annotations

from falcon_airflow.operate.declarations import Action, CommandDeclaration, Option

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


def _read(name: str, help_text: str, function: str, required: tuple[str, ...] = (),
          optional: tuple[str, ...] = ()) -> Action:
    return Action("extension", name, help_text, f"{ACTIONS_MODULE}:{function}", "read", required=required,
                  optional=optional)


def _change(name: str, help_text: str, function: str, required: tuple[str, ...]) -> Action:
    return Action("extension", name, help_text, f"{ACTIONS_MODULE}:{function}", "change", lock=True,
                  required=required)


_JOB_FILE = ("extension_name", "file")

ACTIONS = (
    _read("enumerate", "the extensions there are", "enumerate_extensions"),
    _read("describe", "an extension's properties (-extensionName)", "describe", required=("extension_name",)),
    _read("definition", "an extension's properties as JSON (-extensionName), or a job's file (-jobName)",
          "definition", optional=("extension_name", "job_name")),
    _read("detail", "a job: its extension, state, DAG and archived versions (-jobName)", "detail",
          required=("job_name",)),
    _read("list", "the submitted jobs (-extensionName optional)", "list_jobs", optional=("extension_name",)),
    _read("instances", "a job's runs with Falcon's instance states (-jobName; -start, -end, -instanceStatus)",
          "instances", required=("job_name",), optional=("start", "end", "instance_status", "offset",
                                                          "num_results")),
    _read("validate", "validate a job's properties against the store (-extensionName, -file)", "validate",
          required=_JOB_FILE),
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
