"""The shell and e-mail hooks of Oozie actions: the working folder, exit codes, MIME messages."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from falcon_airflow.provider.hooks.oozie import (
    MAX_OUTPUT_CHARACTERS,
    ActionFailed,
    OozieEmailHook,
    OozieShellHook,
)


def test_shell_runs_in_a_working_folder_with_its_files_and_archives(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text('#!/bin/sh\necho "who=$1"\necho "env=$GREETING"\ncat data/inside.txt | sed "s/^/arch=/"\n')
    (tmp_path / "inside.txt").write_text("from-archive\n")
    with tarfile.open(tmp_path / "bundle.tgz", "w:gz") as archive:
        archive.add(tmp_path / "inside.txt", arcname="inside.txt")
    lines: list[str] = []
    result = OozieShellHook(log_line=lines.append, roots=[str(tmp_path)]).run(
        "go.sh", ["world"], ["GREETING=hi there"], [f"file://{script}#go.sh"], [f"{tmp_path}/bundle.tgz#data"],
        capture_output=True)
    assert result.data == {"who": "world", "env": "hi there", "arch": "from-archive"}
    assert "who=world" in lines


def test_shell_failures_carry_oozie_codes(tmp_path: Path) -> None:
    hook = OozieShellHook(log_line=lambda line: None)
    with pytest.raises(ActionFailed) as failed:
        hook.run("sh", ["-c", "exit 3"], [], [], [], capture_output=False)
    assert failed.value.code == "3" and "exit code [3]" in failed.value.message
    with pytest.raises(ActionFailed, match="exceeds its limit"):
        hook.run("sh", ["-c", f"head -c {MAX_OUTPUT_CHARACTERS + 1} /dev/zero | tr '\\0' a"], [], [], [],
                 capture_output=True)
    with pytest.raises(ActionFailed, match="only local and file:// files"):
        hook.run("true", [], [], ["hdfs://nn/app/run.sh"], [], capture_output=False)
    with pytest.raises(ActionFailed, match="is not NAME=VALUE"):
        hook.run("true", [], ["JUSTNAME"], [], [], capture_output=False)


def test_email_message_keeps_the_content_type_and_attachments(tmp_path: Path) -> None:
    attachment = tmp_path / "report.csv"
    attachment.write_text("a,b\n")
    hook = OozieEmailHook(roots=[str(tmp_path)])
    message = hook.build(sender="s@x", to=["a@x"], cc=["c@x"], subject="Done", body="<b>ok</b>",
                         content_type="text/html", attachments=[str(attachment)])
    parts = list(message.walk())
    assert message["Cc"] == "c@x" and [part.get_content_type() for part in parts][1:] == [
        "text/html", "application/octet-stream"]
    assert parts[2].get_filename() == "report.csv"
    with pytest.raises(ActionFailed, match="not a text type"):
        OozieEmailHook().build(sender="s", to=["a"], cc=[], subject="", body="", content_type="image/png",
                               attachments=[])
