"""Process instance <-> feed instance mapping: Falcon's ProcessHelperTest/FeedHelperTest cases (M1-M17)."""

from __future__ import annotations

from pathlib import Path

import pendulum
import pytest
from tests.builders import cluster, feed, process, workspace

from falcon_airflow.errors import InstanceError
from falcon_airflow.instances.process import ProcessOnCluster
from falcon_airflow.timekeeping import format_falcon_date, parse_falcon_date


def at(text: str) -> pendulum.DateTime:
    return pendulum.instance(parse_falcon_date(text))


def dates(moments: list[pendulum.DateTime] | tuple[pendulum.DateTime, ...]) -> list[str]:
    return [format_falcon_date(moment) for moment in moments]


def on_cluster(tmp_path: Path, feed_xml: str, process_xml: str) -> ProcessOnCluster:
    loaded = workspace(tmp_path, cluster(), feed_xml, process_xml)
    return ProcessOnCluster.of(loaded, loaded.processes["p"])


def test_m1_inputs_snap_to_the_preceding_feed_instance(tmp_path: Path) -> None:
    runner = on_cluster(tmp_path, feed(frequency="minutes(5)", start="2012-02-27T10:00Z"),
                        process(frequency="minutes(10)", start="2012-02-28T10:37Z",
                                inputs=(("in", "f", "now(0,-20)", "now(0,0)"),)))
    (resolved,) = runner.resolve_inputs(at("2012-02-28T10:37Z"))
    assert dates(resolved.instances) == ["2012-02-28T10:15Z", "2012-02-28T10:20Z", "2012-02-28T10:25Z",
                                         "2012-02-28T10:30Z", "2012-02-28T10:35Z"]
    assert resolved.paths[0] == "file:///srv/c1/data/2012/02/28/10/15"


def test_m2_output_instance(tmp_path: Path) -> None:
    runner = on_cluster(tmp_path, feed(frequency="days(1)", start="2012-02-27T11:00Z"),
                        process(frequency="days(1)", start="2012-02-28T10:00Z",
                                outputs=(("out", "f", "now(0,0)"),)))
    (output,) = runner.resolve_outputs(at("2012-02-28T10:00Z"))
    assert format_falcon_date(output.instance) == "2012-02-27T11:00Z"


CONSUMERS = [
    ("M3", "minutes(5)", "2011-02-28T10:00Z", "minutes(10)", "2012-02-28T10:37Z", "2012-02-28T10:47Z",
     "now(0,-20)", "now(0,0)", "2012-02-28T10:15Z", ["2012-02-28T10:37Z"]),
    ("M4", "minutes(5)", "2011-02-28T10:00Z", "minutes(10)", "2012-02-28T10:20Z", "2016-02-28T10:00Z",
     "now(0,-20)", "now(0,0)", "2012-02-28T10:15Z", ["2012-02-28T10:20Z", "2012-02-28T10:30Z"]),
    ("M5", "hours(1)", "2012-02-28T00:00Z", "days(1)", "2012-02-28T10:00Z", "2016-02-28T10:00Z",
     "now(-4,30)", "now(4,30)", "2012-02-28T09:00Z", ["2012-02-28T10:00Z"]),
    ("M6", "minutes(5)", "2012-02-28T00:00Z", "minutes(10)", "2012-02-28T09:37Z", "2016-02-28T10:00Z",
     "now(0,-20)", "now(0,0)", "2012-02-28T09:40Z", ["2012-02-28T09:47Z", "2012-02-28T09:57Z"]),
    ("M7", "hours(1)", "2012-02-27T00:00Z", "hours(1)", "2012-02-27T10:00Z", "2016-02-28T10:00Z",
     "now(-4,30)", "now(4,30)", "2012-02-28T09:00Z", [f"2012-02-28T{h:02d}:00Z" for h in range(5, 14)]),
    ("M8", "hours(1)", "2012-02-27T00:00Z", "hours(1)", "2012-02-27T00:00Z", "2016-02-28T10:00Z",
     "today(0,0)", "now(0,0)", "2012-02-28T00:00Z", [f"2012-02-28T{h:02d}:00Z" for h in range(24)]),
    ("M9", "hours(1)", "2012-02-27T00:00Z", "hours(1)", "2012-02-27T00:00Z", "2016-02-28T10:00Z",
     "now(0,0)", "today(24,0)", "2012-03-28T00:00Z",
     [f"2012-03-27T{h:02d}:00Z" for h in range(24)] + ["2012-03-28T00:00Z"]),
    ("M10", "hours(1)", "2012-02-27T00:00Z", "hours(1)", "2012-02-27T00:00Z", "2016-02-28T10:00Z",
     "today(0,0)", "latest(0)", "2012-02-28T00:00Z", [f"2012-02-28T{h:02d}:00Z" for h in range(24)]),
    ("M11", "minutes(5)", "2010-02-28T00:00Z", "minutes(10)", "2012-02-28T09:37Z", "2012-02-28T09:47Z",
     "today(-2,0)", "now(0,0)", "2012-02-28T09:35Z", ["2012-02-28T09:37Z"]),
]


@pytest.mark.parametrize(("case", "feed_frequency", "feed_start", "process_frequency", "process_start",
                          "process_end", "start", "end", "feed_instance", "expected"), CONSUMERS,
                         ids=[row[0] for row in CONSUMERS])
