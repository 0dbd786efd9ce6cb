"""A table feed on the secure sandbox's Kerberized Hive metastore (SASL GSSAPI only): the input sensor of a feed
whose cluster says ``hive.metastore.sasl.enabled=true`` logs in as the Airflow service principal and sees a
partition the owner added with Hive's own client; retention, a Spark job acting for the owner, drops the expired
partition. A client without a ticket is refused by the metastore, and a worker that cannot log in fails the sensor
naming the principal and keytab, never taking the partition for missing.

Partitions are added and listed with Hive's own client (apps/HiveAs.java), not the product's code.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pendulum
import pytest
from airflow.exceptions import AirflowException
from tests import builders
from tests.integration.airflow.test_lineage import EventLog
from tests.integration.sandbox.conftest import APPS, hdfs_as
from tests.integration.sandbox.test_secure_jobs import as_airflow_worker, run  # noqa: F401  (fixture used here)

from falcon_airflow.dags.loader import entities_folder
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.provider.sensors.feed import FeedInstanceSensor
from falcon_airflow.sandbox.secure import SecureEndpoints
from falcon_airflow.workspace import Workspace

pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox-secure")]

TABLE = "falcon_secure.views"
FEED = """\
<feed name="views" xmlns="uri:falcon:feed:0.1">
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="a" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
  </clusters>
  <table uri="catalog:falcon_secure:views#ds=${YEAR}${MONTH}${DAY}${HOUR}"/>
  <ACL owner="owner" group="owner" permission="*"/>
  <schema location="/none" provider="hcatalog"/>
