"""``<spark-opts>`` as spark-submit options: the command-line text Falcon users wrote, split into what
``SparkSubmitOperator`` takes as arguments (memory, cores, jars ...) and Spark conf (``--conf k=v``).

Options that choose who the job runs as (``--proxy-user``, ``--principal``, ``--keytab``, and their conf, JVM and
environment equivalents, see :mod:`falcon_airflow.core.identity`) are refused: a job runs as the entity's checked
``-doAs`` user, else its ACL owner, which the compiler sets; the entity text never chooses.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from falcon_airflow.core.identity import spark_opts_identity_problems as identity_problems

_VALUE_OPTIONS = {
    "--driver-memory": "driver_memory",
    "--executor-memory": "executor_memory",
    "--executor-cores": "executor_cores",
    "--num-executors": "num_executors",
    "--total-executor-cores": "total_executor_cores",
    "--jars": "jars",
    "--py-files": "py_files",
    "--files": "files",
    "--packages": "packages",
    "--queue": "queue",
    "--deploy-mode": "deploy_mode",
}
_INTEGER_OPTIONS = {"executor_cores", "num_executors", "total_executor_cores"}
# spark-submit options with a Spark conf equivalent; the operator has no argument for them.
_CONF_OPTIONS = {
    "--driver-cores": "spark.driver.cores",
    "--driver-java-options": "spark.driver.extraJavaOptions",
    "--driver-library-path": "spark.driver.extraLibraryPath",
    "--driver-class-path": "spark.driver.extraClassPath",
}


class SparkOptionsError(ValueError):
    """``<spark-opts>`` text that spark-submit would not accept."""


@dataclass
class SparkOptions:
    arguments: dict[str, str | int] = field(default_factory=dict)
    conf: dict[str, str] = field(default_factory=dict)


def parse_spark_options(text: str | None) -> SparkOptions:
    """Split ``--driver-memory 1g --conf spark.x=y`` into operator arguments and conf; unknown options, and options
    that choose the job's identity, are errors."""
    problems = identity_problems(text)
    if problems:
        raise SparkOptionsError(f"spark-opts: {problems[0]}; a job runs as the entity's -doAs user, else its ACL "
                                "owner, never as its spark-opts say")
    options = SparkOptions()
    if not text or not text.strip():
        return options
    try:
        tokens = shlex.split(text)
    except ValueError as problem:
        raise SparkOptionsError(f"spark-opts cannot be read: {problem}") from None
    index = 0
    while index < len(tokens):
        token = tokens[index]
        name, equals, inline = token.partition("=")
        if not name.startswith("--"):
            raise SparkOptionsError(f"spark-opts: '{token}' is not an option (options start with --)")
        if name == "--verbose":
            index += 1
            continue
        if equals:
            value = inline
            index += 1
        else:
            if index + 1 >= len(tokens):
                raise SparkOptionsError(f"spark-opts: option {name} needs a value")
            value = tokens[index + 1]
            index += 2
        if name == "--conf":
            key, sign, setting = value.partition("=")
            if not sign or not key.strip():
                raise SparkOptionsError(f"spark-opts: --conf takes key=value, not '{value}'")
            options.conf[key.strip()] = setting
        elif name in _VALUE_OPTIONS:
            argument = _VALUE_OPTIONS[name]
            if argument in _INTEGER_OPTIONS:
                try:
                    options.arguments[argument] = int(value)
                except ValueError:
                    raise SparkOptionsError(f"spark-opts: {name} takes a number, not '{value}'") from None
            else:
                options.arguments[argument] = value
        elif name in _CONF_OPTIONS:
            options.conf[_CONF_OPTIONS[name]] = value
        else:
            known = ", ".join(sorted([*_VALUE_OPTIONS, *_CONF_OPTIONS, "--conf", "--verbose"]))
            raise SparkOptionsError(f"spark-opts: option {name} is not supported here (supported: {known})")
    return options


def split_master(master: str) -> tuple[str, str | None]:
    """Falcon's ``yarn-cluster``/``yarn-client`` masters as Spark's (master, deploy mode)."""
    lowered = master.strip().lower()
    if lowered == "yarn-cluster":
        return "yarn", "cluster"
    if lowered == "yarn-client":
        return "yarn", "client"
    return master.strip(), None
