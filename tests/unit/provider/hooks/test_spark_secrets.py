"""Secret settings never reach the spark-submit command line (visible to every user in ``ps`` and written to the
task log): they go to a properties file only the task's user can read, deleted when the submit ends."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from falcon_airflow.provider.hooks.spark import FalconSparkSubmitHook

SECRET = "Sup3rSecretValue"

SECRET_CONF = [
    pytest.param("spark.hadoop.fs.s3a.secret.key", id="s3a-secret-key"),
    pytest.param("spark.hadoop.fs.s3a.access.key", id="s3a-access-key"),
    pytest.param("spark.hadoop.fs.s3a.session.token", id="s3a-session-token"),
    pytest.param("spark.hadoop.fs.s3a.bucket.logs.secret.key", id="s3a-per-bucket-secret"),
    pytest.param("spark.hadoop.fs.azure.account.key.shop.blob.core.windows.net", id="azure-account-key"),
    pytest.param("spark.hadoop.javax.jdo.option.ConnectionPassword", id="metastore-password"),
    pytest.param("spark.hadoop.fs.gs.auth.service.account.private.key", id="gcs-private-key"),
    pytest.param("spark.hadoop.hive.metastore.client.credential", id="credential"),
]


def hook(**kwargs: object) -> FalconSparkSubmitHook:
    return FalconSparkSubmitHook(default_master="local[2]", conn_id="falcon_no_such_connection", **kwargs)


def properties(path: str) -> dict[str, str]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


@pytest.mark.parametrize("key", SECRET_CONF)
def test_a_secret_setting_goes_to_a_private_properties_file(key: str, monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path / "no-conf"))
    built = hook(conf={key: SECRET, "spark.sql.shuffle.partitions": "4"})
    argv = built._build_spark_submit_command("job.py")
    try:
        assert not any(SECRET in item for item in argv), argv
        assert "spark.sql.shuffle.partitions=4" in argv  # a plain setting stays where it was
        path = argv[argv.index("--properties-file") + 1]
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert properties(path)[key] == SECRET
    finally:
        built.remove_properties_files()
    assert not Path(path).exists()


def test_no_secret_no_file() -> None:
    argv = hook(conf={"spark.hadoop.fs.s3a.endpoint": "http://127.0.0.1:9000"})._build_spark_submit_command("j.py")
    assert "--properties-file" not in argv and "spark.hadoop.fs.s3a.endpoint=http://127.0.0.1:9000" in argv


@pytest.mark.parametrize("source", ["spark-defaults", "given-file"])
def test_what_spark_submit_would_have_loaded_comes_first(source: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """--properties-file replaces spark-defaults.conf: the file starts with it (or the given file), our secrets
    after, so that they win."""
    (tmp_path / "spark-defaults.conf").write_text("spark.eventLog.enabled=true\nspark.hadoop.fs.s3a.secret.key=old")
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    given = {"properties_file": str(tmp_path / "spark-defaults.conf")} if source == "given-file" else {}
    if source == "given-file":
        monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path / "elsewhere"))
    built = hook(conf={"spark.hadoop.fs.s3a.secret.key": "a b=c:d\\e#"}, **given)
    argv = built._build_spark_submit_command("job.py")
    try:
        assert argv.count("--properties-file") == 1
        text = Path(argv[argv.index("--properties-file") + 1]).read_text(encoding="utf-8")
        assert text.splitlines() == ["spark.eventLog.enabled=true", "spark.hadoop.fs.s3a.secret.key=old",
                                     "spark.hadoop.fs.s3a.secret.key=a b\\=c\\:d\\\\e\\#"]
    finally:
        built.remove_properties_files()


def test_the_file_is_deleted_when_the_submit_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    class Failed(Exception):
        pass

    def popen(command: list[str], **kwargs: object) -> object:
        path = command[command.index("--properties-file") + 1]
        seen.append(path)
        assert Path(path).exists() and SECRET not in " ".join(command)
        raise Failed

    monkeypatch.setattr("subprocess.Popen", popen)
    built = hook(conf={"spark.hadoop.fs.s3a.secret.key": SECRET})
    with pytest.raises(Failed):
        built.submit("job.py")
    assert seen and not Path(seen[0]).exists()
