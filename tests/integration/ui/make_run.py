"""``make run`` started by a test: the example pipeline on a temporary Airflow home, a free port and a copy of the
example entities whose storage is moved into the test's folder, so a test never meets a developer's own
``make run`` or /tmp/falcon-airflow. The Airflow UI tests and the README walk share it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.sandbox.example import EXAMPLE_STORAGE, copy_example

REPOSITORY = Path(__file__).resolve().parents[3]
USER = PASSWORD = "admin"
SOURCE_PROCESS = "generate-clicks"  # the example's source process: no inputs, one Spark job of about a minute

START_TIMEOUT = 300  # make run: database, api-server, scheduler, dag-processor, triggerer
STOP_TIMEOUT = 60


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def falcon_time(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%MZ")


def parse_falcon_time(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)


def wait_for(what: str, probe: Callable[[], Any], timeout: float, interval: float = 3.0) -> Any:
    """``probe()``'s first truthy value, polling for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


@dataclass
class RunningAirflow:
    """``make run`` in a session of its own, its output in ``log``."""

    root: Path
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def entities(self) -> Path:
        return self.root / "entities"

    def tail(self, lines: int = 80) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def wait_until_up(self) -> None:
        def answers() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"make run exited with {self.process.returncode}:\n{self.tail()}")
            with contextlib.suppress(OSError), \
                    urllib.request.urlopen(f"{self.url}/api/v2/version", timeout=5) as response:
                return response.status == 200
            return False

        wait_for("the api-server of make run", answers, START_TIMEOUT, interval=2)

    def stop(self) -> None:
        """Stop every process of make run's session, bounded: SIGTERM, then SIGKILL what is left.

        The session, not the process group: Airflow starts each task in a process group of its own (so that it can
        stop the task's children), and a Spark job started by a task would outlive a signal to make's group."""
        session = self.process.pid
        for pid in session_members(session):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_TIMEOUT)
        with contextlib.suppress(AssertionError):
            wait_for("make run's processes to end", lambda: not session_members(session), 20, interval=1)
        for pid in session_members(session):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)

    # -- the command under test -------------------------------------------------------------------------------------

    def falcon(self, *argv: str) -> dict[str, Any]:
        """``falcon-airflow <argv> -json`` as a user runs it: on make run's Falcon server, with their login."""
        env = {key: value for key, value in os.environ.items() if not key.startswith(("AIRFLOW", "FALCON_"))}
        env.update({"FALCON_URL": f"{self.url}/falcon", "FALCON_AIRFLOW_USER": USER,
                    "FALCON_AIRFLOW_PASSWORD": PASSWORD})
        result = subprocess.run([sys.executable, "-m", "falcon_airflow.cli", *argv, "-json"], env=env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert result.stdout.strip(), f"falcon-airflow {' '.join(argv)} printed nothing:\n{result.stderr}"
        return dict(json.loads(result.stdout))

    def instances(self, first: datetime | None = None, last: datetime | None = None,
                  process: str = SOURCE_PROCESS) -> list[dict[str, Any]]:
        window = ["-start", falcon_time(first), "-end", falcon_time(last or first)] if first else []
        document = self.falcon("instance", "-status", "-type", "process", "-name", process, *window)
        return list(document.get("instances") or [])

    def instance(self, at: datetime, process: str = SOURCE_PROCESS) -> dict[str, Any] | None:
        found = [item for item in self.instances(at, process=process) if item["instance"] == falcon_time(at)]
        return found[0] if found else None


def session_members(session: int) -> list[int]:
    """The live (not zombie) processes of a session, from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and fields[0] != "Z" and int(fields[3]) == session:
            members.append(int(entry.name))
    return members


def example_entities(target: Path, storage: Path, leave_out: Sequence[str] = ()) -> None:
    """The example entities but ``leave_out`` (paths relative to entities/), their clusters' storage moved from
    /tmp/falcon-airflow to ``storage``."""
    copy_example(REPOSITORY / "entities", target, storage, leave_out)
    leftovers = [str(path) for path in target.rglob("*") if path.is_file()
                 and EXAMPLE_STORAGE in path.read_text(encoding="utf-8", errors="replace")]
    assert not leftovers, f"example entities still point at {EXAMPLE_STORAGE}: {leftovers}"


def api_get(airflow: RunningAirflow, path: str) -> dict[str, Any]:
    """A GET on Airflow's REST API with a token of the simple auth manager's user."""
    request = urllib.request.Request(f"{airflow.url}/auth/token", method="POST",
                                     data=json.dumps({"username": USER, "password": PASSWORD}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        token = json.loads(response.read())["access_token"]
    request = urllib.request.Request(f"{airflow.url}/api/v2/{path}", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.loads(response.read()))


@contextlib.contextmanager
def make_run(root: Path, database_url: str | None = None, leave_out: Sequence[str] = ()) -> Iterator[RunningAirflow]:
    """``make run`` with its home in ``root/airflow-home`` and the example entities but ``leave_out`` copied to
    ``root/entities`` (their storage in ``root/storage``), up and answering; every process of it stopped at the end.
    Its metadata database is ``database_url`` when given, else make run's own default (SQLite in its home)."""
    if not (REPOSITORY / ".venv" / "bin" / "airflow").exists():
        pytest.fail("make run uses .venv/bin/airflow: run `make install` first", pytrace=False)
    example_entities(root / "entities", root / "storage", leave_out)
    port = free_port()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("AIRFLOW", "FALCON_", "MAKE", "MFLAGS"))}
    # A busy 2-core CI machine answers a task's calls to the api-server slowly: a task that gives up after
    # Airflow's 5 s would fail the instance before its work starts.
    env["AIRFLOW__WORKERS__EXECUTION_API_TIMEOUT"] = "30"
    if database_url:
        env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = database_url
    log = root / "make-run.log"
    with log.open("wb") as output:
        # `-o .venv/.installed`: the tests already run in the installed venv; make run must not reinstall it.
        process = subprocess.Popen(
            ["make", "--no-print-directory", "-o", ".venv/.installed", "run", f"RUN_HOME={root / 'airflow-home'}",
             f"RUN_PORT={port}", f"RUN_ENTITIES={root / 'entities'}"],
            cwd=REPOSITORY, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True)
    running = RunningAirflow(root, port, process, log)
    try:
        running.wait_until_up()
        yield running
    finally:
        running.stop()
