"""Falcon's prepare-delete clears one instance's own folder, never a folder other instances share."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pendulum
import pytest

from falcon_airflow.instances.bindings import FeedBinding, OutputBinding
from falcon_airflow.provider.operators.outputs import ClearOutputsOperator

MOMENT = pendulum.datetime(2026, 3, 14, 5, 15, tz="UTC")


def _run(tmp_path: Path, frequency: str, template: str) -> tuple[Path, Path]:
    """Land this instance's and a neighbour's files where the template puts them, then clear this instance."""
    feed = FeedBinding(feed="clicks", cluster="primary", frequency=frequency, timezone="UTC",
                       start="2026-01-01T00:00Z", end="2099-01-01T00:00Z", location=f"file://{tmp_path}{template}")
    step = {"minutes(15)": pendulum.duration(minutes=15), "hours(1)": pendulum.duration(hours=1),
            "days(1)": pendulum.duration(days=1), "months(1)": pendulum.duration(months=1)}[frequency]
    own = Path(feed.path(MOMENT).removeprefix("file://"))
    other = Path(feed.path(MOMENT - step).removeprefix("file://"))
    for folder, name in ((own, "this.csv"), (other, "earlier.csv")):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("data\n")
    binding = OutputBinding(name="out", feed=feed, instance="now(0,0)")
    operator = ClearOutputsOperator(task_id="clear_outputs", outputs=[binding.model_dump(mode="json")])
    operator.execute({"dag_run": SimpleNamespace(data_interval_start=MOMENT, logical_date=MOMENT)})
    return own, other


@pytest.mark.parametrize(("frequency", "template"), [
    ("hours(1)", "/d/${YEAR}/${MONTH}"),            # every hour of the month in one folder
    ("hours(1)", "/d/${YEAR}-${MONTH}-${DAY}"),     # every hour of the day
    ("minutes(15)", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}"),
    ("days(1)", "/d/${YEAR}/${MONTH}"),
    ("months(1)", "/d/${YEAR}"),
    ("hours(1)", "/d/${YEAR}/${HOUR}"),             # a gap: the hour recurs every day of the year
])
def test_a_folder_other_instances_share_is_left_as_it_is(tmp_path: Path, frequency: str, template: str) -> None:
    own, other = _run(tmp_path, frequency, template)
    assert (own / "this.csv").exists()
    assert (other / "earlier.csv").exists()


@pytest.mark.parametrize(("frequency", "template"), [
    ("hours(1)", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}"),
    ("minutes(15)", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}${MINUTE}"),
    ("days(1)", "/d/${YEAR}-${MONTH}-${DAY}"),
])
def test_an_instance_in_a_folder_of_its_own_is_cleared(tmp_path: Path, frequency: str, template: str) -> None:
    own, other = _run(tmp_path, frequency, template)
    assert not own.exists()
    assert (other / "earlier.csv").exists()
