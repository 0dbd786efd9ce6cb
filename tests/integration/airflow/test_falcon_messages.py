"""Falcon's JMS messages on a real Apache ActiveMQ (Debian's package): a process instance, a replication and a
retention run each send Falcon's map messages to the system topic and the entity's topic, and a JMS consumer on
OpenWire receives them as MapMessages with Falcon's keys and values."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.builders import cluster, interface
from tests.integration.airflow.test_process_dag import PROCESS, task_states
from tests.integration.notifications.broker import Broker, JmsConsumer, missing, running_broker

from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import entities_folder, load_specs

pytestmark = pytest.mark.xdist_group("airflow")


def cluster_with_broker(name: str, storage: Path, broker: str) -> str:
    """The standard cluster (colo ``name``, data in ``storage``) announcing to the test's JMS broker."""
    return cluster(name, f"file://{storage}", colo=name, interfaces=interface("messaging", broker, "5.17"))


FEED = """\
<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="{source}" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="{limit}" action="delete"/>
    </cluster>
    {target}
  </clusters>
  <locations><location type="data" path="/data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="ops" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
  <properties><property name="broker.ttl" value="60"/></properties>
</feed>
"""
TARGET = """<cluster name="west" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>"""

FALCON_KEYS = {"entityName", "entityType", "operation", "status", "nominalTime", "timeStamp", "cluster",
               "workflowUser", "workflowId", "runId", "feedNames", "feedInstancePaths", "logDir", "brokerUrl",
               "brokerImplClass", "brokerTTL"}


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    problem = missing()
    if problem:
        pytest.fail(problem, pytrace=False)
    with running_broker(tmp_path_factory.mktemp("activemq")) as running:
        yield running


