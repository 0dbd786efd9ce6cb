"""When an announced run started: the figure behind the mail's Duration and the message's workflowDuration."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from falcon_airflow.notifications.mail import instance_mail
from falcon_airflow.notifications.messages import InstanceEnd, instance_messages
from falcon_airflow.provider.instance_end import run_started

NOW = datetime(2026, 11, 27, 12, 0, 30, tzinfo=UTC)
TASK_START = NOW - timedelta(seconds=50)


@pytest.mark.parametrize(("nominal", "run_after"), [
    (datetime(2026, 1, 1, tzinfo=UTC), NOW - timedelta(seconds=60)),  # dags test of a January instance
    (datetime(2026, 11, 27, 11, tzinfo=UTC), NOW - timedelta(seconds=5)),  # an hour back
    (datetime(2025, 2, 28, 23, 45, tzinfo=UTC), NOW - timedelta(seconds=70)),  # another year
])
def test_a_placeholder_start_before_the_run_could_start_is_not_counted(nominal: datetime,
                                                                        run_after: datetime) -> None:
    run = SimpleNamespace(start_date=nominal, run_after=run_after, logical_date=nominal)
    assert run_started(run, SimpleNamespace(start_date=TASK_START)) == TASK_START


@pytest.mark.parametrize("delay", [timedelta(0), timedelta(seconds=3), timedelta(days=40)])
def test_a_real_start_is_the_run_start(delay: timedelta) -> None:
    run_after = datetime(2026, 10, 1, tzinfo=UTC)
    run = SimpleNamespace(start_date=run_after + delay, run_after=run_after)
    assert run_started(run, SimpleNamespace(start_date=TASK_START)) == run_after + delay


def test_no_run_start_falls_back_to_the_task_start_and_then_to_unknown() -> None:
    assert run_started(SimpleNamespace(start_date=None, run_after=NOW), SimpleNamespace(start_date=TASK_START)) \
        == TASK_START
    assert run_started(SimpleNamespace(), SimpleNamespace()) is None


def test_the_mail_and_the_message_of_a_dags_test_run_give_its_real_duration() -> None:
    nominal = datetime(2026, 1, 1, tzinfo=UTC)
    run = SimpleNamespace(start_date=nominal, run_after=NOW - timedelta(seconds=70))
    end = InstanceEnd(entity="count", entity_type="PROCESS", operation="GENERATE", cluster="local",
                      nominal_time=nominal, succeeded=True, workflow_id="w@r", run_id=0, user="u",
                      broker_url="", started=run_started(run, SimpleNamespace(start_date=TASK_START)), ended=NOW)
    assert "<td>0m 50s</td>" in instance_mail(end).html
    assert [message["workflowDuration"] for _, message in instance_messages(end, NOW)] == ["50000"]
