"""Falcon's three mirroring extensions on the sandbox, submitted with ``falcon-airflow extension -submit`` into the
store and run through real Airflow (``dag.test`` of the DAG the loader compiles) and real Spark:

* hdfs-mirroring mirrors a folder tree of HDFS cluster A onto cluster B byte for byte, then follows the source's
  changes (a file changed, one deleted, one added) on the next run;
* hdfs-snapshot-mirroring snapshots a snapshottable folder, copies it whole the first time and only the snapshot
  diff the second (a rename, a deletion, an addition), snapshots the target, and keeps each side's snapshots
  within their retention;
* hive-mirroring copies a partitioned table (definition, partitions and data) from the sandbox's metastore into a
  second metastore the test starts, onto cluster B.

Seeding and checking the data is the test's own (WebHDFS, its Spark script apps/tables.py), not the product's."""

from __future__ import annotations

import getpass
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.builders import cluster, interface
from tests.integration.airflow.test_lineage import EventLog
from tests.integration.sandbox.conftest import APPS, WebHdfs
from tests.integration.sandbox.test_lifecycle import run_dag

from falcon_airflow.cli import build_parser
from falcon_airflow.dags.loader import entities_folder
from falcon_airflow.sandbox import Endpoints
from falcon_airflow.sandbox.services import free_port, launch, port_open, stop
from falcon_airflow.sandbox.stack import JAVA_SOURCES, _java, _spark_home

pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox")]

JOB = """\
jobName={name}
jobClusterName=b
jobValidityStart=2026-03-01T00:00Z
jobValidityEnd=2026-03-02T00:00Z
jobFrequency=hours(1)
sourceCluster=a
targetCluster=b
distcpMaxMaps=2
jobRetryAttempts=0
"""

FIRST, SECOND = pendulum.datetime(2026, 3, 1, 5, tz="UTC"), pendulum.datetime(2026, 3, 1, 6, tz="UTC")


class Hdfs(WebHdfs):
    """WebHDFS with what snapshot mirroring needs: deletes, renames and snapshots (as the sandbox's superuser)."""

    def delete(self, path: str) -> None:
        self._call("DELETE", path, "DELETE", recursive="true")

    def rename(self, source: str, target: str) -> None:
        self._call("PUT", source, "RENAME", destination=target)

    def allow_snapshots(self, path: str) -> None:
        self._call("PUT", path, "MKDIRS")
        self._call("PUT", path, "ALLOWSNAPSHOT", **{"user.name": getpass.getuser()})

    def snapshots(self, path: str) -> list[str]:
        listing = json.loads(self._call("GET", f"{path}/.snapshot", "LISTSTATUS"))["FileStatuses"]["FileStatus"]
        return sorted(item["pathSuffix"] for item in listing)

    def _call(self, method: str, path: str, op: str, data: bytes | None = None, **params: str) -> Any:
        if "user.name" in params:  # the superuser instead of the default user
            user = params.pop("user.name")
            import urllib.request

            query = "&".join([f"op={op}", f"user.name={user}", *(f"{k}={v}" for k, v in params.items())])
            with urllib.request.urlopen(urllib.request.Request(f"{self.base}{path}?{query}", method=method),
                                        timeout=60) as response:
                return response.read()
        return super()._call(method, path, op, data, **params)


def write_clusters(entities: Callable[..., Path], sandbox: Endpoints, metastore_b: str) -> None:
    for name, metastore in (("a", sandbox.metastore), ("b", metastore_b)):
        entities(f"{name}.xml", cluster(name, sandbox.namenode(name), colo=name, spark=None,
                                        interfaces=interface("registry", metastore, "2.3.10"),
                                        properties={"spark.ui.enabled": "false"}))


def extension(*argv: str) -> tuple[int, str]:
    """``falcon-airflow extension ...`` on the entities folder, in this process."""
    import contextlib
    import io

    from falcon_airflow.cli.registry import load

    args = build_parser().parse_args(["extension", *argv, "--entities", str(entities_folder()),
                                      "-url", "http://127.0.0.1:9"])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = load(args.run)(args)
    return int(code), out.getvalue() + err.getvalue()


def submit(tmp_path: Path, name: str, kind: str, extra: str) -> None:
    draft = tmp_path / f"{name}.properties"
    draft.write_text(JOB.format(name=name) + extra, encoding="utf-8")
    code, output = extension("-submit", "-extensionName", kind, "-file", str(draft))
    assert code == 0 and f"{kind} job {name} submitted" in output, output


