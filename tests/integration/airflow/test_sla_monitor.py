"""Falcon's SLA monitoring on real Airflow: a feed instance that is not available by nominal time + slaLow and +
slaHigh is a miss of each, told by mail (to a local SMTP server) and recorded by the monitor's ``missed_*`` tasks;
an instance that is on time is not. A process whose run of the instance never started misses shouldStartIn and
shouldEndIn."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.builders import cluster
from tests.integration.airflow.test_process_dag import FEED, PROCESS, land, process_spec, task_states
from tests.integration.notifications.smtp import Mailbox, html_of, mailbox

from falcon_airflow.compiler.specs import SlaDagSpec
from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import entities_folder, load_specs

pytestmark = pytest.mark.xdist_group("airflow")

SLA = '<frequency>hours(1)</frequency>\n  <sla slaLow="hours(1)" slaHigh="hours(2)"/>'
NOTIFY = '<notification type="email" to="oncall@example.com"/>\n  <ACL'


@pytest.fixture
def box(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    with mailbox(monkeypatch) as running:
        yield running


def sla_spec(dag_id: str) -> SlaDagSpec:
    specs, issues = load_specs(entities_folder())
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    (spec,) = [item for item in specs if item.dag_id == dag_id]
    assert isinstance(spec, SlaDagSpec)
    return spec


def pipeline(entities: Callable[..., Path], storage: Path) -> None:
    entities("cluster.xml", cluster("local", f"file://{storage}", colo="local"))
    feed = FEED.format(name="events", frequency="hours(1)", late="", flag="<availabilityFlag>_DONE</availabilityFlag>")
    entities("events.xml", feed.replace("<frequency>hours(1)</frequency>", SLA, 1).replace("<ACL", NOTIFY, 1))
    entities("counts.xml", FEED.format(name="counts", frequency="hours(1)", late="", flag=""))
    entities("count.xml", PROCESS.format(frequency="hours(1)", late="").replace(
        "<inputs>", '<sla shouldStartIn="minutes(30)" shouldEndIn="hours(1)"/>\n  <inputs>', 1))


def states(run: Any) -> dict[str, str]:
    return task_states(run)


def test_a_late_feed_instance_misses_both_slas_and_an_available_one_none(
        entities: Callable[..., Path], tmp_path: Path, box: Mailbox) -> None:
    storage = tmp_path / "storage"
    pipeline(entities, storage)
    dag = build_dag(sla_spec("falcon.feed.events.sla.local"))
    on_time = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    land(storage, "events", on_time, lines=1)
    run = dag.test(logical_date=on_time)
    assert states(run) == {"within_slaLow": "success", "missed_slaLow": "skipped",
                           "within_slaHigh": "success", "missed_slaHigh": "skipped"}, states(run)
    assert box.mails == []

    late = pendulum.datetime(2026, 3, 1, 6, tz="UTC")  # never landed: both deadlines are long past
    run = dag.test(logical_date=late)
    assert states(run) == {"within_slaLow": "skipped", "missed_slaLow": "success",
                           "within_slaHigh": "skipped", "missed_slaHigh": "success"}, states(run)
    subjects = sorted(mail["Subject"] for _, mail in box.mails)
    assert subjects == ["Falcon feed events instance 2026-03-01T06:00Z on local: Missed SLA High",
                        "Falcon feed events instance 2026-03-01T06:00Z on local: Missed SLA Low"]
    assert all(recipients == ["oncall@example.com"] for recipients, _ in box.mails)
    body = html_of(box.mails[0][1])
    assert "2026-03-01T07:00Z" in body or "2026-03-01T08:00Z" in body  # the deadline


def test_a_process_instance_that_never_ran_misses_should_start_and_end(
        entities: Callable[..., Path], tmp_path: Path) -> None:
    pipeline(entities, tmp_path / "storage")
    # An instance time no other test of this worker's Airflow database runs the process at (the database lives for
    # the session): the monitor must find no process run at all.
    run = build_dag(sla_spec("falcon.process.count.sla.local")).test(
        logical_date=pendulum.datetime(2026, 2, 27, 13, tz="UTC"))
    assert states(run) == {"within_shouldStartIn": "skipped", "missed_shouldStartIn": "success",
                           "within_shouldEndIn": "skipped", "missed_shouldEndIn": "success"}, states(run)


def test_a_process_instance_that_ended_without_starting_its_work_meets_should_end_in(
        entities: Callable[..., Path], tmp_path: Path) -> None:
    """The instance's input never came: its run ended (failed) before its work started. shouldStartIn is missed,
    shouldEndIn is met - the monitor reads the process run's task states through Airflow."""
    pipeline(entities, tmp_path / "storage")
    moment = pendulum.datetime(2026, 2, 27, 14, tz="UTC")  # no other test runs the process then (see above)
    process_run = build_dag(process_spec(input_timeout_seconds=3)).test(logical_date=moment)
    assert str(process_run.state) == "failed", task_states(process_run)
    run = build_dag(sla_spec("falcon.process.count.sla.local")).test(logical_date=moment)
    assert states(run) == {"within_shouldStartIn": "skipped", "missed_shouldStartIn": "success",
                           "within_shouldEndIn": "success", "missed_shouldEndIn": "skipped"}, states(run)
