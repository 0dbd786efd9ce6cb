"""Oozie actions that run as a spark-submit through our hook: spark, hive/hive2 (Spark SQL), java, fs, distcp.

* ``spark``: the action's ``<jar>`` (a jar or a Python file) with its ``<class>``, ``<spark-opts>`` and ``<arg>``s;
  the master and mode are the action's when it names them, else the cluster entity's (an Airflow connection named
  after the cluster overrides both, as for every process).
* ``hive``/``hive2``: the ``<script>`` (or inline ``<query>``) on Spark SQL by our hive job, ``<param>``s as
  ``${name}`` variables, as the hive engine runs Falcon's Hive processes.
* ``java``: the ``<main-class>`` on Spark's driver (``spark-submit --class``) from the jars of the application's
  ``lib/`` folder (the first is the application, the others ``--jars``); ``<java-opts>`` become the driver's JVM
  options; ``<arg>``s as they are.
* ``fs``: our ``oozie_fs.py`` job (Hadoop FileSystem API) with the commands, EL evaluated.
* ``distcp``: our replication copier from the source paths to the target path (the last argument); ``-overwrite``,
  ``-delete`` and ``-m N`` are understood, other options are refused.

``spark.*`` entries of the action's configuration (``<global>`` overlaid with its own) become Spark conf.
A failed submission fails the action with the job's own message when it wrote a report, else spark-submit's.

Every action is submitted with the process's identity as ``--proxy-user`` (:attr:`OozieNodeOperator.run_as`); the
fs action's job then works through the Hadoop FileSystem API of a JVM that runs as that proxy user, as Spark's
driver does, which holds for simple and Kerberos authentication alike. Anything in the evaluated action that
would choose another identity (its spark-opts, Spark conf from its configuration, JVM options) fails the action,
as do local files outside the action's roots: the application, ``--files``, the script, and ``file://`` paths
the fs action or distcp would change (:mod:`falcon_airflow.oozie.access`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from falcon_airflow.provider.hooks.oozie import ActionFailed
from falcon_airflow.provider.hooks.spark import FalconSparkSubmitHook

if TYPE_CHECKING:
    from falcon_airflow.provider.operators.oozie import OozieNodeOperator
    from falcon_airflow.provider.operators.oozie_runtime import WorkflowRun

def _job_py_files() -> str:
    from falcon_airflow.compiler.common import job_py_files

    return job_py_files()  # the jobs package and the core package it imports


def _job(name: str) -> str:
    from falcon_airflow.compiler.common import job_file

    return job_file(name)


_DISTCP_SWITCHES = {
    "-overwrite": ["--overwrite"],
    "-delete": ["--remove-deleted-files"],
    "-update": [],  # the copier keeps files already identical at the target: -update is its behaviour
}


def _distcp_arguments(arguments: list[str]) -> tuple[list[str], list[str], str]:
    options: list[str] = []
    paths: list[str] = []
    items = iter(arguments)
    for item in items:
        maps = next(items, None) if item == "-m" else None
        if item in _DISTCP_SWITCHES:
            options += _DISTCP_SWITCHES[item]
        elif maps is not None:
            options += ["--max-maps", maps]
        elif item.startswith("-"):
            raise ActionFailed("DISTCP", f"distcp option {item} is not supported here (only -overwrite, -delete, "
                                         "-update and -m N)")
        else:
            paths.append(item)
    if len(paths) < 2:
        raise ActionFailed("DISTCP", "distcp needs at least one source path and a target path")
    return options, paths[:-1], paths[-1]


def _local_checked(paths: list[str], roots: list[str], what: str) -> None:
    """Refuse (``ActionFailed``) a local path outside ``roots``; remote ones are the job's user's to reach."""
    from falcon_airflow.oozie.access import OutsideRoots, checked_path

    for path in (item.split("#")[0].strip() for item in paths):
        if not path:
            continue
        try:
            checked_path(path, roots, what)
        except OutsideRoots as refusal:
            raise ActionFailed("FILE", str(refusal)) from None


def _fs_paths(operations: list[dict[str, Any]]) -> list[str]:
    return [value for item in operations for key in ("path", "target")
            if isinstance(value := item.get(key), str) and value.strip()]


def _identity_checked(submit: dict[str, Any]) -> None:
    """Refuse an evaluated action that would choose its identity (spark-opts are refused when parsed)."""
    from falcon_airflow.core.identity import identity_settings

    problems = identity_settings(submit.get("conf") or {})
    if problems:
        raise ActionFailed("SPARK", f"{problems[0]}; every action runs as the process's -doAs user, else its ACL "
                                    "owner")


def _submission(operator: OozieNodeOperator, action: str, body: dict[str, Any], run: WorkflowRun,
                report: str) -> dict[str, Any]:
    """The hook's arguments for the action (EL evaluated)."""
    from falcon_airflow.compiler.spark_options import SparkOptionsError, parse_spark_options

    evaluate = run.evaluate
    configuration = run.action_configuration(operator.node.get("configuration", {}))
    conf = {key: value for key, value in configuration.items() if key.startswith("spark.")}
    defaults = operator.spark_defaults
    submit: dict[str, Any] = {"default_master": defaults["master"],
                              "default_deploy_mode": defaults.get("deploy_mode"), "conn_id": defaults["connection"],
                              "name": f"oozie-{run.wf_name()}-{operator.node['name']}",
                              "proxy_user": operator.run_as}
    roots = operator.action_roots()
    if action == "spark":
        try:
            options = parse_spark_options(evaluate(body.get("spark_opts") or ""))
        except SparkOptionsError as problem:
            raise ActionFailed("SPARK", str(problem)) from None
        conf.update(options.conf)
        master = evaluate(body.get("master") or "").strip()
        if master:
            submit["default_master"] = master
            submit["conn_id"] = f"{defaults['connection']}-oozie-action"  # the action's own master wins
        mode = evaluate(body.get("mode") or "").strip()
        if mode:
            submit["deploy_mode"] = mode
        extra = dict(options.arguments)
        if body.get("files"):
            extra["files"] = ",".join(evaluate(item).split("#")[0] for item in body["files"])
        application = evaluate(body["jar"])
        _local_checked([application, *str(extra.get("files") or "").split(",")], roots, "file")
        submit.update(application=application, java_class=evaluate(body.get("class") or "") or None,
                      application_args=[evaluate(item) for item in body.get("args", [])],
                      name=evaluate(body.get("name") or "") or submit["name"], **extra)
    elif action in ("hive", "hive2"):
        script = ["--script", evaluate(body["script"])] if body.get("script") else \
            ["--query", evaluate(body.get("query") or "")]
        if body.get("script"):
            _local_checked([script[1]], roots, "<script>")
        for item in body.get("params", []):
            script += ["--var", evaluate(item)]
        submit.update(application=_job("hive_script.py"), application_args=script)
    elif action == "java":
        jars = list(body.get("jars", []))
        if not jars:
            raise ActionFailed("JA008", "the java action needs its jar in the workflow application's lib/ folder")
        java_options = " ".join(evaluate(item) for item in body.get("java_opts", []))
        if java_options:
            conf["spark.driver.extraJavaOptions"] = java_options
        submit.update(application=jars[0], java_class=evaluate(body["main_class"]), jars=",".join(jars[1:]) or None,
                      application_args=[evaluate(item) for item in body.get("args", [])])
    elif action == "fs":
        name_node = evaluate(body.get("name_node") or "").strip().rstrip("/")
        operations = []
        for item in body["operations"]:
            operation = {key: evaluate(value) if isinstance(value, str) else value for key, value in item.items()}
            for key in ("path", "target"):
                value = operation.get(key)
                if name_node and isinstance(value, str) and value.startswith("/") and not (
                        key == "target" and operation["op"] == "move"):
                    operation[key] = name_node + value  # Oozie resolves scheme-less paths on the name-node
            operations.append(operation)
        _local_checked(_fs_paths(operations), roots, "fs path")
        submit.update(application=_job("oozie_fs.py"), py_files=_job_py_files(),
                      application_args=["--operations", json.dumps(operations), "--report", report])
    elif action == "distcp":
        flags, sources, target = _distcp_arguments([evaluate(item) for item in body.get("args", [])])
        _local_checked([*sources, target], roots, "distcp path")
        arguments = ["--feed", f"oozie-{operator.node['name']}", "--source-cluster", defaults["connection"],
                     "--target-cluster", defaults["connection"], "--instance", _instance(run)]
        for source in sources:
            arguments += ["--source-path", source]
        arguments += ["--target-path", target, "--availability-flag", "NA", *flags, "--report", report]
        submit.update(application=_job("replication.py"), py_files=_job_py_files(),
                      application_args=arguments)
    else:
        raise ActionFailed("E0405", f"action type {action} does not run here")
    submit["conf"] = conf
    _identity_checked(submit)
    return submit


