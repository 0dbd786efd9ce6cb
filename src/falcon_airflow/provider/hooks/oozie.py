"""Commands for Oozie actions that do not go through spark-submit: shell commands and e-mails.

``shell``: Oozie ran the command on a cluster node in a fresh working folder holding the action's ``<file>``s
(linked under their ``#name``) and unpacked ``<archive>``s; here the folder is on the Airflow worker. With
``<capture-output/>`` the command's standard output is read as Java properties (at most
:data:`MAX_OUTPUT_CHARACTERS`, Oozie's ``oozie.action.max.output.data`` default) for ``wf:actionData``.

The command gets a scrubbed environment, as a YARN container gave Oozie's: the worker's own environment holds
Airflow's secrets (``AIRFLOW__CORE__FERNET_KEY``, ``AIRFLOW_CONN_*``, ``AIRFLOW_VAR_*``, tokens), so only the
variables of :data:`SHELL_ENVIRONMENT` (paths, locale, time zone, the Java/Hadoop/Spark installation) pass, plus
the names a deployment adds in ``[falcon] oozie_shell_environment`` (never one of Airflow's or one that looks like
a secret), plus the action's own ``<env-var>``s. Hadoop clients in the command act as the job's identity through
``HADOOP_PROXY_USER`` (the worker's own Hadoop login proxying, as Spark's ``--proxy-user`` does; this works with
simple and Kerberos authentication alike, given the deployment's ``hadoop.proxyuser`` settings); an ``<env-var>``
that would set the user or the login (``HADOOP_USER_NAME`` ...) is refused. The ``<file>``s and ``<archive>``s
are read only below the action's roots (:mod:`falcon_airflow.oozie.access`).

``email``: Airflow's SMTP connection (``smtp_default`` unless the action's configuration names another in
``oozie.email.smtp.connection``) sends the message with the action's content type; attachments are read only
below the action's roots.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path

from airflow.sdk.bases.hook import BaseHook

from falcon_airflow.core.identity import identity_environment
from falcon_airflow.oozie.access import OutsideRoots, open_below
from falcon_airflow.properties import parse_properties

MAX_OUTPUT_CHARACTERS = 2048
"""Oozie's ``oozie.action.max.output.data``: captured output beyond this fails the action."""
SHELL_TIMEOUT_SECONDS = 24 * 3600
"""A bound on one shell command (Airflow's task timeout, when set, ends it sooner)."""

SHELL_ENVIRONMENT = frozenset({
    "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "JAVA_HOME", "HADOOP_HOME", "HADOOP_CONF_DIR",
    "HADOOP_COMMON_HOME", "HADOOP_HDFS_HOME", "HADOOP_YARN_HOME", "HADOOP_MAPRED_HOME", "YARN_CONF_DIR", "HIVE_HOME",
    "HIVE_CONF_DIR", "SPARK_HOME", "SPARK_CONF_DIR",
})
"""The worker's variables a shell action's command sees (with every ``LC_*``)."""
ENVIRONMENT_SETTING = "oozie_shell_environment"
_NEVER_PASSED = re.compile(r"^AIRFLOW|_CONN_|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|FERNET|PRIVATE|(^|_)KEY($|_)",
                           re.IGNORECASE)
"""Names no deployment setting lets through: Airflow's own configuration and connections, and anything that looks
like a secret."""


def shell_environment(worker: Mapping[str, str], added: Sequence[str] = ()) -> dict[str, str]:
    """The part of the worker's environment a shell command gets: :data:`SHELL_ENVIRONMENT`, every ``LC_*``, and
    the ``added`` names the deployment lists, except those :data:`_NEVER_PASSED` or naming an identity."""
    allowed = set(SHELL_ENVIRONMENT) | {name for name in added
                                         if not _NEVER_PASSED.search(name) and identity_environment(name) is None}
    return {name: value for name, value in worker.items() if name in allowed or name.startswith("LC_")}


