"""Real PostgreSQL and MariaDB servers for the import/export tests: private data folders, free ports on 127.0.0.1,
password authentication, stopped at the end. Debian's packages provide them (``.ci/run`` installs them).

Also used by ``benchmarks/db_import.py``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")
START_TIMEOUT_SECONDS = 60
USER = "falcon"
PASSWORD = "s3cret-Pa55"  # a test server's password, checked to never reach a log or an event
DATABASE = "shop"


class ServerUnavailable(RuntimeError):
    """The server's binaries are not installed."""


@dataclass(frozen=True)
class Server:
    kind: str  # postgres | mysql
    port: int
    folder: Path
    user: str = USER
    password: str = PASSWORD
    database: str = DATABASE

    @property
    def url(self) -> str:
        if self.kind == "postgres":
            return f"jdbc:postgresql://127.0.0.1:{self.port}/{self.database}"
        return f"jdbc:mariadb://127.0.0.1:{self.port}/{self.database}"

    @property
    def driver(self) -> str:
        return "org.postgresql.Driver" if self.kind == "postgres" else "org.mariadb.jdbc.Driver"

    def sql(self, statement: str, *, database: str | None = None) -> str:
        """Run SQL with the server's own client as the test user; tab-separated rows, no header."""
        if self.kind == "postgres":
            command = [str(POSTGRES_BIN / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user,
                       "-d", database or self.database, "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", statement]
            env = {**os.environ, "PGPASSWORD": self.password}
        else:
            command = ["mariadb", "-h", "127.0.0.1", "-P", str(self.port), "-u", self.user, "-N", "-B",
                       database or self.database, "-e", statement]
            env = {**os.environ, "MYSQL_PWD": self.password}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{self.kind} SQL failed: {done.stderr.strip()}")
        return done.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"server did not listen on {port} within {START_TIMEOUT_SECONDS} s")


def _as_postgres_user() -> list[str]:
    """PostgreSQL refuses to run as root: as root, run its programs as the ``postgres`` account."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


@contextmanager
def postgres() -> Iterator[Server]:
    if not (POSTGRES_BIN / "initdb").exists():
        raise ServerUnavailable("PostgreSQL 15 is not installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="falcon-pg-"))
    data, log, pwfile = folder / "data", folder / "server.log", folder / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(pwfile, "postgres")
    os.chmod(folder, 0o700)
    prefix = _as_postgres_user()
    subprocess.run([*prefix, str(POSTGRES_BIN / "initdb"), "-D", str(data), "-U", USER, f"--pwfile={pwfile}",
                    "--auth=scram-sha-256", "-E", "UTF8", "--no-sync"], check=True, capture_output=True,
                   timeout=120)
    port = free_port()
    process = subprocess.Popen([*prefix, str(POSTGRES_BIN / "postgres"), "-D", str(data), "-p", str(port),
                                "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={folder}",
                                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
                               stdout=log.open("wb"), stderr=subprocess.STDOUT)
    server = Server("postgres", port, folder)
    try:
        _wait_for(port, process, log)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while True:  # listening comes before accepting logins
            try:
                server.sql("SELECT 1", database="postgres")
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        server.sql(f"CREATE DATABASE {DATABASE}", database="postgres")
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def mariadb() -> Iterator[Server]:
    daemon, installer = shutil.which("mariadbd") or "/usr/sbin/mariadbd", shutil.which("mariadb-install-db")
    if installer is None or not Path(daemon).exists():
        raise ServerUnavailable("MariaDB is not installed (apt-get install mariadb-server)")
    folder = Path(tempfile.mkdtemp(prefix="falcon-maria-"))
    data, log, sock = folder / "data", folder / "server.log", folder / "mysqld.sock"
    account = ["--user=root"] if os.geteuid() == 0 else []
    subprocess.run([installer, "--no-defaults", f"--datadir={data}", *account,
                    "--auth-root-authentication-method=socket", "--skip-test-db"],
                   check=True, capture_output=True, timeout=180)
    port = free_port()
    process = subprocess.Popen([daemon, "--no-defaults", f"--datadir={data}", f"--port={port}",
                                "--bind-address=127.0.0.1", f"--socket={sock}", f"--pid-file={folder / 'pid'}",
                                "--skip-log-bin", "--innodb-flush-log-at-trx-commit=2",
                                "--innodb-buffer-pool-size=256M", "--skip-name-resolve", *account],
                               stdout=log.open("wb"), stderr=subprocess.STDOUT)
    server = Server("mysql", port, folder)
    try:
        _wait_for(port, process, log)
        setup = (f"CREATE DATABASE {DATABASE}; CREATE USER '{USER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'; "
                 f"GRANT ALL ON {DATABASE}.* TO '{USER}'@'127.0.0.1';")
        subprocess.run(["mariadb", f"--socket={sock}", "-u", "root", "-e", setup], check=True,
                       capture_output=True, timeout=60)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
