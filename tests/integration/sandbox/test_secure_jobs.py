"""Jobs on the secure sandbox run as the entity's user: the Airflow service principal logs in from its keytab and
spark-submit (local mode) acts for the entity's ACL owner (``--proxy-user``), as the Airflow side's sensors,
clean-up and flags do (WebHDFS ``doas``). A process writes its output on HDFS a owned by the owner, replication
copies it into b (one job reading a Kerberized cluster and writing the other), retention evicts on both; the
outsider cannot read the owner's feed, a process run as the outsider cannot write it, and a worker without the
service keytab fails its task saying which principal and keytab it needs.

Every DAG runs on real Airflow (dag.test) and real Spark against the session's secure sandbox.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pendulum
import pytest
from tests import builders
from tests.integration.airflow.test_lineage import EventLog
from tests.integration.sandbox.conftest import APPS, hdfs_as

from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import entities_folder, load_specs
from falcon_airflow.sandbox.secure import SecureEndpoints

pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox-secure")]

FEED = """\
<feed name="events" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="a" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
    <cluster name="b" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/events/${YEAR}/${MONTH}/${DAY}/${HOUR}"/></locations>
  <ACL owner="owner" group="owner" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""


def process(name: str, owner: str, start: str, end: str) -> str:
    return f"""\
<process name="{name}" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="a"><validity start="{start}" end="{end}"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>hours(1)</frequency>
  <outputs><output name="events" feed="events" instance="now(0,0)"/></outputs>
  <workflow engine="spark" path="apps"/>
  <spark-attributes>
    <name>{name}</name>
    <jar>apps/make_events.py</jar>
    <spark-opts>--driver-memory 512m --conf spark.ui.enabled=false</spark-opts>
  </spark-attributes>
  <ACL owner="{owner}" group="{owner}" permission="*"/>
</process>
"""


MOMENT = pendulum.datetime(2026, 3, 1, 5, tz="UTC")


@pytest.fixture
def as_airflow_worker(secure: SecureEndpoints, monkeypatch: pytest.MonkeyPatch) -> SecureEndpoints:
    """An Airflow worker of the secure sandbox: its Hadoop configuration, krb5.conf and the Airflow service
    principal's keytab (Airflow's [kerberos] settings); nothing from the machine's own ticket cache."""
    airflow = secure.kerberos.keytabs["airflow"]
    monkeypatch.setenv("HADOOP_CONF_DIR", secure.hadoop_conf_dir)
    monkeypatch.setenv("KRB5_CONFIG", secure.kerberos.krb5_conf)
    monkeypatch.setenv("KRB5CCNAME", "FILE:/nonexistent")
    monkeypatch.setenv("AIRFLOW__KERBEROS__PRINCIPAL", airflow.principal)
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", airflow.keytab)
    monkeypatch.delenv("HADOOP_PROXY_USER", raising=False)
    return secure


@pytest.fixture
def owned_feed(as_airflow_worker: SecureEndpoints, entities: Callable[..., Path]) -> SecureEndpoints:
    """Clusters a and b of the secure sandbox (Spark in local mode), the owner's feed ``events`` on both (its
    folders the owner's, mode 0750, made by HDFS's superuser as a cluster administrator would) and two processes
    writing it: one owned by the owner, one by the outsider."""
    secure = as_airflow_worker
    shutil.copy(APPS / "make_events.py", entities_folder() / "apps" / "make_events.py")
    for name in ("a", "b"):
        entities(f"{name}.xml", builders.cluster(name, secure.namenode(name), colo=name, spark="local[1]"))
    entities("events.xml", FEED)
    # One writer of the feed at a time (rule FA008): the outsider's process takes over after MOMENT.
    entities("make-events.xml", process("make-events", "owner", "2026-01-01T00:00Z", "2026-03-01T06:00Z"))
    entities("intrude.xml", process("intrude", "outsider", "2026-03-01T06:00Z", "2099-01-01T00:00Z"))
    folders = [f"folder={secure.namenode(name)}/data/events=owner" for name in ("a", "b")]
    made = hdfs_as(secure, "hdfs", *folders)
    assert all(answer == "ok made" for answer in made.values()), made
    return secure


def dag_of(dag_id: str) -> object:
    specs, issues = load_specs(entities_folder())
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    return build_dag(next(item for item in specs if item.dag_id == dag_id))


def run(dag_id: str, moment: pendulum.DateTime, event_log: EventLog | None = None, *,
        retries: bool = True) -> dict[str, str]:
    dag = dag_of(dag_id)
    if not retries:  # a failure expected: its first attempt says why, without waiting for the retries' delays
        for task in dag.tasks:  # type: ignore[attr-defined]
            task.retries = 0
    done = dag.test(logical_date=moment)  # type: ignore[attr-defined]
    if event_log is not None:
        event_log.dag_run_started(done, dag)
    return {ti.task_id: str(ti.state) for ti in done.get_task_instances()}


def instance(secure: SecureEndpoints, cluster: str, moment: pendulum.DateTime) -> str:
    return f"{secure.namenode(cluster)}/data/events/{moment.format('YYYY/MM/DD/HH')}"