class ActionFailed(Exception):
    """An action that ran and failed: ``code`` and ``message`` become ``wf:errorCode`` / ``wf:errorMessage``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class ShellResult:
    exit_code: int
    output: str
    data: dict[str, str] = field(default_factory=dict)


def _local_source(uri: str) -> Path:
    if uri.startswith("file://"):
        return Path(uri.removeprefix("file://"))
    if "://" in uri or uri.startswith(("hdfs:", "s3a:", "s3:", "gs:", "abfs:")):
        raise ActionFailed("FILE", f"cannot stage '{uri}' in the working folder: only local and file:// files "
                                   "reach the Airflow worker")
    return Path(uri)


def read_below(uri: str, roots: Sequence[str], what: str, code: str) -> tuple[str, bytes]:
    """(file name, content) of a local file an action reads, refused (:class:`ActionFailed` with ``code``) unless
    it lies below one of ``roots`` (see :mod:`falcon_airflow.oozie.access`)."""
    _local_source(uri)  # a remote URI is refused as before: only local files reach the worker
    try:
        handle = open_below(uri, roots, what)
    except OutsideRoots as refusal:
        raise ActionFailed(code, str(refusal)) from None
    except FileNotFoundError:
        raise ActionFailed(code, f"{what} {uri} does not exist") from None
    with os.fdopen(handle, "rb") as opened:
        return Path(uri.rstrip("/")).name, opened.read()


def _link_name(link: str, default: str) -> str:
    """Where a file goes in the working folder: its ``#name`` (one plain name, nothing above or below the folder)."""
    name = link or default
    if not name or name in (".", "..") or "/" in name or "\\" in name:
        raise ActionFailed("FILE", f"'{name}' is not a file name for the working folder")
    return name


