"""A real Airflow for the operate commands: a temporary AIRFLOW_HOME, a migrated metadata database (PostgreSQL from
the ``airflow_postgres`` fixture, as the tests' fixtures set it up; SQLite in the home otherwise), the api-server
on a free port of 127.0.0.1 with SimpleAuthManager (admin/admin), dags/ reading a temporary entity store.

No scheduler, dag-processor or worker runs: DAGs reach the database with ``airflow dags reserialize``, runs are
created and changed through the REST API, and what only a worker would do (a task running, failing, timing out,
writing its log) is simulated in the database and the log folder by :meth:`AirflowServer.worker`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from falcon_airflow.cli import build_parser
from falcon_airflow.cli.registry import load
from falcon_airflow.operate.airflow_api import AirflowClient
from falcon_airflow.operate.settings import Settings

REPOSITORY = Path(__file__).resolve().parents[3]
AIRFLOW = Path(sys.executable).parent / "airflow"
START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class AirflowServer:
    home: Path
    store: Path
    storage: Path
    drafts: Path
    port: int
    env: dict[str, str]
    database_url: str
    process: subprocess.Popen[bytes] | None = None
    credentials: dict[str, str] = field(default_factory=dict)
    interpreter_setup: str = ""
    """Python statements the api-server's interpreter runs before Airflow's command line (none: ``airflow``
    itself is started)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- life cycle -------------------------------------------------------------------------------------------------

    @classmethod
    def prepare(cls, root: Path, database_url: str | None = None) -> AirflowServer:
        """An Airflow home under ``root``; its metadata database ``database_url`` (SQLite in the home if none)."""
        home, store, storage, drafts = (root / name for name in ("home", "store", "storage", "drafts"))
        for folder in (home, store, storage, drafts):
            folder.mkdir(parents=True)
        (home / "simple_auth_manager_passwords.json.generated").write_text(json.dumps({"admin": "admin"}))
        port = free_port()
        env = {key: value for key, value in os.environ.items() if not key.startswith(("AIRFLOW", "FALCON_"))}
        env.update({
            "AIRFLOW_HOME": str(home), "AIRFLOW__CORE__DAGS_FOLDER": str(REPOSITORY / "dags"),
            "FALCON_ENTITIES_DIR": str(store), "FALCON_STORE_DIR": str(root / "state"),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": "admin:admin", "AIRFLOW__API__HOST": "127.0.0.1",
            "AIRFLOW__API__PORT": str(port), "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{port}",
            "AIRFLOW__API__WORKERS": "1", "AIRFLOW__FALCON__CATCHUP": "False",
            "AIRFLOW__CORE__UNIT_TEST_MODE": "False", "PATH": f"{AIRFLOW.parent}:{os.environ.get('PATH', '')}",
        })
        database_url = database_url or f"sqlite:///{home / 'airflow.db'}"
        env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = database_url
        return cls(home, store, storage, drafts, port, env, database_url,
                   credentials={"FALCON_AIRFLOW_URL": f"http://127.0.0.1:{port}", "FALCON_AIRFLOW_USER": "admin",
                                "FALCON_AIRFLOW_PASSWORD": "admin", "FALCON_STORE_DIR": str(root / "state")})

    def airflow(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([str(AIRFLOW), *args], env=self.env, capture_output=True, text=True,
                                timeout=timeout, check=False)
        assert result.returncode == 0, f"airflow {' '.join(args)} failed:\n{result.stderr[-3000:]}"
        return result

    def start(self, *, migrate: bool = True) -> None:
        """``airflow db migrate`` (unless the database is known to be migrated already), then the api-server."""
        if migrate:
            self.airflow("db", "migrate")
        log = (self.home / "api-server.log").open("wb")
        command = [str(AIRFLOW)]
        if self.interpreter_setup:  # the same command line, run by a Python that first runs the set-up
            command = [str(AIRFLOW.parent / "python"), "-c",
                       f"{self.interpreter_setup}\nimport sys\nfrom airflow.__main__ import main\nsys.exit(main())"]
        self.process = subprocess.Popen([*command, "api-server", "--host", "127.0.0.1", "--port", str(self.port)],
                                        env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the api-server exited: {(self.home / 'api-server.log').read_text()[-3000:]}")
            with contextlib.suppress(OSError), \
                    urllib.request.urlopen(f"{self.url}/api/v2/version", timeout=2) as response:
                if response.status == 200:
                    return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the api-server did not answer within {START_TIMEOUT} s")

    def stop(self) -> None:
        """Terminate the api-server's whole process group (it forks workers), waiting a bounded time."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def reserialize(self) -> None:
        """What the dag-processor would do: parse dags/ (the store) and write the DAGs into the database."""
        self.airflow("dags", "reserialize")

    # -- the commands under test ------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def environment(self, extra: Mapping[str, str]) -> Iterator[None]:
        values = {**self.credentials, "FALCON_AIRFLOW_WAIT": "0", **extra}
        saved = {key: os.environ.get(key) for key in values}
        os.environ.update(values)
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def run(self, *argv: str, env: Mapping[str, str] | None = None) -> tuple[int, str, str]:
        """``falcon-airflow <argv>`` in this process (so a test can make a step crash); (code, stdout, stderr)."""
        args = build_parser().parse_args([*argv, "--entities", str(self.store)])
        out, err = io.StringIO(), io.StringIO()
        with self.environment(env or {}), redirect_stdout(out), redirect_stderr(err):
            code = load(args.run)(args)
        return int(code), out.getvalue(), err.getvalue()

    def json(self, *argv: str) -> tuple[int, dict[str, Any]]:
        code, out, err = self.run(*argv, "-json")
        assert out, err
        return code, json.loads(out)

    def draft(self, name: str, xml: str) -> Path:
        path = self.drafts / name
        path.write_text(textwrap.dedent(xml), encoding="utf-8")
        return path

    def client(self) -> AirflowClient:
        return AirflowClient(Settings(url=self.url, entities=self.store, user="admin", password="admin"))

    # -- what a worker would do -------------------------------------------------------------------------------------

    def worker(self, dag_id: str, run_id: str, *, run_state: str | None = None,
               tasks: Mapping[str, tuple[str, int]] | None = None) -> None:
        """Set a run's state and its tasks' (state, try number) as the scheduler and workers would."""
        import sqlalchemy

        engine = sqlalchemy.create_engine(self.database_url)
        try:
            with engine.begin() as db:
                run = {"dag_id": dag_id, "run_id": run_id}
                if run_state is not None:
                    db.execute(sqlalchemy.text("UPDATE dag_run SET state = :state WHERE dag_id = :dag_id "
                                               "AND run_id = :run_id"), {**run, "state": run_state})
                for task_id, (state, tries) in (tasks or {}).items():
                    db.execute(sqlalchemy.text("UPDATE task_instance SET state = :state, try_number = :tries "
                                               "WHERE dag_id = :dag_id AND run_id = :run_id AND task_id = :task_id"),
                               {**run, "state": state, "tries": tries, "task_id": task_id})
        finally:
            engine.dispose()

    def write_log(self, dag_id: str, run_id: str, task_id: str, try_number: int,
                  entries: list[dict[str, Any]]) -> None:
        folder = self.home / "logs" / f"dag_id={dag_id}" / f"run_id={run_id}" / f"task_id={task_id}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"attempt={try_number}.log").write_text("".join(json.dumps(entry) + "\n" for entry in entries))


@contextlib.contextmanager
def processes(node: AirflowServer, *commands: str) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """Airflow's own components (``scheduler``, ``dag-processor``, ``triggerer``) of ``node``, each logging to
    ``<home>/<command>.log``, stopped (their whole process groups) when the block ends."""
    started: dict[str, subprocess.Popen[bytes]] = {}
    for command in commands:
        with (node.home / f"{command}.log").open("wb") as log:
            started[command] = subprocess.Popen([str(AIRFLOW), command], env=node.env, stdout=log,
                                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield started
    finally:
        for process in started.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGCONT)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in started.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
