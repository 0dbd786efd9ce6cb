"""A feed's import and export DAGs are part of the feed: the entity actions (status, schedule, suspend, resume,
delete) act on them with its retention and replication DAGs, and ``instance -lifecycle IMPORT|EXPORT`` lists, kills
and reruns their runs, as EVICTION and REPLICATION do for the retention and replication DAGs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from tests.builders import ops_datasource, ops_transfer_feed

from .helpers import FakeRun, Kit

IMPORT_EAST = "falcon.feed.orders.import.east"
EXPORT_EAST = "falcon.feed.orders.export.east"
EXPORT_WEST = "falcon.feed.orders.export.west"
TRANSFERS = {IMPORT_EAST, EXPORT_EAST, EXPORT_WEST}
OTHERS = {"falcon.feed.orders.retention.east", "falcon.feed.orders.retention.west",
          "falcon.feed.orders.replication.east.west"}
T3 = datetime(2026, 5, 1, 3, tzinfo=UTC)
T4 = datetime(2026, 5, 1, 4, tzinfo=UTC)
WINDOW = ("-start", "2026-05-01T00:00Z", "-end", "2026-05-01T10:00Z")


@pytest.fixture
def orders(pipeline: Kit) -> Kit:
    """The pipeline plus a datasource and the feed orders: imported on east, exported on east and west, replicated
    from east to west; Airflow has all its DAGs (paused at creation)."""
    pipeline.write("datasources/shop.xml", ops_datasource("shop"))
    pipeline.write("feeds/orders.xml", ops_transfer_feed("orders", datasource="shop"))
    pipeline.airflow.add_dag("falcon.feed.orders.retention.east", ("retention",))
    pipeline.airflow.add_dag("falcon.feed.orders.retention.west", ("retention",))
    pipeline.airflow.add_dag("falcon.feed.orders.replication.east.west", ("wait_for_source", "replicate"))
    pipeline.airflow.add_dag(IMPORT_EAST, ("import",))
    pipeline.airflow.add_dag(EXPORT_EAST, ("wait_for_instance", "export"))
    pipeline.airflow.add_dag(EXPORT_WEST, ("wait_for_instance", "export"))
    return pipeline


def unpaused(kit: Kit) -> set[str]:
    return {dag_id for dag_id, dag in kit.airflow.dags_by_id.items()
            if dag_id.startswith("falcon.feed.orders.") and not dag["is_paused"]}


def entity(kit: Kit, action: str) -> tuple[int, str]:
    code, out, err = kit.run("entity", action, "-type", "feed", "-name", "orders")
    return code, (out + err).strip()


def instance(kit: Kit, action: str, *extra: str) -> dict[str, Any]:
    code, document = kit.json("instance", action, "-type", "feed", "-name", "orders", *extra)
    assert code in (0, 1), document
    return document


def rows(document: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(item["lifecycle"], item["cluster"], item["instance"], item["status"]) for item in document["instances"]]


def running_import(kit: Kit, moment: datetime) -> FakeRun:
    run = kit.airflow.add_run(IMPORT_EAST, moment, state="running")
    kit.airflow.set_tis(run, **{"import": "running"})
    return run


def failed_export(kit: Kit, dag_id: str, moment: datetime) -> FakeRun:
    run = kit.airflow.add_run(dag_id, moment, state="failed")
    kit.airflow.set_tis(run, wait_for_instance="success", export="failed")
    return run


def test_status_lists_the_import_and_export_dags_of_the_clusters_that_declare_them(orders: Kit) -> None:
    code, document = orders.json("entity", "-status", "-type", "feed", "-name", "orders")
    assert code == 0, document
    listed = {(row["dagId"], row["lifecycle"], row["cluster"], row["exists"]) for row in document["dags"]}
    assert {row for row in listed if row[1] in ("IMPORT", "EXPORT")} == {
        (IMPORT_EAST, "IMPORT", "east", True), (EXPORT_EAST, "EXPORT", "east", True),
        (EXPORT_WEST, "EXPORT", "west", True)}  # no import on west: it declares none
    assert {row[0] for row in listed} == TRANSFERS | OTHERS
    # the import DAG alone unpaused (the UI) makes the feed RUNNING, as any other of its DAGs does
    orders.airflow.dags_by_id[IMPORT_EAST]["is_paused"] = False
    assert entity(orders, "-status") == (0, "RUNNING")


def test_schedule_suspend_and_resume_act_on_the_import_and_export_dags(orders: Kit) -> None:
    assert entity(orders, "-schedule") == (0, "orders(feed) scheduled successfully")
    assert unpaused(orders) == TRANSFERS | OTHERS
    assert entity(orders, "-suspend") == (0, "orders(feed) suspended successfully")
    assert unpaused(orders) == set()
    assert entity(orders, "-status") == (0, "SUSPENDED")
    assert entity(orders, "-resume") == (0, "orders(feed) resumed successfully")
    assert unpaused(orders) == TRANSFERS | OTHERS
    assert entity(orders, "-status") == (0, "RUNNING")


def test_schedule_waits_for_airflow_to_register_the_import_dag(orders: Kit) -> None:
    del orders.airflow.dags_by_id[IMPORT_EAST]
    code, message = entity(orders, "-schedule")
    assert code == 1 and f"Airflow has not registered DAG(s) {IMPORT_EAST} yet" in message


def test_delete_kills_and_drops_the_import_and_export_dags(orders: Kit) -> None:
    assert entity(orders, "-schedule")[0] == 0
    run = running_import(orders, T3)
    orders.airflow.add_dag("falcon.feed.orders.export.gone", ("wait_for_instance", "export"))  # a removed cluster's
    code, document = orders.json("entity", "-delete", "-type", "feed", "-name", "orders")
    assert code == 0, document
    assert set(document["dags"]) == TRANSFERS | OTHERS | {"falcon.feed.orders.export.gone"}
    assert not [dag_id for dag_id in orders.airflow.dags_by_id if dag_id.startswith("falcon.feed.orders.")]
    assert any(call.startswith(f"patch_run {run.run_id} failed") for call in orders.airflow.calls)
    assert "falcon.feed.counts.retention.east" in orders.airflow.dags_by_id  # other feeds keep theirs


def test_instance_status_list_running_and_summary_of_import_and_export(orders: Kit) -> None:
    running_import(orders, T4)
    failed_export(orders, EXPORT_WEST, T3)
    orders.airflow.add_run("falcon.feed.orders.retention.east", T3)

    assert rows(instance(orders, "-status", *WINDOW, "-lifecycle", "IMPORT")) == [
        ("IMPORT", "east", "2026-05-01T04:00Z", "RUNNING")]
    assert rows(instance(orders, "-status", *WINDOW, "-lifecycle", "export")) == [
        ("EXPORT", "west", "2026-05-01T03:00Z", "FAILED")]
    both = instance(orders, "-list", *WINDOW, "-lifecycle", "Import,EXPORT")
    assert sorted(rows(both)) == [("EXPORT", "west", "2026-05-01T03:00Z", "FAILED"),
                                  ("IMPORT", "east", "2026-05-01T04:00Z", "RUNNING")]
    assert {item["dagId"] for item in both["instances"]} == {IMPORT_EAST, EXPORT_WEST}
    assert rows(instance(orders, "-running", "-lifecycle", "IMPORT,EXPORT")) == [
        ("IMPORT", "east", "2026-05-01T04:00Z", "RUNNING")]
    summary = instance(orders, "-summary", *WINDOW, "-lifecycle", "IMPORT,EXPORT")
    assert sorted(summary["instancesSummary"], key=lambda item: item["cluster"]) == [
        {"cluster": "east", "map": {"RUNNING": 1}}, {"cluster": "west", "map": {"FAILED": 1}}]
    # -colo narrows them as it does the other lifecycles; the default (REPLICATION) does not take them
    assert rows(instance(orders, "-status", *WINDOW, "-lifecycle", "EXPORT,IMPORT", "-colo", "there")) == [
        ("EXPORT", "west", "2026-05-01T03:00Z", "FAILED")]
    assert instance(orders, "-status", *WINDOW)["instances"] == []


def test_instance_kill_and_rerun_of_import_and_export(orders: Kit) -> None:
    imported = running_import(orders, T4)
    exported = failed_export(orders, EXPORT_EAST, T3)
    other = failed_export(orders, EXPORT_WEST, T3)

    killed = instance(orders, "-kill", *WINDOW, "-lifecycle", "IMPORT")
    assert [(item["dagId"], item["status"], item["details"]) for item in killed["instances"]] == [
        (IMPORT_EAST, "KILLED", "killed")]
    assert orders.airflow.states(imported)["import"] == "failed"

    rerun = instance(orders, "-rerun", *WINDOW, "-lifecycle", "export", "-clusters", "east")
    assert [(item["dagId"], item["details"]) for item in rerun["instances"]] == [
        (EXPORT_EAST, "rerun (from the failed tasks)")]
    assert orders.airflow.states(exported) == {"wait_for_instance": "success", "export": None}
    assert orders.airflow.states(other)["export"] == "failed"  # west was not chosen

    again = instance(orders, "-rerun", *WINDOW, "-lifecycle", "IMPORT")
    assert [(item["dagId"], item["details"]) for item in again["instances"]] == [
        (IMPORT_EAST, "rerun (from the failed tasks)")]
    assert orders.airflow.runs_by_key[(IMPORT_EAST, imported.run_id)].state == "queued"


def test_lifecycles_are_still_checked(orders: Kit) -> None:
    code, _, err = orders.run("instance", "-status", "-type", "feed", "-name", "orders", *WINDOW, "-lifecycle",
                              "IMPORT,SOMETIMES")
    assert (code, err.strip()) == (2, "ERROR: Invalid life cycle values: SOMETIMES (valid: EXECUTION, EVICTION, "
                                      "REPLICATION, IMPORT, EXPORT)")
    code, _, err = orders.run("instance", "-status", "-type", "process", "-name", "count", *WINDOW, "-lifecycle",
                              "import")
    assert (code, err.strip()) == (1, "ERROR: Incorrect lifecycle: IMPORT for given type: process")
