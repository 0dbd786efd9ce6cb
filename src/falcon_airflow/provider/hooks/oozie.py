"""Commands for Oozie actions that do not go through spark-submit: shell commands and e-mails.

``shell``: Oozie ran the command on a cluster node in a fresh working folder holding the action's ``<file>``s
(linked under their ``#name``) and unpacked ``<archive>``s; here the folder is on the Airflow worker. With
``<capture-output/>`` the command's standard output is read as Java properties (at most
:data:`MAX_OUTPUT_CHARACTERS`, Oozie's ``oozie.action.max.output.data`` default) for ``wf:actionData``.

``email``: Airflow's SMTP connection (``smtp_default`` unless the action's configuration names another in
``oozie.email.smtp.connection``) sends the message with the action's content type.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path

from airflow.sdk.bases.hook import BaseHook

MAX_OUTPUT_CHARACTERS = 2048
"""Oozie's ``oozie.action.max.output.data``: captured output beyond this fails the action."""
SHELL_TIMEOUT_SECONDS = 24 * 3600
"""A bound on one shell command (Airflow's task timeout, when set, ends it sooner)."""


class ActionFailed(Exception):
    """An action that ran and failed: ``code`` and ``message`` become ``wf:errorCode`` / ``wf:errorMessage``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_properties(text: str) -> dict[str, str]:
    """Java ``Properties.load`` rules: ``#``/``!`` comments, ``=``, ``:`` or blanks as separators, ``\\``
    continuation lines and escapes (``\\t``, ``\\n``, ``\\uXXXX``)."""
    result: dict[str, str] = {}
    lines = iter(text.splitlines())
    for raw in lines:
        line = raw.lstrip(" \t\f")
        if not line or line[0] in "#!":
            continue
        while _continues(line):
            line = line[:-1] + next(lines, "").lstrip(" \t\f")
        key, value = _split_property(line)
        result[_unescape(key)] = _unescape(value)
    return result


def _continues(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _split_property(line: str) -> tuple[str, str]:
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\\":
            index += 2
            continue
        if char in "=: \t\f":
            break
        index += 1
    key, rest = line[:index], line[index:]
    rest = rest.lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return key, rest


def _unescape(text: str) -> str:
    out, index = [], 0
    while index < len(text):
        char = text[index]
        if char != "\\" or index + 1 >= len(text):
            out.append(char)
            index += 1
            continue
        code = text[index + 1]
        if code == "u" and index + 6 <= len(text):
            try:
                out.append(chr(int(text[index + 2:index + 6], 16)))
                index += 6
                continue
            except ValueError:
                pass
        out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(code, code))
        index += 2
    return "".join(out)


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


class OozieShellHook(BaseHook):
    """Runs an Oozie shell action's command in a working folder of its own on the worker."""

    def __init__(self, log_line: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self._log_line = log_line or self.log.info

    @contextmanager
    def working_folder(self, files: Sequence[str], archives: Sequence[str]) -> Iterator[Path]:
        with tempfile.TemporaryDirectory(prefix="oozie-shell-") as folder:
            root = Path(folder)
            for item in files:
                uri, _, link = item.partition("#")
                source = _local_source(uri)
                if not source.is_file():
                    raise ActionFailed("FILE", f"<file> {uri} does not exist")
                target = root / (link or source.name)
                shutil.copy2(source, target)
                target.chmod(target.stat().st_mode | stat.S_IXUSR)  # scripts run like Hadoop's cache links
            for item in archives:
                uri, _, link = item.partition("#")
                source = _local_source(uri)
                if not source.is_file():
                    raise ActionFailed("FILE", f"<archive> {uri} does not exist")
                shutil.unpack_archive(str(source), str(root / (link or source.name)))
            yield root

    def run(self, command: str, arguments: Sequence[str], env_vars: Sequence[str], files: Sequence[str],
            archives: Sequence[str], capture_output: bool) -> ShellResult:
        environment = dict(os.environ)
        for item in env_vars:
            name, sign, value = item.partition("=")
            if not sign or not name.strip():
                raise ActionFailed("ENV", f"<env-var> '{item}' is not NAME=VALUE")
            environment[name.strip()] = value
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

    def __init__(self, smtp_conn_id: str = "smtp_default") -> None:
        super().__init__()
        self.smtp_conn_id = smtp_conn_id

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
            source = _local_source(item)
            if not source.is_file():
                raise ActionFailed("EM008", f"attachment {item} does not exist")
            part = MIMEApplication(source.read_bytes(), Name=source.name)
            part["Content-Disposition"] = f'attachment; filename="{source.name}"'
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