</feed>
"""
MOMENT = pendulum.datetime(2026, 3, 1, 5, tz="UTC")


def hive_as(secure: SecureEndpoints, user: str | None, *ops: str) -> dict[str, str]:
    """Run ``ops`` (apps/HiveAs.java) against the sandbox's metastore as ``user``, logged in from its keytab
    (``None``: no Kerberos credentials): op -> its line."""
    import pyspark

    login = ["-", "-"] if user is None else [secure.kerberos.keytabs[user].principal,
                                             secure.kerberos.keytabs[user].keytab]
    jars = Path(pyspark.__file__).parent / "jars"
    done = subprocess.run(
        ["java", f"-Djava.security.krb5.conf={secure.kerberos.krb5_conf}", "-cp",
         f"{secure.hadoop_conf_dir}:{jars / '*'}", str(APPS / "HiveAs.java"), secure.metastore,
         f"hive/_HOST@{secure.kerberos.realm}", *login, *ops],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "KRB5CCNAME": "FILE:/nonexistent"})  # never a ticket cache of the machine's user
    assert done.returncode == 0, done.stderr[-3000:]
    answers = {}
    for line in done.stdout.splitlines():
        if line.startswith(("ok ", "error ")):
            status, op, *rest = line.split(" ", 2)
            answers[op] = f"{status} {rest[0] if rest else ''}"
    assert set(answers) == set(ops), done.stdout + done.stderr[-3000:]
    return answers


@pytest.fixture
def table_feed(as_airflow_worker: SecureEndpoints, entities: Callable[..., Path]) -> SecureEndpoints:  # noqa: F811
    """Cluster a of the secure sandbox with its metastore as registry, Falcon's Kerberos properties (``_HOST`` in the
    metastore's principal, as a cluster entity writes it), and the owner's table feed ``views`` on it."""
    secure = as_airflow_worker
    properties = {"hadoop.security.authentication": "kerberos",
                  "dfs.namenode.kerberos.principal": secure.kerberos.hdfs_principal,
                  "hive.metastore.sasl.enabled": "true",
                  "hive.metastore.kerberos.principal": f"hive/_HOST@{secure.kerberos.realm}"}
    entities("a.xml", builders.cluster("a", secure.namenode("a"), colo="a", spark="local[1]",
                                       interfaces=builders.interface("registry", secure.metastore),
                                       properties=properties))
    entities("views.xml", FEED)
    return secure


def sensor_for(moment: pendulum.DateTime) -> FeedInstanceSensor:
    """The input sensor of a process reading ``views`` at ``moment``, its marker made from the entities as the
    compiler makes it."""
    workspace = Workspace.load([str(entities_folder())])
    feed = workspace.feeds["views"]
    marker = FeedOnCluster(feed, feed.clusters[0], workspace.clusters["a"]).availability_marker(moment)
    assert marker is not None
    return FeedInstanceSensor(task_id="wait_for_views", markers=marker, input_name="views", feed="views",
                              run_as="owner")


def hour(moment: pendulum.DateTime) -> str:
    return moment.format("YYYYMMDDHH")


def test_the_sensor_sees_a_partition_and_retention_drops_an_expired_one(table_feed: SecureEndpoints,
                                                                        event_log: EventLog, shared: Path) -> None:
    secure = table_feed
    now = pendulum.now("UTC").start_of("hour")
    expired, kept = now.subtract(hours=30), now.subtract(hours=1)
    added = hive_as(secure, "owner", *(f"add={TABLE}/ds={hour(moment)}" for moment in (MOMENT, expired, kept)))
    assert set(added.values()) == {"ok added"}, added
    assert sensor_for(MOMENT).poke({})
    assert not sensor_for(MOMENT.add(hours=1)).poke({})

    # The metastore made the table's and the partitions' folders in its warehouse on cluster a as the caller.
    folder = f"{secure.namenode('a')}/warehouse/falcon_secure.db/views"
    made = hdfs_as(secure, "hdfs", f"owner={folder}", f"list={folder}")
    assert made[f"owner={folder}"] == "ok owner", made
    assert sorted(made[f"list={folder}"].removeprefix("ok ").split(",")) == sorted(
        f"ds={hour(moment)}" for moment in (MOMENT, expired, kept)), made

    states = run("falcon.feed.views.retention.a", now, event_log, retries=False)
    assert set(states.values()) == {"success"}, states
    left = hive_as(secure, "owner", f"partitions={TABLE}")[f"partitions={TABLE}"]
    assert left == f"ok ds={hour(kept)}", left
    listed = hdfs_as(secure, "hdfs", f"list={folder}")[f"list={folder}"]
    assert f"ds={hour(expired)}" not in listed and f"ds={hour(kept)}" in listed, listed

    events = event_log.events()
    assert events  # the retention run's lineage, checked by the strict validator
    event_log.validate(shared)


def test_a_client_without_a_ticket_is_refused_and_the_sensor_says_who_cannot_log_in(
        table_feed: SecureEndpoints, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    secure = table_feed
    refused = hive_as(secure, None, f"partitions={TABLE}")[f"partitions={TABLE}"]
    assert refused.startswith("error ") and "GSS initiate failed" in refused, refused

    missing = tmp_path / "airflow.keytab"
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", str(missing))
    problem = poke_failure(sensor_for(MOMENT))
    assert problem.startswith(f"input views (feed views): metastore {secure.metastore} takes Kerberos (SASL) "
                              "clients only"), problem
    assert f"principal airflow@{secure.kerberos.realm} (keytab {missing}): the keytab is missing" in problem, problem

    # A keytab without the principal's key (the outsider's): no ticket, so no call to the metastore at all.
    outsider = secure.kerberos.keytabs["outsider"].keytab
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", outsider)
    problem = poke_failure(sensor_for(MOMENT))
    assert (f"cannot obtain a Kerberos ticket for the metastore {secure.metastore} as principal "
            f"airflow@{secure.kerberos.realm} (keytab {outsider})") in problem, problem


def poke_failure(sensor: FeedInstanceSensor) -> str:
    with pytest.raises(AirflowException) as failure:
        sensor.poke({})
    return str(failure.value)
