"""The frame every job runs in: usage and job errors, argument parsing that returns a code, the run with its
exit codes, one-line JSON summary and report file, and the Spark session.

Standard library and pyspark (lazily) only: the frame runs without Spark and is unit-tested as such.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.errors import RuleError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class UsageError(Exception):
    """Bad arguments: the job prints the message and exits with 2, never with a traceback."""


class JobError(Exception):
    """A failure the job can explain (missing source, failed verification): exit 1 with the message."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of exiting, so ``main(argv)`` can return a code."""

    def error(self, message: str) -> Any:  # argparse's signature is NoReturn; raising keeps that promise
        raise UsageError(message)


@dataclass
class JobResult:
    """What a job body returns: the stdout summary, the report file content and extra stdout lines."""

    summary: dict[str, Any]
    report: dict[str, Any]
    lines: list[str] = field(default_factory=list)
    code: int = 0


def java_exception_class(error: BaseException) -> str | None:
    """The Java class name behind a py4j error (``java.io.FileNotFoundException``), if there is one."""
    java = getattr(error, "java_exception", None)
    if java is None:
        return None
    try:
        return str(java.getClass().getName())
    except Exception:  # the JVM may be gone; then there is no class to report
        return None


def first_line(error: BaseException) -> str:
    """The first line of what went wrong: the Java exception behind a py4j error, else the error itself."""
    java = getattr(error, "java_exception", None)
    text = str(java if java is not None else error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def run_job(name: str, parser: argparse.ArgumentParser, argv: Sequence[str] | None,
            body: Callable[[argparse.Namespace], JobResult]) -> int:
    """Parse ``argv``, run ``body`` and print its result: extra lines, then the one-line JSON summary (last line).

    Exit codes: 0 done, 1 :class:`JobError` (the report, if asked for, says ``error``), 2 bad arguments.
    """
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as done:  # --help
        return int(done.code or 0)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    started = time.monotonic()
    report_path = getattr(args, "report", None)
    try:
        try:
            result = body(args)
        except Exception as error:
            java = java_exception_class(error)
            if java is None or isinstance(error, (UsageError, RuleError, JobError)):
                raise
            # a Hadoop/Spark failure (permission denied, unreachable name node): its first line, no py4j trace
            lines = str(getattr(error, "java_exception", None) or error).strip().splitlines()
            raise JobError(lines[0] if lines else java) from error
    except (UsageError, RuleError) as error:
        parser.print_usage(sys.stderr)
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    except JobError as error:
        seconds = round(time.monotonic() - started, 3)
        failure = {"job": name, "error": str(error), "seconds": seconds}
        print(f"{name}: failed: {error}", file=sys.stderr)
        print(json.dumps(failure), flush=True)
        if report_path:
            write_report(report_path, failure)
        return 1
    seconds = round(time.monotonic() - started, 3)
    result.summary["seconds"] = seconds
    result.report["seconds"] = seconds
    if report_path:
        write_report(report_path, result.report)
        result.summary["report"] = report_path
    for line in result.lines:
        print(line)
    print(json.dumps(result.summary), flush=True)
    return result.code


def write_report(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to a local file (written aside, then renamed, so a reader never sees half)."""
    local = path[len("file://"):] if path.startswith("file://") else path
    folder = os.path.dirname(os.path.abspath(local))
    os.makedirs(folder, exist_ok=True)
    temporary = f"{local}.tmp-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    os.replace(temporary, local)


def script_main(main: Callable[[Sequence[str] | None], int]) -> None:
    """``if __name__ == "__main__"`` of a job file: run ``main`` on ``sys.argv`` and exit with its code."""
    sys.exit(main(sys.argv[1:]))


@contextmanager
def spark_session(app_name: str, spark: SparkSession | None = None, hive: bool = False) -> Iterator[SparkSession]:
    """The session a job runs in: the one given, the one already running, or a new one (stopped at the end).

    Hive support is asked for only when a catalog table is involved (``hive=True``); an existing session is used
    as it is.
    """
    if spark is not None:
        yield spark
        return
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is not None:
        yield SparkSession.builder.getOrCreate()
        return
    builder = SparkSession.builder.appName(app_name)
    if hive:
        builder = builder.enableHiveSupport()
    session = builder.getOrCreate()
    try:
        yield session
    finally:
        session.stop()
