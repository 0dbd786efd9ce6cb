"""The sandbox's process handling: a service that dies says which one and why; stop ends a whole session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from falcon_airflow.cli import main
from falcon_airflow.sandbox.services import SandboxError, alive, free_port, launch, port_open, stop


def test_a_service_that_exits_names_itself_and_shows_its_log(tmp_path: Path) -> None:
    service = launch("metastore", [sys.executable, "-c", "import sys; print('no database driver'); sys.exit(3)"],
                     log=tmp_path / "logs" / "metastore.log", cwd=tmp_path / "metastore")
    with pytest.raises(SandboxError) as raised:
        service.wait_for_line("READY", timeout=30)
    message = str(raised.value)
    assert "'metastore' exited before" in message and "no database driver" in message


def test_a_service_that_never_gets_ready_times_out(tmp_path: Path) -> None:
    service = launch("s3", [sys.executable, "-c", "import time; time.sleep(60)"], log=tmp_path / "s3.log",
                     cwd=tmp_path)
    try:
        with pytest.raises(SandboxError, match="'s3' did not get to listen within 1 s"):
            service.wait_until(lambda: port_open(free_port()), timeout=1, what="listen")
    finally:
        stop(service.pid)
    assert not alive(service.pid)


def test_a_missing_program_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="'hdfs' cannot start: /no/such/java"):
        launch("hdfs", ["/no/such/java"], log=tmp_path / "hdfs.log", cwd=tmp_path)


def test_status_and_down_without_a_sandbox(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sandbox", "status", "--state", str(tmp_path)]) == 1
    assert "no sandbox in" in capsys.readouterr().err
    assert main(["sandbox", "down", "--state", str(tmp_path)]) == 1