class OozieShellHook(BaseHook):
    """Runs an Oozie shell action's command in a working folder of its own on the worker.

    ``roots``: the local folders its files may come from; ``run_as``: the job's identity, which Hadoop clients in the
    command act as (``HADOOP_PROXY_USER``); ``environment``: extra worker variables the deployment lets through."""

    def __init__(self, log_line: Callable[[str], None] | None = None, *, roots: Sequence[str] = (),
                 run_as: str | None = None, environment: Sequence[str] = ()) -> None:
        super().__init__()
        self._log_line = log_line or self.log.info
        self.roots = tuple(roots)
        self.run_as = run_as
        self.environment = tuple(environment)

    @contextmanager
    def working_folder(self, files: Sequence[str], archives: Sequence[str]) -> Iterator[Path]:
        with tempfile.TemporaryDirectory(prefix="oozie-shell-") as folder:
            root = Path(folder)
            for item in files:
                uri, _, link = item.partition("#")
                name, content = read_below(uri, self.roots, "<file>", "FILE")
                target = root / _link_name(link, name)
                target.write_bytes(content)
                target.chmod(0o700)  # scripts run like Hadoop's cache links
            for item in archives:
                uri, _, link = item.partition("#")
                name, content = read_below(uri, self.roots, "<archive>", "FILE")
                with tempfile.TemporaryDirectory(prefix="oozie-archive-") as staging:
                    copy = Path(staging) / name
                    copy.write_bytes(content)
                    # tar: the "data" filter refuses members that would land outside the folder, or links out of
                    # it; zip: the unpacker skips absolute names and names with '..' itself (and takes no filter)
                    unpacked = str(root / _link_name(link, name))
                    try:
                        if tarfile.is_tarfile(copy):
                            shutil.unpack_archive(str(copy), unpacked, filter="data")
                        else:
                            shutil.unpack_archive(str(copy), unpacked)
                    except (shutil.ReadError, tarfile.TarError, ValueError, OSError) as problem:
                        raise ActionFailed("FILE", f"<archive> {uri} cannot be unpacked: {problem}") from None
            yield root

    def environment_for(self, env_vars: Sequence[str]) -> dict[str, str]:
        """The command's environment: the scrubbed worker environment, the job's identity, its own variables."""
        environment = shell_environment(os.environ, self.environment)
        if self.run_as:
            environment["HADOOP_PROXY_USER"] = self.run_as
        for item in env_vars:
            name, sign, value = item.partition("=")
            if not sign or not name.strip():
                raise ActionFailed("ENV", f"<env-var> '{item}' is not NAME=VALUE")
            refusal = identity_environment(name, value)
            if refusal is not None:
                raise ActionFailed("ENV", f"<env-var> {name.strip()}: {refusal}; the action runs as the process's "
                                          "-doAs user, else its ACL owner")
            environment[name.strip()] = value
        return environment

    def run(self, command: str, arguments: Sequence[str], env_vars: Sequence[str], files: Sequence[str],
            archives: Sequence[str], capture_output: bool) -> ShellResult:
        environment = self.environment_for(env_vars)
        with self.working_folder(files, archives) as folder:
            local = folder / command
            program = str(local) if command and "/" not in command and local.is_file() else command
            environment["PWD"] = str(folder)
            self._log_line(f"running {program} {' '.join(arguments)} in {folder}")
            try:
                process = subprocess.Popen([program, *arguments], cwd=folder, env=environment, text=True,
                                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            except OSError as error:
                raise ActionFailed("1", f"cannot run '{command}': {error.strerror or error}") from error
            lines = []
            assert process.stdout is not None
            for line in process.stdout:
                lines.append(line)
                self._log_line(line.rstrip("\n"))
            code = process.wait(timeout=SHELL_TIMEOUT_SECONDS)
        output = "".join(lines)
        if code != 0:
            raise ActionFailed(str(code), f"Main class [ShellMain], exit code [{code}]")
        data: dict[str, str] = {}
        if capture_output:
            if len(output) > MAX_OUTPUT_CHARACTERS:
                raise ActionFailed("JA010", f"output data exceeds its limit [{MAX_OUTPUT_CHARACTERS}]")
            data = parse_properties(output)
        return ShellResult(code, output, data)


DEFAULT_SENDER = "falcon-airflow@localhost"


class OozieEmailHook(BaseHook):
    """Sends an Oozie e-mail action through an Airflow SMTP connection."""

    def __init__(self, smtp_conn_id: str = "smtp_default", *, roots: Sequence[str] = ()) -> None:
        super().__init__()
        self.smtp_conn_id = smtp_conn_id
        self.roots = tuple(roots)
        """The local folders attachments may come from (see :mod:`falcon_airflow.oozie.access`)."""

    @staticmethod
    def addresses(text: str | None) -> list[str]:
        return [item.strip() for item in (text or "").split(",") if item.strip()]

    def build(self, *, sender: str, to: list[str], cc: list[str], subject: str, body: str,
              content_type: str | None, attachments: Sequence[str]) -> MIMEMultipart:
        message = MIMEMultipart("mixed")
        message["Subject"] = subject
        message["From"] = sender
        message["To"] = ", ".join(to)
        if cc:
            message["Cc"] = ", ".join(cc)
        main, _, subtype = (content_type or "text/plain").partition("/")
        if main.strip().lower() != "text":
            raise ActionFailed("EM008", f"content_type '{content_type}' is not a text type")
        message.attach(MIMEText(body, subtype.split(";")[0].strip() or "plain", "utf-8"))
        for item in attachments:
            name, content = read_below(item, self.roots, "attachment", "EM008")
            part = MIMEApplication(content, Name=name)
            part["Content-Disposition"] = f'attachment; filename="{name}"'
            message.attach(part)
        return message

    def send(self, *, to: str, cc: str | None, bcc: str | None, subject: str, body: str, content_type: str | None,
             attachments: Sequence[str]) -> list[str]:
        from airflow.providers.smtp.hooks.smtp import SmtpHook

        recipients_to, recipients_cc, recipients_bcc = self.addresses(to), self.addresses(cc), self.addresses(bcc)
        if not recipients_to and not recipients_cc and not recipients_bcc:
            raise ActionFailed("EM001", "no recipient: <to>, <cc> and <bcc> are empty")
        with SmtpHook(smtp_conn_id=self.smtp_conn_id) as smtp:
            sender = smtp.from_email or DEFAULT_SENDER
            message = self.build(sender=sender, to=recipients_to, cc=recipients_cc, subject=subject, body=body,
                                 content_type=content_type, attachments=attachments)
            everyone = recipients_to + recipients_cc + recipients_bcc
            client = smtp._smtp_client  # the hook's open connection; it only sends HTML bodies itself
            if client is None:
                raise ActionFailed("EM004", f"SMTP connection '{self.smtp_conn_id}' did not open")
            client.sendmail(sender, everyone, message.as_string())
        return everyone
