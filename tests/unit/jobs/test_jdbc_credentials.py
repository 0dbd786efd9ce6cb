"""What the import and export jobs read as a password: only a file (or keystore) under the roots the Airflow task
passed, judged on its link-resolved path; nothing at all without roots. The JVM's qualification of a path is
stood in for by ``realpath`` (tests/integration/jobs/test_jdbc_credentials.py runs it in Spark)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.core.databases.credentials import ROOTS_ENV
from falcon_airflow.jobs import jdbc
from falcon_airflow.jobs.frame import JobError


@pytest.fixture
def local(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every path a local file, qualified as Hadoop's local file system does, links resolved."""
    def resolve(session: Any, text: str, *, must_exist: bool) -> str:
        path = text.removeprefix("file://")
        if must_exist and not os.path.exists(path):
            raise FileNotFoundError(path)
        return "file://" + os.path.realpath(path)

    monkeypatch.setattr(jdbc, "_resolve", resolve)


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "shop.password").write_text("Pa55word\n")
    outside = tmp_path / "airflow.cfg"
    outside.write_text("fernet_key = k\n")
    (root / "link-out").symlink_to(outside)
    (root / "folder-out").symlink_to(tmp_path, target_is_directory=True)
    (root / "big").write_bytes(b"x" * (jdbc.MAX_PASSWORD_FILE_BYTES + 1))
    monkeypatch.setenv(ROOTS_ENV, json.dumps([str(root)]))
    return root


def test_a_file_under_the_roots_is_read(local: None, vault: Path) -> None:
    assert jdbc._read_password_file(None, str(vault / "shop.password")) == "Pa55word"  # type: ignore[arg-type]


@pytest.mark.parametrize(("relative", "reason"), [
    pytest.param("link-out", "is not under the credential roots", id="symlinked-file"),
    pytest.param("folder-out/airflow.cfg", "is not under the credential roots", id="symlinked-folder"),
    pytest.param("../airflow.cfg", "goes up", id="dot-dot"),
    pytest.param("%2e%2e/airflow.cfg", "goes up", id="encoded-dot-dot"),
    pytest.param("big", "larger than", id="not-a-password-file"),
])
def test_an_escape_is_refused(local: None, vault: Path, relative: str, reason: str) -> None:
    with pytest.raises(JobError, match=reason) as refused:
        jdbc._read_password_file(None, f"{vault}/{relative}")  # type: ignore[arg-type]
    assert "fernet" not in str(refused.value)


@pytest.mark.parametrize("roots", [None, "[]", "not json", '[""]'])
def test_no_roots_no_file(local: None, vault: Path, monkeypatch: pytest.MonkeyPatch, roots: str | None) -> None:
    if roots is None:
        monkeypatch.delenv(ROOTS_ENV)
    else:
        monkeypatch.setenv(ROOTS_ENV, roots)
    with pytest.raises(JobError, match=f"rule FA041.*{ROOTS_ENV}"):
        jdbc._read_password_file(None, str(vault / "shop.password"))  # type: ignore[arg-type]


@pytest.mark.parametrize("provider", [
    pytest.param("user:///", id="user-credentials"),
    pytest.param("jceks://file{outside}", id="keystore-outside"),
    pytest.param("localjceks://file{vault}/link-out", id="keystore-behind-a-link"),
])
def test_a_keystore_outside_the_roots_is_refused(local: None, vault: Path, provider: str) -> None:
    text = provider.format(outside=str(vault.parent / "airflow.cfg"), vault=str(vault))
    with pytest.raises(JobError, match="rule FA040"):
        jdbc._read_alias(_NoJvm(), "falcon.admin", text)  # type: ignore[arg-type]


class _NoJvm:
    """A session whose JVM must not be reached: a refused keystore is refused before Hadoop is asked."""

    @property
    def _jvm(self) -> Any:
        return self

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the JVM was asked for {name}")