def _instance(run: WorkflowRun) -> str:
    from falcon_airflow.provider.macros import instance

    return instance(run.context["dag_run"]).format("YYYY-MM-DDTHH:mm") + "Z"


def run_spark_action(operator: OozieNodeOperator, action: str, body: dict[str, Any],
                     run: WorkflowRun) -> dict[str, str]:
    from falcon_airflow.instances.storage import report_file

    report = report_file(run.dag_id, run.run_id, operator.task_id)
    report.unlink(missing_ok=True)
    submit = _submission(operator, action, body, run, str(report))
    application = submit.pop("application")
    if not application:
        raise ActionFailed("E0701", f"the {action} action names no application")
    hook = FalconSparkSubmitHook(**submit)
    try:
        hook.submit(application)
    except Exception as problem:
        detail = None
        if report.exists():
            try:
                detail = json.loads(report.read_text(encoding="utf-8")).get("error")
            except ValueError:
                detail = None
        if detail is None:
            code = re.search(r"Error code is: (-?\d+)", str(problem))
            detail = (f"spark-submit of {Path(application).name} exited with code {code[1]} (see the task log)"
                      if code else str(problem).splitlines()[0])
        raise ActionFailed("SPARK", detail) from problem
    data: dict[str, str] = {}
    application_id = getattr(hook, "_yarn_application_id", None) or getattr(hook, "_driver_id", None)
    if application_id:
        data["externalId"] = str(application_id)
    return data
