"""The input sensor says what it waits for in a rendered field (the task's Rendered Template tab in the UI)."""

from __future__ import annotations

from pathlib import Path

from falcon_airflow.provider.sensors.feed import SHOWN_MISSING, FeedInstanceSensor, waiting_text


def test_the_first_check_names_every_missing_instance(tmp_path: Path) -> None:
    (tmp_path / "h01").mkdir()
    (tmp_path / "h01" / "_SUCCESS").write_text("")
    markers = [f"file://{tmp_path}/h0{hour}/_SUCCESS" for hour in (1, 2, 3)]
    sensor = FeedInstanceSensor(task_id="wait_for_clicks", markers=",".join(markers), input_name="clicks",
                                feed="raw-clicks")
    assert "waiting_for" in sensor.template_fields and sensor.overwrite_rtif_after_execution
    assert sensor.poke({}) is False
    assert sensor.waiting_for.splitlines() == [
        "input clicks: waiting for 2 of 3 instance(s) of feed raw-clicks:", f"  {markers[1]}", f"  {markers[2]}",
        "falcon-airflow instance -triage shows which process instances should write them"]
    for hour in (2, 3):
        (tmp_path / f"h0{hour}").mkdir()
        (tmp_path / f"h0{hour}" / "_SUCCESS").write_text("")
    assert sensor.poke({}) is True
    assert sensor.waiting_for == "input clicks: all 3 instance(s) of feed raw-clicks are available"


def test_a_long_list_is_cut() -> None:
    missing = [f"/data/{index}" for index in range(SHOWN_MISSING + 5)]
    text = waiting_text("in", "logs", len(missing), missing)
    assert f"  /data/{SHOWN_MISSING - 1}" in text and f"/data/{SHOWN_MISSING}\n" not in text
    assert "  ... and 5 more" in text
