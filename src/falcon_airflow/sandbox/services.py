"""Starting, watching and stopping the sandbox's server processes: each in a session of its own (so stopping it
stops its children), its output in a log file, its readiness checked within a bounded time."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

LOG_TAIL_LINES = 30


class SandboxError(RuntimeError):
    """A service that did not start (or a sandbox that is not there): which one and why."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the service binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_open(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def log_tail(log: Path, lines: int = LOG_TAIL_LINES) -> str:
    if not log.exists():
        return "(no output)"
    text = log.read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n".join(text[-lines:]) or "(no output)"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a child of ours that exited but was not reaped yet is not alive
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == 0


@dataclass
class Service:
    """One running server process."""

    name: str
    pid: int
    log: Path

    def failure(self, reason: str) -> SandboxError:
        return SandboxError(f"sandbox service '{self.name}' {reason}; the end of its log {self.log}:\n"
                            f"{log_tail(self.log)}")

    def wait_until(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        """Poll ``ready`` until it holds; fail (naming the service, with its log) if the process dies or time
        runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                return
            if not alive(self.pid):
                raise self.failure(f"exited before {what}")
            time.sleep(0.5)
        raise self.failure(f"did not get to {what} within {timeout:.0f} s")

    def wait_for_line(self, marker: str, timeout: float) -> None:
        def printed() -> bool:
            return self.log.exists() and marker in self.log.read_text(encoding="utf-8", errors="replace")

        self.wait_until(printed, timeout, f"print {marker!r}")


def launch(name: str, argv: Sequence[str], *, log: Path, cwd: Path, env: Mapping[str, str] | None = None) -> Service:
    log.parent.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as output:
        try:
            process = subprocess.Popen(list(argv), stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       cwd=cwd, env={**os.environ, **(env or {})}, start_new_session=True)
        except OSError as problem:
            raise SandboxError(f"sandbox service '{name}' cannot start: {argv[0]}: {problem.strerror}") from None
    return Service(name=name, pid=process.pid, log=log)


def stop(pid: int, timeout: float = 20.0) -> None:
    """SIGTERM the process's session (its shutdown hooks stop the servers), SIGKILL what is left after
    ``timeout``."""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sent)
        except ProcessLookupError:
            return
        except PermissionError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not alive(pid):
                return
            time.sleep(0.2)