def test_consumers_of_a_feed_instance(tmp_path: Path, case: str, feed_frequency: str, feed_start: str,
                                      process_frequency: str, process_start: str, process_end: str, start: str,
                                      end: str, feed_instance: str, expected: list[str]) -> None:
    runner = on_cluster(tmp_path, feed(frequency=feed_frequency, start=feed_start),
                        process(frequency=process_frequency, start=process_start, end=process_end,
                                inputs=(("in", "f", start, end),)))
    assert dates(runner.consumers_of("f", at(feed_instance))) == expected
    for consumer in runner.consumers_of("f", at(feed_instance)):  # and the forward mapping agrees
        (resolved,) = runner.resolve_inputs(consumer)
        assert at(feed_instance) in resolved.instances


PRODUCERS = [
    ("M12", "minutes(5)", "2011-02-28T10:00Z", "minutes(10)", "2012-02-28T10:37Z", "2016-02-28T10:00Z",
     "now(0,0)", "2013-02-28T10:35Z", "2013-02-28T10:37Z"),
    ("M13", "days(1)", "2011-02-28T10:00Z", "days(1)", "2012-02-28T10:00Z", "2016-02-28T10:00Z",
     "now(-4,0)", "2013-02-27T10:00Z", "2013-02-28T10:00Z"),
    ("M14", "days(1)", "2011-02-28T10:00Z", "days(1)", "2012-02-28T10:00Z", "2016-02-28T10:00Z",
     "now(4,0)", "2013-02-28T10:00Z", "2013-02-28T10:00Z"),
    ("M15", "days(1)", "2011-02-28T00:00Z", "days(1)", "2012-02-28T10:00Z", "2016-02-28T10:00Z",
     "today(0,0)", "2013-02-28T00:00Z", "2013-02-28T10:00Z"),
    ("M16", "minutes(5)", "2011-02-28T10:00Z", "minutes(10)", "2012-02-28T10:37Z", "2012-02-28T10:47Z",
     "now(0,0)", "2012-02-28T10:40Z", None),
]


@pytest.mark.parametrize(("case", "feed_frequency", "feed_start", "process_frequency", "process_start",
                          "process_end", "instance", "feed_instance", "expected"), PRODUCERS,
                         ids=[row[0] for row in PRODUCERS])
def test_producer_of_a_feed_instance(tmp_path: Path, case: str, feed_frequency: str, feed_start: str,
                                     process_frequency: str, process_start: str, process_end: str, instance: str,
                                     feed_instance: str, expected: str | None) -> None:
    runner = on_cluster(tmp_path, feed(frequency=feed_frequency, start=feed_start),
                        process(frequency=process_frequency, start=process_start, end=process_end,
                                outputs=(("out", "f", instance),)))
    producer = runner.producer_of("f", at(feed_instance))
    assert (format_falcon_date(producer) if producer else None) == expected


@pytest.mark.parametrize(("moment", "message"), [
    ("2011-02-27T10:00Z", "before the first instance"),
    ("2016-02-28T10:00Z", "not before the end"),
    ("2012-02-28T09:04Z", "not an instance"),
])
def test_m17_queries_outside_the_feed_grid_are_refused(tmp_path: Path, moment: str, message: str) -> None:
    runner = on_cluster(tmp_path, feed(frequency="minutes(5)", start="2011-02-28T10:00Z", end="2016-02-28T10:00Z"),
                        process(frequency="minutes(10)", start="2012-02-28T10:37Z",
                                outputs=(("out", "f", "now(0,0)"),)))
    with pytest.raises(InstanceError, match=message):
        runner.producer_of("f", at(moment))


def test_input_before_the_first_feed_instance_is_clipped(tmp_path: Path) -> None:
    runner = on_cluster(tmp_path, feed(frequency="hours(1)", start="2012-01-01T05:00Z"),
                        process(frequency="hours(1)", start="2012-01-01T00:00Z",
                                inputs=(("in", "f", "today(0,0)", "now(0,0)"),)))
    (early,) = runner.resolve_inputs(at("2012-01-01T03:00Z"))
    assert early.instances == () and early.end is None
    (later,) = runner.resolve_inputs(at("2012-01-01T06:00Z"))
    assert early.start is None and dates(later.instances) == ["2012-01-01T05:00Z", "2012-01-01T06:00Z"]


def test_input_partition_is_a_sub_path(tmp_path: Path) -> None:
    runner = on_cluster(tmp_path, feed(path="/d/${YEAR}${MONTH}${DAY}${HOUR}", partitions=("country", "region")),
                        process(inputs=(("in", "f", "now(0,0)", "now(0,0)"),), partitions={"in": "*/US"}))
    (resolved,) = runner.resolve_inputs(at("2012-01-01T03:00Z"))
    assert resolved.paths == ("file:///srv/c1/d/2012010103/*/US",)


def test_feed_zone_drives_path_values_and_truncation(tmp_path: Path) -> None:
    runner = on_cluster(tmp_path, feed(frequency="days(1)", start="2012-01-01T05:00Z", timezone="America/New_York",
                                       path="/d/${YEAR}-${MONTH}-${DAY}"),
                        process(frequency="days(1)", start="2012-01-01T05:00Z",
                                inputs=(("in", "f", "today(0,0)", "today(0,0)"),)))
    (resolved,) = runner.resolve_inputs(at("2012-03-15T05:00Z"))
    assert dates(resolved.instances) == ["2012-03-15T04:00Z"]  # midnight in New York after the DST change
    assert resolved.paths == ("file:///srv/c1/d/2012-03-15",)