@pytest.fixture
def stomp_port(broker: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__FALCON__BROKER_STOMP_PORT", str(broker.stomp))


def spec(dag_id: str) -> Any:
    specs, issues = load_specs(entities_folder())
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    return next(item for item in specs if item.dag_id == dag_id)


def land(folder: Path, text: str = "line\n") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part-0.txt").write_text(text)
    (folder / "_DONE").touch()


def by_topic(messages: list[dict[str, Any]]) -> dict[str, list[dict[str, str]]]:
    found: dict[str, list[dict[str, str]]] = {}
    for message in messages:
        assert message["type"] == "MapMessage" and message["persistent"], message
        found.setdefault(str(message["topic"]), []).append(message["map"])
    return found


def test_a_process_instance_sends_falcon_messages(entities: Callable[..., Path], tmp_path: Path, broker: Broker,
                                                   stomp_port: None) -> None:
    storage = tmp_path / "storage"
    entities("cluster.xml", cluster_with_broker("local", storage, broker.url))
    for name in ("events", "counts"):
        entities(f"{name}.xml", FEED.format(name=name, source="local", limit="days(30)", target=""))
    entities("count.xml", PROCESS.format(frequency="hours(1)", late=""))
    moment = pendulum.datetime(2026, 3, 1, 8, tz="UTC")
    land(storage / "data" / "events" / "2026/03/01/08")
    consumer = JmsConsumer(broker, ["FALCON.ENTITY.TOPIC", "FALCON.count"], count=2)
    try:
        run = build_dag(spec("falcon.process.count.local")).test(logical_date=moment)
        assert str(run.state) == "success", task_states(run)
        topics = by_topic(consumer.messages())
    finally:
        consumer.stop()
    output = f"file://{storage}/data/counts/2026/03/01/08"
    (system,) = topics["FALCON.ENTITY.TOPIC"]
    (own,) = topics["FALCON.count"]
    assert set(system) >= FALCON_KEYS and "logFile" not in system
    expected = {"entityName": "count", "entityType": "PROCESS", "operation": "GENERATE", "status": "SUCCEEDED",
                "nominalTime": "2026-03-01-08-00", "cluster": "local", "workflowUser": "tester", "runId": "0",
                "feedNames": "counts", "feedInstancePaths": output, "brokerUrl": broker.url,
                "brokerImplClass": "org.apache.activemq.ActiveMQConnectionFactory", "brokerTTL": "4320",
                "workflowId": f"falcon.process.count.local@{run.run_id}", "userWorkflowEngine": "spark",
                "falconInputFeeds": "events", "falconInPaths": f"file://{storage}/data/events/2026/03/01/08"}
    assert {key: system[key] for key in expected} == expected
    assert {key: own[key] for key in expected} == expected


def test_replication_and_retention_send_falcon_messages(entities: Callable[..., Path], tmp_path: Path,
                                                         broker: Broker, stomp_port: None) -> None:
    east, west = tmp_path / "east", tmp_path / "west"
    entities("east.xml", cluster_with_broker("east", east, broker.url))
    entities("west.xml", cluster_with_broker("west", west, broker.url))
    entities("logs.xml", FEED.format(name="logs", source="east", limit="hours(5)", target=TARGET))
    moment = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    land(east / "data" / "logs" / "2026/03/01/05")

    consumer = JmsConsumer(broker, ["FALCON.ENTITY.TOPIC", "FALCON.logs"], count=2)
    try:
        run = build_dag(spec("falcon.feed.logs.replication.east.west")).test(logical_date=moment)
        assert str(run.state) == "success", task_states(run)
        topics = by_topic(consumer.messages())
    finally:
        consumer.stop()
    replica = f"file://{west}/data/logs/2026/03/01/05"
    for message in (*topics["FALCON.ENTITY.TOPIC"], *topics["FALCON.logs"]):
        assert {key: message[key] for key in ("entityName", "entityType", "operation", "status", "cluster",
                                              "nominalTime", "feedNames", "feedInstancePaths", "brokerTTL",
                                              "workflowUser")} == {
            "entityName": "logs", "entityType": "FEED", "operation": "REPLICATE", "status": "SUCCEEDED",
            "cluster": "west", "nominalTime": "2026-03-01-05-00", "feedNames": "logs",
            "feedInstancePaths": replica, "brokerTTL": "60", "workflowUser": "ops"}

    # Retention on the source keeps five hours: the replicated instance and one of a day ago are evicted, the one
    # of an hour ago is kept; each evicted instance is a message on the feed's topic.
    now = pendulum.now("UTC").start_of("hour")
    old, recent = now.subtract(hours=30), now.subtract(hours=1)
    for instant in (old, recent):
        land(east / "data" / "logs" / instant.format("YYYY/MM/DD/HH"))
    consumer = JmsConsumer(broker, ["FALCON.ENTITY.TOPIC", "FALCON.logs"], count=3)
    try:
        run = build_dag(spec("falcon.feed.logs.retention.east")).test(logical_date=now)
        assert str(run.state) == "success", task_states(run)
        topics = by_topic(consumer.messages())
    finally:
        consumer.stop()
    (system,) = topics["FALCON.ENTITY.TOPIC"]
    evicted = {f"file://{east}/data/logs/{instant.format('YYYY/MM/DD/HH')}" for instant in (old, moment)}
    assert (system["operation"], system["status"], system["entityType"], system["feedNames"]) == (
        "DELETE", "SUCCEEDED", "FEED", "logs")
    assert set(system["feedInstancePaths"].split(",")) == evicted
    assert {(own["feedNames"], own["operation"], own["feedInstancePaths"]) for own in topics["FALCON.logs"]} == {
        ("logs", "DELETE", path) for path in evicted}
    assert not any(os.path.exists(path.removeprefix("file://")) for path in evicted)
    assert (east / "data" / "logs" / recent.format("YYYY/MM/DD/HH")).exists()


def test_an_import_sends_falcon_messages(entities: Callable[..., Path], tmp_path: Path, broker: Broker,
                                         stomp_port: None) -> None:
    from tests.integration.airflow.test_import_dag import DATASOURCE, REPOSITORY, SECRET, seed

    storage, database = tmp_path / "storage", tmp_path / "shop.db"
    seed(database)
    entities("local.xml", cluster_with_broker("local", storage, broker.url))
    entities("shop-db.xml", DATASOURCE.format(database=database, secret=SECRET))
    entities("orders.xml", (REPOSITORY / "entities" / "feeds" / "orders.xml").read_text()
             .replace('name="primary"', 'name="local"'))
    moment = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    consumer = JmsConsumer(broker, ["FALCON.ENTITY.TOPIC", "FALCON.orders"], count=2)
    try:
        run = build_dag(spec("falcon.feed.orders.import.local")).test(logical_date=moment)
        assert str(run.state) == "success", task_states(run)
        topics = by_topic(consumer.messages())
    finally:
        consumer.stop()
    instance = f"file://{storage}/data/orders/2026-03-01/05"
    for message in (*topics["FALCON.ENTITY.TOPIC"], *topics["FALCON.orders"]):
        assert {key: message[key] for key in ("entityName", "entityType", "operation", "status", "cluster",
                                              "nominalTime", "feedNames", "feedInstancePaths")} == {
            "entityName": "orders", "entityType": "FEED", "operation": "IMPORT", "status": "SUCCEEDED",
            "cluster": "local", "nominalTime": "2026-03-01-05-00", "feedNames": "orders",
            "feedInstancePaths": instance}
        assert SECRET not in str(message)
