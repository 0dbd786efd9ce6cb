"""``extension`` against a real Airflow api-server: an hdfs-mirroring job submitted into the store, compiled into
its DAG, scheduled, suspended, resumed, listed, run (``airflow dags test`` on the server's database: the job on
local Spark, mirroring a folder of cluster east onto west), its runs shown with Falcon's states, updated (the old
version archived) and deleted; bad properties refused with file, line and rule."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from .harness import AirflowServer

pytestmark = pytest.mark.xdist_group("airflow-api")

DAG = "falcon.extension.x-mirror"
JOB = """\
jobName=x-mirror
jobClusterName=west
jobValidityStart=2026-05-01T00:00Z
jobValidityEnd=2026-05-03T00:00Z
jobFrequency=hours(1)
sourceCluster=east
sourceDir=/data/x
targetCluster=west
targetDir=/backup/x
jobRetryAttempts=0
"""


def paused(server: AirflowServer, dag_id: str) -> bool | None:
    dag = server.client().dag(dag_id)
    return None if dag is None else bool(dag["is_paused"])


def test_the_extension_commands(server: AirflowServer) -> None:
    code, out, _ = server.run("extension", "-enumerate")
    assert code == 0 and out.splitlines()[0].startswith("hdfs-mirroring: ")
    code, document = server.json("extension", "-definition", "-extensionName", "hdfs-snapshot-mirroring")
    names = [item["propertyName"] for item in document["definition"]["properties"]]
    assert {"sourceSnapshotDir", "sourceSnapshotRetentionAgeLimit", "targetSnapshotRetentionNumber"} <= set(names)

    bad = server.draft("bad.properties", JOB.replace("targetDir=", "targetDirectory=").replace("hours(1)", "1h"))
    code, _, err = server.run("extension", "-submit", "-extensionName", "hdfs-mirroring", "-file", str(bad))
    assert code == 1 and f"{bad}:9: [EXT1] hdfs-mirroring has no property targetDirectory" in err
    assert f"{bad}:5: [EXT3] jobFrequency is '1h'" in err

    job = server.draft("x-mirror.properties", JOB)
    code, out, err = server.run("extension", "-submit", "-extensionName", "hdfs-mirroring", "-file", str(job))
    assert (code, out.strip()) == (0, "hdfs-mirroring job x-mirror submitted"), err
    code, _, err = server.run("extension", "-submit", "-extensionName", "hdfs-mirroring", "-file", str(job))
    assert code == 1 and "already submitted" in err
    server.reserialize()
    assert paused(server, DAG) is True

    code, out, _ = server.run("extension", "-schedule", "-jobName", "x-mirror")
    assert code == 0 and paused(server, DAG) is False
    code, out, _ = server.run("extension", "-suspend", "-jobName", "x-mirror")
    assert code == 0 and paused(server, DAG) is True
    code, out, _ = server.run("extension", "-list", "-extensionName", "hdfs-mirroring")
    assert out.strip() == "x-mirror (hdfs-mirroring) SUSPENDED"
    code, out, _ = server.run("extension", "-resume", "-jobName", "x-mirror")
    assert code == 0 and paused(server, DAG) is False

    # A run for real (the job on local Spark), and one a worker failed: Falcon's states come back.
    source = server.storage / "east" / "data" / "x"
    (source / "2026").mkdir(parents=True)
    (source / "2026" / "a.csv").write_text("a\n")
    (source / "_SUCCESS").write_text("")
    server.airflow("dags", "test", DAG, "2026-05-01T01:00:00+00:00", timeout=600)
    mirror = server.storage / "west" / "backup" / "x"
    assert (mirror / "2026" / "a.csv").read_text() == "a\n" and (mirror / "_SUCCESS").exists()
    client = server.client()
    failed = str(client.trigger(DAG, datetime(2026, 5, 1, 2, tzinfo=UTC))["dag_run_id"])
    server.worker(DAG, failed, run_state="failed", tasks={"mirror": ("failed", 1)})
    code, document = server.json("extension", "-instances", "-jobName", "x-mirror", "-start", "2026-05-01T00:00Z",
                                 "-end", "2026-05-01T03:00Z")
    assert code == 0
    assert [(item["instance"], item["status"], item["cluster"]) for item in document["instances"]] == [
        ("2026-05-01T01:00Z", "SUCCEEDED", "west"), ("2026-05-01T02:00Z", "FAILED", "west")]
    code, document = server.json("extension", "-instances", "-jobName", "x-mirror", "-start", "2026-05-01T00:00Z",
                                 "-end", "2026-05-01T03:00Z", "-instanceStatus", "FAILED")
    assert [item["instance"] for item in document["instances"]] == ["2026-05-01T02:00Z"]

    code, out, _ = server.run("extension", "-update", "-extensionName", "hdfs-mirroring", "-file",
                              str(server.draft("x-mirror-2.properties", JOB + "distcpMaxMaps=3\n")))
    assert code == 0 and "updated" in out
    code, document = server.json("extension", "-detail", "-jobName", "x-mirror")
    assert document["status"] == "RUNNING" and len(document["history"]) == 1
    code, out, _ = server.run("extension", "-definition", "-jobName", "x-mirror")
    assert "distcpMaxMaps=3" in out

    code, out, err = server.run("extension", "-delete", "-jobName", "x-mirror")
    assert code == 0 and "deleted" in out, err
    assert client.dag(DAG) is None
    code, out, _ = server.run("extension", "-list")
    assert out.strip() == "No extension jobs"
    code, _, err = server.run("extension", "-schedule", "-jobName", "x-mirror")
    assert code == 1 and "not submitted" in err
