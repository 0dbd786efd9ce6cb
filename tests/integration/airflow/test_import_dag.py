"""The example's kind of import on real Airflow (dag.test) and real Spark: an SQLite table read over sqlite-jdbc
into a feed instance, re-run in place, with its OpenLineage events checked against the official schemas."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pendulum
import pyarrow.parquet as pq
import pytest
from tests.builders import cluster
from tests.integration.airflow.test_lineage import EventLog, event_log, spec, validate  # noqa: F401

from falcon_airflow.dags.builder import build_dag

pytestmark = pytest.mark.xdist_group("airflow")

REPOSITORY = Path(__file__).resolve().parents[3]
SECRET = "never-in-an-event"

DATASOURCE = """\
<datasource name="shop-db" colo="local" type="generic" xmlns="uri:falcon:datasource:0.1">
  <interfaces>
    <interface type="readonly" endpoint="jdbc:sqlite:{database}">
      <credential type="password-text"><userName>reader</userName><passwordText>{secret}</passwordText></credential>
    </interface>
  </interfaces>
  <driver><clazz>org.sqlite.JDBC</clazz><jar>sqlite-jdbc.jar</jar></driver>
</datasource>
"""


def seed(database: Path) -> None:
    location = REPOSITORY / "entities" / "apps" / "seed_shop_db.py"
    module_spec = importlib.util.spec_from_file_location("seed_shop_db", location)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    module.seed(str(database))


def test_import_dag_publishes_the_filtered_snapshot_and_reports_its_columns(
        entities: Callable[..., Path], tmp_path: Path, event_log: EventLog, shared: Path) -> None:  # noqa: F811
    storage, database = tmp_path / "storage", tmp_path / "shop.db"
    seed(database)
    entities("local.xml", cluster("local", f"file://{storage}", colo="local"))
    entities("shop-db.xml", DATASOURCE.format(database=database, secret=SECRET))
    feed = (REPOSITORY / "entities" / "feeds" / "orders.xml").read_text().replace('name="primary"', 'name="local"')
    entities("orders.xml", feed)
    moment = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    with sqlite3.connect(database) as connection:
        (expected,) = connection.execute("SELECT COUNT(*) FROM orders WHERE placed_at < '2026-03-01 06:00'")
    dag = build_dag(spec("falcon.feed.orders.import.local"))
    instance = storage / "data" / "orders" / "2026-03-01" / "05"
    first = tmp_path / "first-run.jsonl"
    for attempt in range(2):  # a rerun replaces the instance exactly
        run = dag.test(logical_date=moment)
        assert str(run.state) == "success"
        if attempt == 0:  # OpenLineage run ids come from the logical date: check the first run's events alone
            event_log.dag_run_started(run, dag)
            event_log.events()
            first.write_bytes(event_log.path.read_bytes())
        table = pq.read_table(instance)
        assert table.num_rows == expected[0] > 0
        assert table.column_names == ["id", "customer", "amount", "placed_at"]
        assert (instance / "_SUCCESS").exists()
        assert sorted(path.name for path in instance.parent.iterdir()) == ["05"]  # no staging left behind

    event_log.events()
    text = event_log.path.read_text(encoding="utf-8")
    assert SECRET not in text
    validate(shared, first)
    completes = [event for event in map(json.loads, text.splitlines()) if event["eventType"] == "COMPLETE"
                 and event["job"]["name"] == "falcon.feed.orders.import.local.import"]
    assert len(completes) == 2
    (source,), (target,) = completes[-1]["inputs"], completes[-1]["outputs"]
    assert (source["namespace"], source["name"]) == (f"sqlite://{database}", "orders")
    assert target["name"] == str(instance)
    assert target["outputFacets"]["outputStatistics"]["rowCount"] == expected[0]
    lineage = {name: [(item["field"], item["transformations"][0]["type"], item["transformations"][0]["subtype"])
                      for item in field["inputFields"]]
               for name, field in target["facets"]["columnLineage"]["fields"].items()}
    assert lineage["customer"] == [("customer", "DIRECT", "IDENTITY"), ("placed_at", "INDIRECT", "FILTER")]
    assert set(lineage) == {"id", "customer", "amount", "placed_at"}

    # The imported instance is an event of the feed's asset, the instance its partition key.
    from airflow.models.asset import AssetEvent, AssetModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    assert [asset.name for asset in dag.get_task("import").outlets] == ["falcon://local/orders"]
    with create_session() as session:
        events = session.scalars(select(AssetEvent).join(AssetModel, AssetEvent.asset_id == AssetModel.id)
                                 .where(AssetModel.name == "falcon://local/orders",
                                        AssetEvent.source_run_id == run.run_id)).all()
        assert [(event.partition_key, event.extra["operation"], event.extra["path"]) for event in events] == [
            ("2026-03-01T05:00Z", "IMPORT", f"file://{instance}")] * len(events) and events