@pytest.fixture
def second_metastore(sandbox: Endpoints, tmp_path: Path) -> Iterator[str]:
    """Cluster B's own metastore (Derby), as a DR pair has one per cluster."""
    port = free_port()
    folder = tmp_path / "metastore-b"
    folder.mkdir()
    service = launch("metastore-b", [
        _java(), "-Xmx384m", "-cp", str(_spark_home() / "jars" / "*"), str(JAVA_SOURCES / "Metastore.java"),
        str(port), f"javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={folder / 'db'};create=true",
        "datanucleus.schema.autoCreateAll=true", "hive.metastore.schema.verification=false",
        f"hive.metastore.warehouse.dir={sandbox.namenode('b')}/warehouse"], log=folder / "metastore.log", cwd=folder)
    try:
        service.wait_for_line("READY", 240)
        service.wait_until(lambda: port_open(port), 240, "listen on its port")
        yield f"thrift://127.0.0.1:{port}"
    finally:
        stop(service.pid)


def tables(metastore: str, tmp_path: Path, *argv: str) -> str:
    """The test's own Spark script (apps/tables.py) on the sandbox's metastore: creates the source table."""
    submit_script = Path(sys.executable).parent / "spark-submit"
    command = [str(submit_script), "--master", "local[1]", "--driver-memory", "512m",
               "--conf", f"spark.hadoop.hive.metastore.uris={metastore}",
               "--conf", "spark.sql.catalogImplementation=hive", "--conf", "spark.ui.enabled=false",
               "--driver-java-options", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC", str(APPS / "tables.py"), *argv]
    environment = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
                   "SPARK_LOCAL_IP": "127.0.0.1"}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path, env=environment,
                            check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def hive_table(metastore: str, database: str, name: str) -> dict[str, Any] | None:
    """What a metastore holds of a table, read over thrift (hmsclient), independently of the product's code."""
    from hmsclient import hmsclient
    from hmsclient.genthrift.hive_metastore.ttypes import NoSuchObjectException

    host, port = metastore.removeprefix("thrift://").rstrip("/").rsplit(":", 1)
    with hmsclient.HMSClient(host=host, port=int(port)) as client:
        try:
            table = client.get_table(database, name)
        except NoSuchObjectException:
            return None
        keys = [column.name for column in table.partitionKeys]
        partitions = {"/".join(f"{key}={value}" for key, value in zip(keys, item.values, strict=True)):
                      item.sd.location for item in client.get_partitions(database, name, -1)}
        return {"type": table.tableType, "location": table.sd.location, "keys": keys,
                "columns": [column.name for column in table.sd.cols], "partitions": partitions}


def test_hdfs_and_snapshot_mirroring(entities: Callable[..., Path], sandbox: Endpoints, event_log: EventLog,
                                     shared: Path, tmp_path: Path) -> None:
    write_clusters(entities, sandbox, sandbox.metastore.replace("127.0.0.1", "localhost"))
    a, b = Hdfs(sandbox.webhdfs("a")), Hdfs(sandbox.webhdfs("b"))
    seed = {"/mirror/sales/2026/01.csv": b"id,amount\n1,10\n", "/mirror/sales/2026/02.csv": b"id,amount\n2,20\n",
            "/mirror/sales/_SUCCESS": b"", "/mirror/sales/notes/readme.txt": b"sales\n"}
    for path, content in seed.items():
        a.put(path, content)
    submit(tmp_path, "sales-mirror", "hdfs-mirroring", "sourceDir=/mirror/sales\ntargetDir=/backup/sales\n")

    run_dag("falcon.extension.sales-mirror", FIRST, event_log)
    assert b.files("/backup/sales") == a.files("/mirror/sales")  # the _SUCCESS too: a mirror adds and skips nothing
    a.put("/mirror/sales/2026/02.csv", b"id,amount\n2,25\n")
    a.delete("/mirror/sales/notes")
    a.put("/mirror/sales/2026/03.csv", b"id,amount\n3,30\n")
    run_dag("falcon.extension.sales-mirror", SECOND, event_log)
    assert b.files("/backup/sales") == a.files("/mirror/sales") and not b.exists("/backup/sales/notes")

    # Snapshot mirroring: both folders snapshottable; the first run copies the whole snapshot.
    a.allow_snapshots("/snap/orders")
    b.allow_snapshots("/dr/orders")
    for index in range(4):
        a.put(f"/snap/orders/day={index}/part-0", f"order {index}\n".encode())
    submit(tmp_path, "orders-snap", "hdfs-snapshot-mirroring",
           "sourceSnapshotDir=/snap/orders\ntargetSnapshotDir=/dr/orders\nsourceSnapshotRetentionAgeLimit=minutes(30)"
           "\nsourceSnapshotRetentionNumber=1\ntargetSnapshotRetentionAgeLimit=months(24)\n"
           "targetSnapshotRetentionNumber=1\n")
    run_dag("falcon.extension.orders-snap", FIRST, event_log)
    first = "falcon-snapshot-orders-snap-202603010500"
    assert b.files("/dr/orders") == a.files("/snap/orders")
    assert a.snapshots("/snap/orders") == b.snapshots("/dr/orders") == [first]

    # The second run applies the diff: a folder renamed, a file deleted, one added.
    a.rename("/snap/orders/day=0", "/snap/orders/day=9")
    a.delete("/snap/orders/day=1/part-0")
    a.put("/snap/orders/day=2/part-1", b"late order\n")
    run_dag("falcon.extension.orders-snap", SECOND, event_log)
    second = "falcon-snapshot-orders-snap-202603010600"
    assert b.files("/dr/orders") == a.files("/snap/orders")
    assert b.read(f"/dr/orders/.snapshot/{second}/day=9/part-0") == b"order 0\n"
    # Retention: the newest one is always kept; the source's older one is past its 30 minutes and goes, the
    # target's is within its 24 months and stays.
    assert a.snapshots("/snap/orders") == [second]
    assert b.snapshots("/dr/orders") == [first, second]

    code, output = extension("-list")
    assert code == 0 and "orders-snap (hdfs-snapshot-mirroring) SUBMITTED" in output
    event_log.validate(shared)
    datasets = {(dataset["namespace"], dataset["name"]) for event in event_log.events()
                for dataset in event.get("outputs") or []}
    assert (sandbox.namenode("b"), "/backup/sales") in datasets and (sandbox.namenode("b"), "/dr/orders") in datasets


