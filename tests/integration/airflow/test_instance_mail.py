"""Falcon's email notification on real Airflow: a process with ``<notification type="email" .../>`` mails its
instance's end, success and failure, through Airflow's SMTP settings to a local SMTP server."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pendulum
import pytest
from tests.builders import cluster
from tests.integration.airflow.test_process_dag import FEED, PROCESS, land, process_spec, task_states
from tests.integration.notifications.smtp import Mailbox, html_of, mailbox

from falcon_airflow.dags.builder import build_process_dag

pytestmark = pytest.mark.xdist_group("airflow")

NOTIFY = '<notification type="email" to="ops@example.com, data@example.com"/>\n  <ACL'


@pytest.fixture
def box(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    with mailbox(monkeypatch) as running:
        yield running


def pipeline(entities: Callable[..., Path], storage: Path) -> None:
    entities("cluster.xml", cluster("local", f"file://{storage}", colo="local"))
    entities("events.xml", FEED.format(name="events", frequency="hours(1)", late="",
                                       flag="<availabilityFlag>_DONE</availabilityFlag>"))
    entities("counts.xml", FEED.format(name="counts", frequency="hours(1)", late="",
                                       flag="<availabilityFlag>_READY</availabilityFlag>"))
    entities("count.xml", PROCESS.format(frequency="hours(1)", late="").replace("<ACL", NOTIFY, 1))


def test_a_successful_instance_is_mailed(entities: Callable[..., Path], tmp_path: Path, box: Mailbox) -> None:
    storage = tmp_path / "storage"
    pipeline(entities, storage)
    moment = pendulum.datetime(2026, 3, 1, 9, tz="UTC")
    land(storage, "events", moment, lines=2)
    run = build_process_dag(process_spec()).test(logical_date=moment)
    assert str(run.state) == "success", task_states(run)
    ((recipients, mail),) = box.mails
    assert sorted(recipients) == ["data@example.com", "ops@example.com"]
    assert mail["Subject"] == "Falcon process count instance 2026-03-01T09:00Z on local: SUCCEEDED"
    body = html_of(mail)
    assert "GENERATE" in body and f"file://{storage}/data/counts/2026/03/01/0900" in body
    assert f"falcon.process.count.local@{run.run_id}" in body
    # the run took seconds, though its instance is months before the test ran
    assert re.search(r"<th align='left'>Duration</th><td>\d+m \d\ds</td>", body), body


def test_a_failed_instance_is_mailed_once(entities: Callable[..., Path], tmp_path: Path, box: Mailbox) -> None:
    storage = tmp_path / "storage"
    pipeline(entities, storage)
    moment = pendulum.datetime(2026, 3, 1, 10, tz="UTC")  # no input: the wait times out
    run = build_process_dag(process_spec(input_timeout_seconds=3)).test(logical_date=moment)
    assert str(run.state) == "failed", task_states(run)
    ((recipients, mail),) = box.mails
    assert mail["Subject"] == "Falcon process count instance 2026-03-01T10:00Z on local: FAILED"
    assert "ops@example.com" in recipients