def test_process_replication_and_retention_run_as_the_owner(owned_feed: SecureEndpoints, event_log: EventLog,
                                                            shared: Path) -> None:
    secure = owned_feed
    states = run("falcon.process.make-events.a", MOMENT, event_log)
    assert set(states.values()) == {"success"}, states
    written = instance(secure, "a", MOMENT)
    listed = hdfs_as(secure, "owner", f"list={written}")[f"list={written}"]
    assert listed.startswith("ok ") and "_DONE" in listed and "part-" in listed, listed
    part = next(name for name in listed.removeprefix("ok ").split(",") if name.startswith("part-"))
    # Spark wrote the data and the Airflow side the flag, both as the entity's owner (not as the service).
    owners = hdfs_as(secure, "hdfs", f"owner={written}/{part}", f"owner={written}/_DONE", f"owner={written}")
    assert set(owners.values()) == {"ok owner"}, owners

    # The outsider cannot read the owner's feed (its folder is the owner's, mode 0750).
    refused = hdfs_as(secure, "outsider", f"read={written}/{part}", f"list={written}")
    assert all(answer.startswith("error org.apache.hadoop.security.AccessControlException Permission denied: "
                                 "user=outsider") for answer in refused.values()), refused

    # Replication: one job reads a and writes b, as the owner.
    states = run("falcon.feed.events.replication.a.b", MOMENT, event_log)
    assert set(states.values()) == {"success"}, states
    copied = instance(secure, "b", MOMENT)
    answers = hdfs_as(secure, "owner", f"digest={written}/{part}", f"digest={copied}/{part}", f"list={copied}")
    assert answers[f"digest={copied}/{part}"] == answers[f"digest={written}/{part}"]
    assert answers[f"digest={copied}/{part}"].startswith("ok "), answers
    assert "_DONE" in answers[f"list={copied}"]
    assert hdfs_as(secure, "hdfs", f"owner={copied}/{part}")[f"owner={copied}/{part}"] == "ok owner"

    # Retention on both: the expired instances go (the one made above too), the recent one stays.
    now = pendulum.now("UTC").start_of("hour")
    expired, kept = now.subtract(hours=30), now.subtract(hours=1)
    seeded = [f"write={instance(secure, cluster, moment)}/part-0=x" for cluster in ("a", "b")
              for moment in (expired, kept)]
    assert set(hdfs_as(secure, "owner", *seeded).values()) == {"ok written"}
    for cluster in ("a", "b"):
        states = run(f"falcon.feed.events.retention.{cluster}", now, event_log)
        assert set(states.values()) == {"success"}, states
    checks = {f"list={instance(secure, cluster, moment)}": (cluster, moment) for cluster in ("a", "b")
              for moment in (expired, MOMENT, kept)}
    left = hdfs_as(secure, "owner", *checks)
    for op, (_, moment) in checks.items():
        if moment == kept:
            assert left[op] == "ok part-0", (op, left[op])
        else:
            assert left[op].startswith("error java.io.FileNotFoundException"), (op, left[op])

    events = event_log.events()
    assert events
    event_log.validate(shared)
    namespaces = {dataset["namespace"] for event in events
                  for dataset in [*(event.get("inputs") or []), *(event.get("outputs") or [])]}
    assert {secure.namenode("a"), secure.namenode("b")} <= namespaces, namespaces


def test_a_process_run_as_the_outsider_cannot_write_the_owners_feed(owned_feed: SecureEndpoints,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    moment = MOMENT.add(hours=1)
    states = run("falcon.process.intrude.a", moment, retries=False)
    # Its first step that touches the feed, the clean-up of the output instance, acts as the outsider and is refused.
    assert states["clear_outputs"] == "failed" and "success" not in states.values(), states
    assert ("Permission denied: user=outsider, access=READ_EXECUTE, inode=\"/data/events\":owner:owner:drwxr-x---"
            in capsys.readouterr().out)
    listed = hdfs_as(owned_feed, "owner", f"list={instance(owned_feed, 'a', moment)}")
    assert next(iter(listed.values())).startswith("error java.io.FileNotFoundException"), listed


def test_a_worker_without_the_service_keytab_fails_the_job_naming_principal_and_keytab(
        owned_feed: SecureEndpoints, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "airflow.keytab"
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", str(missing))
    states = run("falcon.feed.events.retention.a", pendulum.now("UTC").start_of("hour"), retries=False)
    assert states == {"retention": "failed"}, states
    assert (f"cannot submit the Spark job on the Kerberized cluster as principal airflow@FALCON.SANDBOX (keytab "
            f"{missing}): the keytab is missing or unreadable") in capsys.readouterr().out
    # A keytab without the principal's key (the outsider's): the ticket cannot be obtained; nothing is submitted.
    outsider = owned_feed.kerberos.keytabs["outsider"].keytab
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", outsider)
    states = run("falcon.feed.events.retention.a", pendulum.now("UTC").start_of("hour"), retries=False)
    assert states == {"retention": "failed"}, states
    assert (f"cannot obtain a Kerberos ticket for spark-submit as principal airflow@FALCON.SANDBOX (keytab "
            f"{outsider})") in capsys.readouterr().out


def test_check_environment_gets_a_ticket_from_the_service_keytab(as_airflow_worker: SecureEndpoints,
                                                                 tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.validation import validate_paths

    secure = as_airflow_worker
    principal = secure.kerberos.hdfs_principal
    cluster = builders.cluster("a", secure.namenode("a"), colo="a", spark="local[1]", properties={
        "hadoop.security.authentication": "kerberos", "dfs.namenode.kerberos.principal": principal})
    (tmp_path / "a.xml").write_text(cluster, encoding="utf-8")

    def environment_issues() -> list[str]:
        report = validate_paths([str(tmp_path)], check_environment=True)
        return [issue.message for issue in report.issues if issue.rule.startswith("FA09")]

    assert environment_issues() == []  # the airflow principal's keytab: the KDC gives its ticket
    outsider = secure.kerberos.keytabs["outsider"].keytab
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", outsider)
    (problem,) = environment_issues()
    assert problem.startswith(
        "cluster 'a' is Kerberized (hadoop.security.authentication=kerberos, dfs.namenode.kerberos.principal), and "
        "this machine cannot log in to it: cannot obtain a Kerberos ticket for spark-submit as principal "
        f"airflow@FALCON.SANDBOX (keytab {outsider})")
