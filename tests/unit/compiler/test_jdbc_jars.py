"""The pinned JDBC drivers: the Maven file that `make jars` resolves pins exactly the versions the DAGs use."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from falcon_airflow.core.databases.drivers import ARTIFACTS
from falcon_airflow.core.databases.jars import driver_jar

POM = Path(__file__).resolve().parents[3] / "deps" / "maven" / "jdbc.pom.xml"
NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def test_the_maven_file_pins_every_driver_artifact() -> None:
    root = ET.parse(POM).getroot()
    pinned = {":".join(item.findtext(f"m:{part}", namespaces=NS) or "" for part in ("groupId", "artifactId",
                                                                                    "version"))
              for item in root.iterfind("m:dependencies/m:dependency", NS)}
    assert pinned == {artifact.coordinate for artifact in ARTIFACTS}


def test_driver_jars_live_in_the_jdbc_group_of_the_cache(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_JARS", str(tmp_path))
    assert driver_jar("org.postgresql.Driver") == tmp_path / "jdbc" / "postgresql-42.7.4.jar"
    assert driver_jar("com.mysql.cj.jdbc.Driver") == tmp_path / "jdbc" / "mariadb-java-client-3.4.1.jar"
    assert driver_jar("org.apache.derby.jdbc.EmbeddedDriver") is None  # ships with Spark
