"""Oozie shell and e-mail actions on the worker: a scrubbed environment, the job's identity for Hadoop clients,
no identity chosen by the action, and local files read only below the action's roots."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from falcon_airflow.provider.hooks.oozie import ActionFailed, OozieEmailHook, OozieShellHook, shell_environment

SECRETS = {
    "AIRFLOW__CORE__FERNET_KEY": "fernet-secret",
    "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": "postgresql://airflow:pw@db/airflow",
    "AIRFLOW_CONN_WAREHOUSE": "postgres://u:pw@db/w",
    "AIRFLOW_VAR_API_KEY": "var-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "GITHUB_TOKEN": "ghp-secret",
    "DB_PASSWORD": "db-secret",
    "HADOOP_USER_NAME": "hdfs",
    "KRB5CCNAME": "/tmp/krb5cc_service",
}


def _environment_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **hook: object) -> dict[str, str]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("PYTHONPATH", "/opt/lib")
    result = OozieShellHook(log_line=lambda line: None, roots=[str(tmp_path)], **hook).run(  # type: ignore[arg-type]
        "env", [], ["OWN=mine"], [], [], capture_output=True)
    return result.data


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_the_workers_secrets_and_identity_never_reach_a_shell_command(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      name: str) -> None:
    seen = _environment_seen(tmp_path, monkeypatch)
    assert name not in seen
    assert SECRETS[name] not in "\n".join(f"{key}={value}" for key, value in seen.items())


def test_a_shell_command_keeps_paths_locale_and_its_own_variables(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _environment_seen(tmp_path, monkeypatch)
    assert seen["PATH"] == os.environ["PATH"] and seen["LANG"] == "C.UTF-8" and seen["LC_ALL"] == "C.UTF-8"
    assert seen["OWN"] == "mine" and "PYTHONPATH" not in seen and "HADOOP_PROXY_USER" not in seen


def test_hadoop_clients_in_a_shell_command_act_as_the_jobs_identity(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _environment_seen(tmp_path, monkeypatch, run_as="analytics")
    assert seen["HADOOP_PROXY_USER"] == "analytics" and "HADOOP_USER_NAME" not in seen


def test_a_deployment_adds_names_but_never_airflows_or_secret_ones() -> None:
    worker = {"PATH": "/bin", "PYTHONPATH": "/opt", "AIRFLOW__CORE__FERNET_KEY": "f", "DB_PASSWORD": "p",
              "SERVICE_TOKEN": "t", "HADOOP_USER_NAME": "hdfs", "AIRFLOW_CONN_X": "c", "MY_KEY": "k"}
    added = ["PYTHONPATH", "AIRFLOW__CORE__FERNET_KEY", "DB_PASSWORD", "SERVICE_TOKEN", "HADOOP_USER_NAME",
             "AIRFLOW_CONN_X", "MY_KEY"]
    assert shell_environment(worker, added) == {"PATH": "/bin", "PYTHONPATH": "/opt"}


@pytest.mark.parametrize("env_var", ["HADOOP_USER_NAME=hdfs", "HADOOP_PROXY_USER=hdfs", "KRB5CCNAME=/tmp/x",
                                     "HADOOP_TOKEN_FILE_LOCATION=/tmp/t", "HADOOP_OPTS=-DHADOOP_USER_NAME=hdfs",
                                     "JAVA_TOOL_OPTIONS=-Duser.name=hdfs"])
def test_an_env_var_that_chooses_the_identity_is_refused(tmp_path: Path, env_var: str) -> None:
    hook = OozieShellHook(log_line=lambda line: None, roots=[str(tmp_path)], run_as="analytics")
    with pytest.raises(ActionFailed, match="-doAs user, else its ACL owner") as failed:
        hook.run("true", [], [env_var], [], [], capture_output=False)
    assert failed.value.code == "ENV"


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """An application folder (the root), a secret beside it, and links from inside to outside."""
    app, outside = tmp_path / "apps" / "wf", tmp_path / "private"
    app.mkdir(parents=True)
    outside.mkdir()
    (app / "run.sh").write_text("#!/bin/sh\necho ok=1\n")
    (outside / "airflow.cfg").write_text("fernet_key = secret\n")
    (app / "linked.cfg").symlink_to(outside / "airflow.cfg")
    (app / "door").symlink_to(outside)
    return {"app": app, "outside": outside}


def _refused_paths(layout: dict[str, Path]) -> list[str]:
    app, outside = layout["app"], layout["outside"]
    return [
        str(outside / "airflow.cfg"),                              # outside every root
        f"file://{outside / 'airflow.cfg'}",
        f"{app}/../../private/airflow.cfg",                        # '..' segments
        f"file://{app}/%2e%2e/%2e%2e/private/airflow.cfg",         # '..' once percent-decoded
        f"file://{app}/%2E%2E/%2E%2E/private/airflow.cfg",
        str(app / "linked.cfg"),                                   # the last component is a link out
        str(app / "door" / "airflow.cfg"),                         # a folder on the way is a link out
        "/etc/passwd",
        "file://otherhost/etc/passwd",                             # another host's file
    ]


@pytest.mark.parametrize("index", range(9))
def test_shell_files_are_read_only_below_the_roots(layout: dict[str, Path], index: int) -> None:
    path = _refused_paths(layout)[index]
    hook = OozieShellHook(log_line=lambda line: None, roots=[str(layout["app"])])
    with pytest.raises(ActionFailed) as failed:
        hook.run("true", [], [], [f"{path}#x"], [], capture_output=False)
    assert failed.value.code == "FILE"
    with pytest.raises(ActionFailed):
        hook.run("true", [], [], [], [f"{path}#x"], capture_output=False)


@pytest.mark.parametrize("index", range(9))
def test_email_attachments_are_read_only_below_the_roots(layout: dict[str, Path], index: int) -> None:
    path = _refused_paths(layout)[index]
    with pytest.raises(ActionFailed) as failed:
        OozieEmailHook(roots=[str(layout["app"])]).build(sender="s@x", to=["a@x"], cc=[], subject="", body="",
                                                         content_type=None, attachments=[path])
    assert failed.value.code == "EM008" and "secret" not in failed.value.message


def test_a_file_below_the_root_is_read(layout: dict[str, Path]) -> None:
    hook = OozieShellHook(log_line=lambda line: None, roots=[str(layout["app"])])
    result = hook.run("go.sh", [], [], [f"file://{layout['app']}/run.sh#go.sh"], [], capture_output=True)
    assert result.data == {"ok": "1"}


@pytest.mark.parametrize("root", ["/", "/tmp", "file:///", "relative/folder"])
def test_a_root_too_shallow_or_relative_opens_nothing(layout: dict[str, Path], root: str) -> None:
    hook = OozieShellHook(log_line=lambda line: None, roots=[root])
    with pytest.raises(ActionFailed, match="outside the folders"):
        hook.run("true", [], [], [str(layout["app"] / "run.sh")], [], capture_output=False)


@pytest.mark.parametrize("link", ["../escape", "sub/name", ".."])
def test_a_link_name_stays_in_the_working_folder(layout: dict[str, Path], link: str) -> None:
    hook = OozieShellHook(log_line=lambda line: None, roots=[str(layout["app"])])
    with pytest.raises(ActionFailed, match="is not a file name"):
        hook.run("true", [], [], [f"{layout['app']}/run.sh#{link}"], [], capture_output=False)


@pytest.mark.parametrize("member", ["../escaped.txt", "sub/../../escaped.txt", "/tmp/falcon-abs-escaped.txt"])
def test_an_archive_member_never_lands_outside_the_working_folder(layout: dict[str, Path], member: str) -> None:
    archive = layout["app"] / "bundle.tgz"
    with tarfile.open(archive, "w:gz") as bundle:
        data = b"escaped\n"
        info = tarfile.TarInfo(member)
        info.size = len(data)
        bundle.addfile(info, io.BytesIO(data))
    hook = OozieShellHook(log_line=lambda line: None, roots=[str(layout["app"])])
    try:  # refused, or (an absolute name) unpacked inside the working folder
        hook.run("test", ["-f", f"data{member}" if member.startswith("/") else "nothing"], [], [],
                 [f"{archive}#data"], capture_output=False)
    except ActionFailed as failed:
        assert "cannot be unpacked" in failed.message and not member.startswith("/")
    assert not (layout["app"].parent / "escaped.txt").exists() and not Path(member).exists()