def test_hive_mirroring_onto_a_second_metastore(entities: Callable[..., Path], sandbox: Endpoints,
                                                second_metastore: str, event_log: EventLog, shared: Path,
                                                tmp_path: Path) -> None:
    write_clusters(entities, sandbox, second_metastore)
    location = f"{sandbox.namenode('a')}/warehouse/falcon_hm.db/visits"
    tables(sandbox.metastore, tmp_path, "create", f"falcon_hm={sandbox.namenode('a')}/warehouse/falcon_hm.db",
           "falcon_hm.visits", location, "2026030100/eu", "2026030101/us", "+",
           "falcon_hm.clicks", f"{sandbox.namenode('a')}/warehouse/falcon_hm.db/clicks", "2026030100/eu")
    submit(tmp_path, "visits-dr", "hive-mirroring", "sourceDatabases=falcon_hm\n"
                                                    "sourceHiveServer2Uri=hive2://a:10000\n")
    assert hive_table(second_metastore, "falcon_hm", "visits") is None
    run_dag("falcon.extension.visits-dr", FIRST, event_log)
    mirrored, original = (hive_table(second_metastore, "falcon_hm", "visits"),
                          hive_table(sandbox.metastore, "falcon_hm", "visits"))
    assert mirrored is not None and original is not None and mirrored["type"] == "EXTERNAL_TABLE"
    target = f"{sandbox.namenode('b')}/warehouse/falcon_hm.db/visits"
    assert mirrored["location"] == target
    assert (mirrored["columns"], mirrored["keys"]) == (original["columns"], original["keys"]) == (
        ["id", "page"], ["ds", "region"])
    assert mirrored["partitions"] == {name: f"{target}/{name}" for name in
                                      ("ds=2026030100/region=eu", "ds=2026030101/region=us")}
    a, b = WebHdfs(sandbox.webhdfs("a")), WebHdfs(sandbox.webhdfs("b"))
    assert b.files("/warehouse/falcon_hm.db/visits") == a.files("/warehouse/falcon_hm.db/visits")
    event_log.validate(shared)
    outputs = {(dataset["namespace"], dataset["name"]) for event in event_log.events()
               for dataset in event.get("outputs") or []}
    assert (f"hive://127.0.0.1:{second_metastore.rsplit(':', 1)[1]}", "falcon_hm.visits") in outputs

    # Drops are replayed at the next run, of what the job made only: a table made on the target by someone else
    # (its own partition too) stays, as do its files.
    assert hive_table(second_metastore, "falcon_hm", "clicks") is not None
    tables(second_metastore, tmp_path, "create", "falcon_hm.kept", f"{sandbox.namenode('b')}/warehouse/kept",
           "2026030100/eu")
    tables(sandbox.metastore, tmp_path, "drop", "falcon_hm.visits", "2026030100/eu", "+", "falcon_hm.clicks")
    run_dag("falcon.extension.visits-dr", SECOND, event_log)
    mirrored = hive_table(second_metastore, "falcon_hm", "visits")
    assert mirrored is not None and mirrored["partitions"] == {"ds=2026030101/region=us":
                                                               f"{target}/ds=2026030101/region=us"}
    assert hive_table(second_metastore, "falcon_hm", "clicks") is None
    assert not b.exists("/warehouse/falcon_hm.db/visits/ds=2026030100/region=eu")
    assert not b.exists("/warehouse/falcon_hm.db/clicks")
    assert b.files("/warehouse/falcon_hm.db/visits/ds=2026030101")
    kept = hive_table(second_metastore, "falcon_hm", "kept")
    assert kept is not None and list(kept["partitions"]) == ["ds=2026030100/region=eu"]
    assert b.files("/warehouse/kept")
    assert a.files("/warehouse/falcon_hm.db/clicks")  # the source dropped metadata only: its files stay
