"""entity -slaAlert: the instances that missed their SLA, read from the SLA monitor's runs in Airflow, in Falcon's
format (name, type, cluster, instanceTime, tags)."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.builders import ops_cluster, ops_feed, ops_process

from .helpers import Kit

MONITOR = "falcon.feed.logs.sla.east"
TASKS = ("within_slaLow", "missed_slaLow", "within_slaHigh", "missed_slaHigh")


def at(hour: int) -> datetime:
    return datetime(2026, 5, 1, hour, tzinfo=UTC)


def sla_kit(kit: Kit) -> Kit:
    kit.write("clusters/east.xml", ops_cluster("east"))
    sla = '<frequency>hours(1)</frequency>\n  <sla slaLow="hours(1)" slaHigh="hours(2)"/>'
    kit.write("feeds/logs.xml", ops_feed("logs").replace("<frequency>hours(1)</frequency>", sla))
    kit.write("feeds/counts.xml", ops_feed("counts"))
    kit.write("processes/count.xml", ops_process("count"))
    kit.airflow.add_dag(MONITOR, TASKS)
    on_time = kit.airflow.add_run(MONITOR, at(1), state="success")
    kit.airflow.set_tis(on_time, within_slaLow="success", missed_slaLow="skipped", within_slaHigh="success",
                        missed_slaHigh="skipped")
    low = kit.airflow.add_run(MONITOR, at(2), state="success")  # arrived between slaLow and slaHigh
    kit.airflow.set_tis(low, within_slaLow="skipped", missed_slaLow="success", within_slaHigh="success",
                        missed_slaHigh="skipped")
    high = kit.airflow.add_run(MONITOR, at(3), state="success")  # not by slaHigh either
    kit.airflow.set_tis(high, within_slaLow="skipped", missed_slaLow="success", within_slaHigh="skipped",
                        missed_slaHigh="success")
    waiting = kit.airflow.add_run(MONITOR, at(4), state="running")  # slaLow not due yet
    kit.airflow.set_tis(waiting, within_slaLow="deferred")
    return kit


def test_sla_alert_lists_exactly_the_instances_that_missed(kit: Kit) -> None:
    sla_kit(kit)
    code, out, err = kit.run("entity", "-slaAlert", "-type", "feed", "-name", "logs", "-start", "2026-05-01T00:00Z",
                             "-end", "2026-05-01T06:00Z")
    assert code == 0, err
    assert out.strip().splitlines()[-2:] == [
        "name: logs, type: FEED, cluster: east, instanceTime: 2026-05-01T02:00Z, tags: Missed SLA Low",
        "name: logs, type: FEED, cluster: east, instanceTime: 2026-05-01T03:00Z, tags: Missed SLA High"]
    code, document = kit.json("entity", "-slaAlert", "-type", "feed", "-name", "logs", "-start",
                              "2026-05-01T03:00Z", "-end", "2026-05-01T06:00Z")
    assert code == 0 and document["instances"] == [
        {"entityName": "logs", "entityType": "FEED", "cluster": "east", "instanceTime": "2026-05-01T03:00Z",
         "tags": "Missed SLA High"}]


def test_sla_alert_needs_a_start_and_an_entity_with_an_sla(kit: Kit) -> None:
    sla_kit(kit)
    code, _, err = kit.run("entity", "-slaAlert", "-type", "feed", "-name", "logs")
    assert code == 2 and "-start" in err
    code, document = kit.json("entity", "-slaAlert", "-type", "feed", "-name", "counts", "-start",
                              "2026-05-01T00:00Z")
    assert (code, document["instances"]) == (0, []) and "declares no SLA" in document["message"]
    code, _, err = kit.run("entity", "-slaAlert", "-type", "cluster", "-name", "east", "-start", "2026-05-01T00:00Z")
    assert code == 2 and "only supported for feeds and processes" in err
    code, _, err = kit.run("entity", "-slaAlert", "-type", "feed", "-name", "nothing", "-start", "2026-05-01T00:00Z")
    assert code == 1 and "nothing (feed) not found" in err


def test_without_a_name_every_entity_of_the_type_is_looked_at(kit: Kit) -> None:
    sla_kit(kit)
    sla = '<frequency>hours(1)</frequency>\n  <sla slaLow="hours(1)" slaHigh="hours(2)"/>'
    kit.write("feeds/clicks.xml", ops_feed("clicks").replace("<frequency>hours(1)</frequency>", sla))
    clicks = "falcon.feed.clicks.sla.east"
    kit.airflow.add_dag(clicks, TASKS)
    late = kit.airflow.add_run(clicks, at(2), state="success")
    kit.airflow.set_tis(late, within_slaLow="skipped", missed_slaLow="success", within_slaHigh="success",
                        missed_slaHigh="skipped")
    code, out, err = kit.run("entity", "-slaAlert", "-type", "feed", "-start", "2026-05-01T00:00Z",
                             "-end", "2026-05-01T06:00Z")
    assert code == 0, err
    assert out.strip().splitlines()[-3:] == [
        "name: clicks, type: FEED, cluster: east, instanceTime: 2026-05-01T02:00Z, tags: Missed SLA Low",
        "name: logs, type: FEED, cluster: east, instanceTime: 2026-05-01T02:00Z, tags: Missed SLA Low",
        "name: logs, type: FEED, cluster: east, instanceTime: 2026-05-01T03:00Z, tags: Missed SLA High"]
    code, document = kit.json("entity", "-slaAlert", "-type", "process", "-start", "2026-05-01T00:00Z")
    assert (code, document["instances"]) == (0, []) and "any process" in document["message"]


def test_entity_status_names_the_sla_monitor_as_such(kit: Kit) -> None:
    # the monitor is suspended and deleted with the feed, but it is not one of Falcon's lifecycles (not eviction)
    sla_kit(kit)
    kit.airflow.add_dag("falcon.feed.logs.retention.east", ("retention",))
    code, document = kit.json("entity", "-status", "-type", "feed", "-name", "logs")
    assert code == 0
    purposes = {row["dagId"]: row["lifecycle"] for row in document["dags"]}
    assert purposes == {"falcon.feed.logs.retention.east": "EVICTION", MONITOR: "SLA"}, document["dags"]
