"""The import and export jobs' credential reading in a real Spark driver: paths qualified by Hadoop and links
resolved before the roots are compared, keystores read through Hadoop's credential providers, and never a Hadoop
setting handed over as the password of an alias no keystore holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.core.databases.credentials import ROOTS_ENV
from falcon_airflow.jobs import jdbc
from falcon_airflow.jobs.frame import JobError

pytestmark = pytest.mark.xdist_group("spark-jobs")


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "shop.password").write_text("Pa55word\n")
    (tmp_path / "airflow.cfg").write_text("fernet_key = k\n")
    (root / "link-out").symlink_to(tmp_path / "airflow.cfg")
    monkeypatch.setenv(ROOTS_ENV, json.dumps([str(root)]))
    return root


@pytest.mark.parametrize("form", ["{path}", "file://{path}", "file:{path}"])
def test_a_password_file_under_the_roots_is_read_in_any_form(spark: Any, vault: Path, form: str) -> None:
    assert jdbc._read_password_file(spark, form.format(path=vault / "shop.password")) == "Pa55word"


@pytest.mark.parametrize("form", ["{path}", "file://{path}"])
def test_a_link_out_of_the_roots_is_refused(spark: Any, vault: Path, form: str) -> None:
    with pytest.raises(JobError, match="is not under the credential roots"):
        jdbc._read_password_file(spark, form.format(path=vault / "link-out"))


def _keystore(spark: Any, path: Path, alias: str, secret: str) -> str:
    jvm = spark._jvm
    provider_path = f"localjceks://file{path}"
    conf = jvm.org.apache.hadoop.conf.Configuration()
    conf.set("hadoop.security.credential.provider.path", provider_path)
    provider = jvm.org.apache.hadoop.security.alias.CredentialProviderFactory.getProviders(conf).get(0)
    chars = spark.sparkContext._gateway.new_array(jvm.char, len(secret))
    for index, char in enumerate(secret):
        chars[index] = char
    provider.createCredentialEntry(alias, chars)
    provider.flush()
    return provider_path


def test_an_alias_is_read_from_a_keystore_under_the_roots(spark: Any, vault: Path) -> None:
    provider = _keystore(spark, vault / "shop.jceks", "shop.reader", "Pa55word")
    assert jdbc._read_alias(spark, "shop.reader", provider) == "Pa55word"


def test_an_alias_never_reads_a_hadoop_setting(spark: Any, vault: Path) -> None:
    """Hadoop's getPassword falls back to the configuration property named like the alias: not here."""
    provider = _keystore(spark, vault / "other.jceks", "shop.reader", "Pa55word")
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    hadoop.set("fs.s3a.secret.key", "ClusterSecret")
    try:
        with pytest.raises(JobError, match=r"has no alias 'fs\.s3a\.secret\.key'"):
            jdbc._read_alias(spark, "fs.s3a.secret.key", provider)
    finally:
        hadoop.unset("fs.s3a.secret.key")
