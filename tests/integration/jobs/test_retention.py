"""Retention on real files with a real Spark session: Falcon's FeedEvictor cases and the safety rules."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from falcon_airflow.core.paths import Template
from falcon_airflow.core.times import format_instant, parse_instant, parse_zone
from falcon_airflow.jobs import retention

pytestmark = pytest.mark.xdist_group("spark-jobs")

UTC = parse_zone("UTC")


def utc(text: str) -> datetime:
    return parse_instant(text)


def make_instances(base: Path, layout: str, start: datetime, count: int, step: timedelta,
                   zone: Any = UTC) -> dict[datetime, Path]:
    """``count`` instance folders of ``base`` + ``layout`` from ``start`` every ``step``, each with a file."""
    template = Template.parse(str(base) + layout)
    made = {}
    for index in range(count):
        moment = start + index * step
        folder = Path(template.resolve(moment, zone))
        (folder / "part-00000").parent.mkdir(parents=True, exist_ok=True)
        (folder / "part-00000").write_text(moment.isoformat())
        made[moment] = folder
    return made


def run(spark: Any, *argv: str, report: Path | None = None) -> tuple[int, dict[str, Any]]:
    arguments = ["--feed", "clicks", "--cluster", "primary", *argv]
    if report is not None:
        arguments += ["--report", str(report)]
    code = retention.main(arguments, spark=spark)
    return code, json.loads(report.read_text()) if report is not None else {}


def test_daily_layout_days_limit(spark: Any, tmp_path: Path, kit: Any, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "data" / "clicks"
    made = make_instances(base, "/${YEAR}/${MONTH}/${DAY}", utc("2014-12-25T00:00Z"), 26, timedelta(days=1))
    sibling = kit.write(tmp_path / "data" / "other" / "2014" / "01" / "01" / "keep")

    code, report = run(spark, "--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}/${{DAY}}",
                       "--limit", "days(10)", "--frequency", "days(1)", "--now", "2015-01-20T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0
    cutoff = utc("2015-01-10T00:00Z")
    assert report["cutoff"] == "2015-01-10T00:00Z"
    assert {Path(item["path"][len("file://"):]) for item in report["evicted"]} == \
        {folder for moment, folder in made.items() if moment < cutoff}
    assert all(folder.exists() == (moment >= cutoff) for moment, folder in made.items())
    assert report["kept"] == 10 and report["failed"] == [] and report["dry_run"] is False
    assert report["evicted"][0] == {"instance": "2014-12-25T00:00Z", "type": "data",
                                    "path": f"file://{base}/2014/12/25"}
    # 2014/12 and then 2014 became empty: removed; the base folder never is
    assert not (base / "2014").exists() and (base / "2015" / "01").is_dir()
    assert kit.empty_dirs(tmp_path / "data") == [] and sibling.exists()
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-2] == "instances=" + ",".join(moment.strftime("%Y%m%d%H%M") for moment in sorted(made)
                                                if moment < cutoff)
    summary = json.loads(lines[-1])
    assert summary["evicted"] == 16 and summary["kept"] == 10 and summary["report"] == str(tmp_path / "report.json")


def test_hourly_layout_several_location_types_and_a_static_one(spark: Any, tmp_path: Path, kit: Any) -> None:
    start = utc("2015-03-01T00:00Z")
    data = make_instances(tmp_path / "data", "/${YEAR}/${MONTH}/${DAY}/${HOUR}", start, 11, timedelta(hours=1))
    meta = make_instances(tmp_path / "meta", "/${YEAR}-${MONTH}-${DAY}-${HOUR}", start, 11, timedelta(hours=1))
    stats = kit.write(tmp_path / "stats" / "2015" / "03" / "01" / "00" / "s")

    code, report = run(spark, "--location", f"data=file://{tmp_path}/data/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}",
                       "--location", f"stats=file://{tmp_path}/stats",
                       "--location", f"meta=file://{tmp_path}/meta/?{{YEAR}}-?{{MONTH}}-?{{DAY}}-?{{HOUR}}",
                       "--location", f"tmp=file://{tmp_path}/tmp/${{YEAR}}/${{MONTH}}",
                       "--frequency", "hours(1)", "--limit", "hours(5)", "--now", "2015-03-01T10:30Z",
                       report=tmp_path / "report.json")

    assert code == 0
    cutoff = utc("2015-03-01T05:30Z")
    for made in (data, meta):
        assert all(folder.exists() == (moment >= cutoff) for moment, folder in made.items())
    assert sorted((item["type"], item["instance"]) for item in report["evicted"]) == sorted(
        (kind, format_instant(moment)) for kind in ("data", "meta") for moment in data if moment < cutoff)
    assert stats.exists()
    assert {"path": f"file://{tmp_path}/stats", "reason": "static path (no date variable): ignored"} in \
        report["skipped"]
    assert report["instances"] == ",".join(f"20150301{hour:02d}00" for hour in range(6))


def test_falcon_repeated_variables_months_limit(spark: Any, tmp_path: Path) -> None:
    layout = "/data/YYYY/feed1/mmHH/dd/MM/${YEAR}-${MONTH}-${DAY}/more/${YEAR}"
    made = make_instances(tmp_path, layout, utc("2015-01-01T00:00Z"), 210, timedelta(days=1))

    code, report = run(spark, "--location", f"data=file://{tmp_path}{layout.replace('$', '?')}",
                       "--frequency", "days(1)", "--limit", "months(5)", "--now", "2015-08-01T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0
    cutoff = utc("2015-08-01T00:00Z") - timedelta(days=155)  # months are 31 days
    assert cutoff == utc("2015-02-27T00:00Z")
    assert all(folder.exists() == (moment >= cutoff) for moment, folder in made.items())
    assert len(report["evicted"]) == 57 and report["kept"] == 153
    # `more/<year>` emptied, then `<date>`: removed; the base folder /data/YYYY/feed1/mmHH/dd/MM stays
    assert sorted(os.listdir(tmp_path / "data/YYYY/feed1/mmHH/dd/MM"))[0] == "2015-02-27"


def test_feed_time_zone(spark: Any, tmp_path: Path) -> None:
    zone = parse_zone("America/Los_Angeles")
    made = make_instances(tmp_path / "d", "/${YEAR}/${MONTH}/${DAY}/${HOUR}", utc("2015-10-31T07:00Z"), 28,
                          timedelta(hours=1), zone)

    code, report = run(spark, "--location", f"data=file://{tmp_path}/d/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}",
                       "--timezone", "America/Los_Angeles", "--frequency", "hours(1)", "--limit", "days(1)",
                       "--now", "2015-11-01T14:00Z",
                       report=tmp_path / "report.json")

    assert code == 0
    cutoff = utc("2015-10-31T14:00Z")
    assert all(folder.exists() == (moment >= cutoff) for moment, folder in made.items())
    assert [folder.name for moment, folder in sorted(made.items()) if moment < cutoff] == [f"{h:02d}" for h in range(7)]
    assert report["instances"] == ",".join(f"20151031{hour:02d}00" for hour in range(7))  # feed-local times
    assert report["evicted"][0]["instance"] == "2015-10-31T07:00Z"


def test_unreadable_folders_survive(spark: Any, tmp_path: Path, kit: Any) -> None:
    base = tmp_path / "data"
    made = make_instances(base, "/${YEAR}/${MONTH}/${DAY}", utc("2015-01-01T00:00Z"), 3, timedelta(days=1))
    junk = [kit.write(base / name / "f") for name in ("bad-va-lue", "2015/bad-va-lue", "2015/01/bad-va-lue",
                                                      "2015/01/01.bak", "2015/13/01", "2015x/01/01", "2015/01/32")]
    # read the way Falcon read paths, day 30 of February is 2 March, but no instance is ever written there
    impossible = [kit.write(base / name / "f") for name in ("2015/02/30", "2015/04/31")]

    code, report = run(spark, "--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}/${{DAY}}",
                       "--frequency", "days(1)", "--limit", "hours(1)", "--now", "2016-01-01T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0
    assert not any(folder.exists() for folder in made.values())
    assert all(path.exists() for path in junk + impossible)
    skipped = {item["path"]: item["reason"] for item in report["skipped"]}
    assert {f"file://{base}/2015/01/bad-va-lue", f"file://{base}/2015/01/01.bak", f"file://{base}/2015/13/01",
            f"file://{base}/2015x/01/01", f"file://{base}/2015/01/32"} <= set(skipped)
    assert f"(instance 2015-03-02T00:00Z is at {base}/2015/03/02)" in skipped[f"file://{base}/2015/02/30"]
    assert f"file://{base}/2015/04/31" in skipped


def test_symlinks_are_never_followed(spark: Any, tmp_path: Path, kit: Any) -> None:
    base = tmp_path / "data"
    outside = tmp_path / "outside"
    kit.write(outside / "keep" / "precious")
    kit.write(outside / "01" / "01" / "precious")  # looks like an instance through the symlinked year below
    made = make_instances(base, "/${YEAR}/${MONTH}/${DAY}", utc("2015-01-01T00:00Z"), 4, timedelta(days=1))
    (base / "2015" / "01" / "09").symlink_to(outside / "keep")  # an expired instance that is a symlink
    (base / "2014").symlink_to(outside)  # a symlinked folder above instances
    os.symlink(outside / "keep", made[utc("2015-01-02T00:00Z")] / "link")  # a symlink inside an instance
    before = kit.snapshot(outside)

    code, report = run(spark, "--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}/${{DAY}}",
                       "--frequency", "days(1)", "--limit", "days(1)", "--now", "2016-01-01T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0
    assert kit.snapshot(outside) == before  # nothing outside the tree changed, through any link
    assert (base / "2015" / "01" / "09").is_symlink() and (base / "2014").is_symlink()
    assert not any(folder.exists() for folder in made.values())  # the real instances (one held a link) went
    reasons = {item["path"]: item["reason"] for item in report["skipped"]}
    assert "symbolic link" in reasons[f"file://{base}/2015/01/09"]
    assert "symbolic link" in reasons[f"file://{base}/2014/01/01"]
    assert f"file://{base}/2014/01/01" not in {item["path"] for item in report["evicted"]}


def test_dry_run_changes_nothing(spark: Any, tmp_path: Path, kit: Any, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "data"
    make_instances(base, "/${YEAR}/${MONTH}/${DAY}", utc("2015-01-01T00:00Z"), 5, timedelta(days=1))
    before = kit.snapshot(tmp_path)

    code, _ = run(spark, "--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}/${{DAY}}", "--dry-run",
                  "--frequency", "days(1)", "--limit", "days(2)", "--now", "2015-01-05T00:00Z")

    assert code == 0
    assert kit.snapshot(tmp_path) == before
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "instances=201501010000,201501020000"
    assert json.loads(lines[1])["dry_run"] is True and json.loads(lines[1])["evicted"] == 2


def test_archive_moves_instances_under_the_archive_root(spark: Any, tmp_path: Path, kit: Any) -> None:
    base = tmp_path / "data"
    made = make_instances(base, "/${YEAR}/${MONTH}/${DAY}", utc("2015-01-01T00:00Z"), 4, timedelta(days=1))
    archive = tmp_path / "archive"
    arguments = ["--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}/${{DAY}}", "--action", "archive",
                 "--archive-root", f"file://{archive}", "--frequency", "days(1)", "--limit", "days(2)",
                 "--now", "2015-01-05T00:00Z"]

    code, report = run(spark, *arguments, report=tmp_path / "report.json")

    assert code == 0
    for moment in (utc("2015-01-01T00:00Z"), utc("2015-01-02T00:00Z")):
        moved = Path(str(archive) + str(made[moment]))
        assert not made[moment].exists()
        assert (moved / "part-00000").read_text() == moment.isoformat()
    assert made[utc("2015-01-03T00:00Z")].exists()
    assert report["evicted"][0]["archived_to"] == f"file://{archive}{made[utc('2015-01-01T00:00Z')]}"
    # an instance made again and expired again is archived beside the first copy, not into it
    kit.write(made[utc("2015-01-01T00:00Z")] / "part-00000", "again")
    code, report = run(spark, *arguments, report=tmp_path / "report.json")
    assert code == 0
    assert (Path(str(archive) + str(made[utc("2015-01-01T00:00Z")]) + ".1") / "part-00000").read_text() == "again"


def test_empty_folders_left_by_a_crash_are_swept(spark: Any, tmp_path: Path, kit: Any) -> None:
    base = tmp_path / "data"
    make_instances(base, "/${YEAR}/${MONTH}/${DAY}", utc("2015-01-10T00:00Z"), 3, timedelta(days=1))
    (base / "2014" / "06").mkdir(parents=True)  # empty, wholly before the cut-off
    (base / "2015" / "01" / "05").mkdir(parents=True)  # an empty instance folder is still an instance
    (base / "2015" / "02").mkdir(parents=True)  # empty, but instances of February may still come

    code, report = run(spark, "--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}/${{DAY}}",
                       "--frequency", "days(1)", "--limit", "days(1)", "--now", "2015-01-12T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0
    assert not (base / "2014").exists() and not (base / "2015" / "01" / "05").exists()
    assert (base / "2015" / "02").is_dir() and (base / "2015" / "01" / "11").is_dir()
    assert report["removed_folders"] == 2  # 2014/06, then 2014
    assert [item["instance"] for item in report["evicted"]] == ["2015-01-05T00:00Z", "2015-01-10T00:00Z"]


def test_folders_of_expired_instances_go_at_once_but_never_with_strangers(spark: Any, tmp_path: Path,
                                                                         kit: Any) -> None:
    base = tmp_path / "data"
    made = make_instances(base, "/${YEAR}/${MONTH}/${DAY}", utc("2014-01-01T00:00Z"), 500, timedelta(days=1))
    stray = kit.write(base / "2014" / "06" / "README", "not an instance")
    (base / "2014" / "07" / "31" / "part-00000").unlink()  # an empty expired instance is still one

    code, report = run(spark, "--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}/${{DAY}}",
                       "--frequency", "days(1)", "--limit", "days(10)", "--now", "2015-05-16T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0
    cutoff = utc("2015-05-06T00:00Z")
    assert all(folder.exists() == (moment >= cutoff) for moment, folder in made.items())
    assert stray.exists() and sorted(os.listdir(base / "2014")) == ["06"]
    assert sorted(os.listdir(base / "2014" / "06")) == ["README"]
    assert len(report["evicted"]) == sum(1 for moment in made if moment < cutoff)
    assert [item["instance"] for item in report["evicted"]] == sorted(
        format_instant(moment) for moment in made if moment < cutoff)
    # 11 months of 2014, 2015/01-04 as folders; 2015 itself and 2014 stay (the README, May's instances)
    assert report["removed_folders"] == 15 and kit.empty_dirs(base) == []


def test_table_partitions_older_than_the_cutoff_are_dropped(spark: Any, tmp_path: Path, kit: Any) -> None:
    location = tmp_path / "warehouse" / "clicks"
    spark.sql("CREATE DATABASE IF NOT EXISTS retention_db")
    spark.sql(f"CREATE TABLE retention_db.clicks (v STRING, ds STRING, region STRING) USING parquet "
              f"PARTITIONED BY (ds, region) LOCATION 'file://{location}'")
    for day in range(1, 6):
        for region in ("us", "eu"):
            folder = location / f"ds=2015010{day}" / f"region={region}"
            kit.write(folder / "part-00000.parquet", "p")
            spark.sql(f"ALTER TABLE retention_db.clicks ADD PARTITION (ds='2015010{day}', region='{region}') "
                      f"LOCATION 'file://{folder}'")

    code, report = run(spark, "--table", "catalog:retention_db:clicks#ds=${YEAR}${MONTH}${DAY};region=us",
                       "--frequency", "days(1)", "--limit", "days(2)", "--now", "2015-01-05T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0
    partitions = sorted(row[0] for row in spark.sql("SHOW PARTITIONS retention_db.clicks").collect())
    assert partitions == sorted([f"ds=2015010{day}/region=eu" for day in range(1, 6)]
                                + [f"ds=2015010{day}/region=us" for day in range(3, 6)])
    assert [item["partition"] for item in report["evicted"]] == ["ds=20150101/region=us", "ds=20150102/region=us"]
    assert report["evicted"][0]["instance"] == "2015-01-01T00:00Z" and report["evicted"][0]["type"] == "table"
    assert not (location / "ds=20150101" / "region=us").exists()  # external table: data deleted as Falcon did
    assert (location / "ds=20150101" / "region=eu").exists()
    assert report["kept"] == 3 and report["instances"] == "201501010000,201501020000"


LAYOUTS = {
    "/${YEAR}/${MONTH}/${DAY}": timedelta(days=1),
    "/${YEAR}/${MONTH}/${DAY}/${HOUR}": timedelta(hours=1),
    "/${YEAR}-${MONTH}-${DAY}-${HOUR}": timedelta(hours=1),
    "/in/${YEAR}${MONTH}/x/${DAY}": timedelta(days=1),
}
FREQUENCIES = {layout: "days(1)" if step == timedelta(days=1) else "hours(1)" for layout, step in LAYOUTS.items()}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=st.sampled_from(sorted(LAYOUTS)), offsets=st.sets(st.integers(0, 24 * 70), max_size=25),
       limit_hours=st.integers(1, 24 * 40), now_offset=st.integers(0, 24 * 80),
       noise=st.sets(st.sampled_from(["bad-va-lue", "2015x", "2015/13", "in/201501/x/1"]), max_size=3))
def test_property_exactly_the_expired_instances_go(spark: Any, tmp_path: Path, kit: Any, layout: str,
                                                   offsets: set[int], limit_hours: int, now_offset: int,
                                                   noise: set[str]) -> None:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    base = root / "feed"
    start = utc("2015-01-01T00:00Z")
    step = LAYOUTS[layout]
    template = Template.parse(str(base) + layout)
    expected_kept, expected_gone = set(), set()
    now = start + timedelta(hours=now_offset)
    cutoff = now - timedelta(hours=limit_hours)
    for offset in offsets:
        moment = start + timedelta(hours=offset)
        moment = moment.replace(hour=0) if step == timedelta(days=1) else moment  # the instance a daily path names
        folder = Path(template.resolve(moment, UTC))
        kit.write(folder / "part-00000", moment.isoformat())
        (expected_gone if moment < cutoff else expected_kept).add(str((folder / "part-00000").relative_to(root)))
    for name in noise:
        kit.write(base / name / "keep")
        expected_kept.add(f"feed/{name}/keep")
    kit.write(root / "sibling" / "2015" / "01" / "01" / "keep")
    expected_kept.add("sibling/2015/01/01/keep")

    code = retention.main(["--feed", "f", "--cluster", "c", "--location", f"data=file://{base}{layout}",
                           "--frequency", FREQUENCIES[layout], "--limit", f"hours({limit_hours})",
                           "--now", format_instant(now)], spark=spark)

    assert code == 0
    files = {rel for rel, value in kit.snapshot(root).items() if value != "dir"}
    assert files == expected_kept
    base_folder = str(Path(template.base_folder).relative_to(root))  # never removed, even when emptied
    assert [folder for folder in kit.empty_dirs(root) if folder != base_folder] == []
    shutil.rmtree(root)


def test_killed_mid_way_then_rerun_finishes(spark: Any, tmp_path: Path, kit: Any) -> None:
    """spark-submit, SIGKILL while it deletes, rerun: exactly the expired instances are gone, nothing else."""
    base = tmp_path / "data"
    made = make_instances(base, "/${YEAR}/${MONTH}/${DAY}/${HOUR}", utc("2015-01-01T00:00Z"), 24 * 60,
                          timedelta(hours=1))
    kit.write(tmp_path / "data-other" / "keep")
    now = utc("2015-03-02T00:00Z")
    cutoff = now - timedelta(days=30)
    expired = sorted(moment for moment in made if moment < cutoff)
    first, last = made[expired[0]], made[expired[-1]]
    arguments = ["--feed", "clicks", "--cluster", "primary", "--frequency", "hours(1)", "--limit", "days(30)", "--now",
                 format_instant(now), "--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"]

    killed, output = kit.run_killed_when(kit.submit_command("retention", *arguments), lambda: not first.exists(),
                                         tmp_path)

    assert killed, output[-3000:]
    assert not first.exists() and last.exists(), "the kill should land while instances are being deleted"
    code = retention.main(arguments, spark=spark)
    assert code == 0
    assert all(folder.exists() == (moment >= cutoff) for moment, folder in made.items())
    assert all((folder / "part-00000").read_text() == moment.isoformat()
               for moment, folder in made.items() if moment >= cutoff)
    assert (tmp_path / "data-other" / "keep").exists() and kit.empty_dirs(base) == []


# -- folders and partitions that hold several instances: evicted only when the last one is past the cut-off -------

def spans_left(base: Path, layout: str) -> list[str]:
    """The instance folders of ``layout`` still under ``base`` (relative, sorted)."""
    depth = len(layout.strip("/").split("/"))
    return sorted(str(path.relative_to(base)) for path in base.glob("/".join(["*"] * depth)))


COARSE_CASES = [
    # (layout, frequency, first instance, count, step, zone, now, limit, extra arguments, folders kept)
    pytest.param("/${YEAR}/${MONTH}", "hours(1)", "2026-01-30T00:00Z", 30 * 24 + 6, timedelta(hours=1), "UTC",
                 "2026-03-01T05:00Z", "hours(2)", [], ["2026/03"], id="hourly-under-month-current-month-stays"),
    pytest.param("/${YEAR}/${MONTH}", "hours(1)", "2026-01-30T00:00Z", 30 * 24 + 6, timedelta(hours=1), "UTC",
                 "2026-03-01T05:00Z", "days(2)", [], ["2026/02", "2026/03"],
                 id="hourly-under-month-last-span-straddles-the-cutoff"),
    pytest.param("/${YEAR}/${MONTH}", "days(1)", "2026-01-01T00:00Z", 69, timedelta(days=1), "UTC",
                 "2026-03-10T12:00Z", "days(5)", [], ["2026/03"], id="daily-under-month"),
    pytest.param("/${YEAR}/${MONTH}/${DAY}/${HOUR}", "minutes(15)", "2026-03-01T00:00Z", 32, timedelta(minutes=15),
                 "UTC", "2026-03-01T08:00Z", "minutes(200)", [],
                 ["2026/03/01/04", "2026/03/01/05", "2026/03/01/06", "2026/03/01/07"], id="minutes-under-hour"),
    pytest.param("/${YEAR}", "months(1)", "2024-01-01T00:00Z", 27, timedelta(days=31), "UTC",
                 "2026-03-15T00:00Z", "days(110)", [], ["2025", "2026"], id="monthly-under-year"),
    pytest.param("/${YEAR}/${MONTH}/${DAY}", "hours(1)", "2026-02-27T18:30Z", 50, timedelta(hours=1),
                 "Asia/Kolkata", "2026-03-01T20:00Z", "hours(3)", [], ["2026/03/01", "2026/03/02"],
                 id="hourly-under-day-in-the-feed-zone"),
    pytest.param("/${YEAR}/${MONTH}/${DAY}", "hours(1)", "2026-02-28T00:00Z", 48, timedelta(hours=1), "UTC",
                 "2026-03-02T00:00Z", "minutes(60)", [], ["2026/03/01"], id="cutoff-exactly-at-the-last-instance"),
    pytest.param("/${YEAR}/${MONTH}/${DAY}", "hours(1)", "2026-02-28T00:00Z", 48, timedelta(hours=1), "UTC",
                 "2026-03-02T00:00Z", "minutes(59)", [], [], id="cutoff-a-minute-after-the-last-instance"),
    pytest.param("/${YEAR}/${MONTH}/${DAY}/${HOUR}", "hours(1)", "2026-03-01T00:30Z", 10, timedelta(hours=1), "UTC",
                 "2026-03-01T10:00Z", "minutes(45)", ["--start", "2026-01-01T00:30Z"], ["2026/03/01/09"],
                 id="hourly-at-half-past-each-folder-holds-its-half-hour"),
    pytest.param("/${YEAR}/${MONTH}/${DAY}", "hours(1)", "2026-02-28T00:30Z", 48, timedelta(hours=1), "UTC",
                 "2026-03-02T00:10Z", "minutes(55)", ["--start", "2026-01-01T00:30Z"], ["2026/03/01"],
                 id="hourly-at-half-past-under-day-anchored-by-start"),
]


@pytest.mark.parametrize(("layout", "frequency", "first", "count", "step", "zone_name", "now", "limit", "extra",
                          "kept"), COARSE_CASES)
def test_a_folder_of_several_instances_stays_until_its_last_instance_expires(
        spark: Any, tmp_path: Path, kit: Any, layout: str, frequency: str, first: str, count: int, step: timedelta,
        zone_name: str, now: str, limit: str, extra: list[str], kept: list[str]) -> None:
    zone = parse_zone(zone_name)
    base = tmp_path / "feed"
    if frequency.startswith("months"):  # calendar months, not 31-day steps
        moments = [datetime(2024 + (month // 12), month % 12 + 1, 1, tzinfo=UTC) for month in range(count)]
        for moment in moments:
            kit.write(Path(Template.parse(str(base) + layout).resolve(moment, zone)) / f"{moment:%Y%m}")
    else:
        make_instances(base, layout, utc(first), count, step, zone)

    code, report = run(spark, "--location", f"data=file://{base}{layout}", "--frequency", frequency,
                       "--timezone", zone_name, "--limit", limit, "--now", now, *extra,
                       report=tmp_path / "report.json")

    assert code == 0, report
    assert spans_left(base, layout) == kept
    assert report["kept"] == len(kept) and report["failed"] == []
    assert all(Path(item["path"][len("file://"):]).relative_to(base).as_posix() not in kept
               for item in report["evicted"])


def test_the_current_month_of_an_hourly_feed_survives_a_compiled_retention_run(spark: Any, tmp_path: Path,
                                                                              kit: Any) -> None:
    """The arguments the compiler gives the job (frequency and validity start of the feed on the cluster)."""
    base = tmp_path / "clicks"
    made = make_instances(base, "/${YEAR}/${MONTH}", utc("2026-02-20T00:00Z"), 14 * 24, timedelta(hours=1))
    this_hour = max(made)

    code, report = run(spark, "--location", f"data=file://{base}/${{YEAR}}/${{MONTH}}", "--frequency", "hours(1)",
                       "--start", "2026-01-01T00:00Z", "--timezone", "UTC", "--limit", "hours(6)",
                       "--now", format_instant(this_hour + timedelta(minutes=30)), report=tmp_path / "report.json")

    assert code == 0
    assert (base / "2026" / "03" / "part-00000").read_text() == this_hour.isoformat()  # this hour's data is there
    assert not (base / "2026" / "02").exists()
    assert [item["instance"] for item in report["evicted"]] == ["2026-02-01T00:00Z"]


def external_table(spark: Any, name: str, location: Path, keys: str = "ds STRING") -> None:
    columns = ", ".join(f"{key.split()[0]}" for key in keys.split(","))
    spark.sql(f"DROP TABLE IF EXISTS retention_db.{name}")
    spark.sql("CREATE DATABASE IF NOT EXISTS retention_db")
    spark.sql(f"CREATE TABLE retention_db.{name} (v STRING, {keys}) USING parquet PARTITIONED BY ({columns}) "
              f"LOCATION 'file://{location}'")


def add_partition(spark: Any, kit: Any, name: str, spec: dict[str, str], folder: Path) -> None:
    kit.write(folder / "part-00000.parquet", "p")
    values = ", ".join(f"{key}='{value}'" for key, value in spec.items())
    spark.sql(f"ALTER TABLE retention_db.{name} ADD PARTITION ({values}) LOCATION 'file://{folder}'")


def partitions_of(spark: Any, name: str) -> list[str]:
    return sorted(row[0] for row in spark.sql(f"SHOW PARTITIONS retention_db.{name}").collect())


def test_only_partitions_that_are_instances_of_the_feed_are_dropped(spark: Any, tmp_path: Path, kit: Any) -> None:
    location = tmp_path / "warehouse" / "strict"
    external_table(spark, "strict", location, "ds STRING, region STRING")
    instances = [f"202602{day:02d}" for day in range(25, 29)] + [f"202603{day:02d}" for day in range(1, 6)]
    strangers = ["2019_restore", "1", "2026-12-31", "202601011", "20260230", "2026013", "2026_0101"]
    for value in instances + strangers:
        add_partition(spark, kit, "strict", {"ds": value, "region": "us"}, location / f"ds={value}" / "region=us")
    add_partition(spark, kit, "strict", {"ds": "20260101", "region": "eu"}, location / "ds=20260101" / "region=eu")

    code, report = run(spark, "--table", "catalog:retention_db:strict#ds=${YEAR}${MONTH}${DAY};region=us",
                       "--frequency", "days(1)", "--limit", "days(3)", "--now", "2026-03-05T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0, report
    left = partitions_of(spark, "strict")
    assert [item["partition"] for item in report["evicted"]] == [f"ds={value}/region=us" for value in instances[:5]]
    for value in instances[5:]:
        assert f"ds={value}/region=us" in left
    for value in strangers:  # not instances of the feed: left alone, each reported
        assert f"ds={value}/region=us" in left
        assert (location / f"ds={value}" / "region=us" / "part-00000.parquet").exists()
    skipped = {item["partition"]: item["reason"] for item in report["skipped"]}
    assert len([name for name in skipped if name.endswith("region=us")]) == len(strangers)
    assert "another slice" in skipped["ds=20260101/region=eu"]
    assert "ds=20260101/region=eu" in left
    assert report["kept"] == 4


def test_partition_files_outside_the_table_folder_are_never_deleted(spark: Any, tmp_path: Path, kit: Any) -> None:
    location = tmp_path / "warehouse" / "placed"
    elsewhere = tmp_path / "elsewhere"
    external_table(spark, "placed", location)
    add_partition(spark, kit, "placed", {"ds": "20260101"}, location / "ds=20260101")
    add_partition(spark, kit, "placed", {"ds": "20260102"}, elsewhere / "another-feed" / "2026-01-02")
    add_partition(spark, kit, "placed", {"ds": "20260103"}, location / "sub" / ".." / ".." / "neighbour" / "x")
    kit.write(elsewhere / "linked" / "ds=20260104" / "part-00000.parquet", "p")
    (location / "link").symlink_to(elsewhere / "linked")  # a folder of the table that is a symlink out of it
    add_partition(spark, kit, "placed", {"ds": "20260104"}, location / "link" / "ds=20260104")
    before = kit.snapshot(elsewhere)
    neighbour = kit.snapshot(tmp_path / "warehouse" / "neighbour")

    code, report = run(spark, "--table", "catalog:retention_db:placed#ds=${YEAR}${MONTH}${DAY}",
                       "--frequency", "days(1)", "--limit", "days(1)", "--now", "2026-02-01T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0, report
    assert not (location / "ds=20260101").exists()  # inside the table's folder: deleted with its partition
    assert kit.snapshot(elsewhere) == before and kit.snapshot(tmp_path / "warehouse" / "neighbour") == neighbour
    assert partitions_of(spark, "placed") == []  # an external table's partitions are dropped, as Falcon did
    reasons = {item["path"]: item["reason"] for item in report["skipped"]}
    assert "not inside the table's folder" in reasons[f"file:{elsewhere}/another-feed/2026-01-02"]
    assert "symbolic link" in reasons[f"file:{location}/link/ds=20260104"]
    assert len(report["evicted"]) == 4


def test_a_managed_tables_partition_placed_elsewhere_is_left_alone(spark: Any, tmp_path: Path, kit: Any) -> None:
    elsewhere = tmp_path / "elsewhere" / "ds=20260101"
    spark.sql("CREATE DATABASE IF NOT EXISTS retention_db")
    spark.sql("DROP TABLE IF EXISTS retention_db.managed")
    spark.sql("CREATE TABLE retention_db.managed (v STRING, ds STRING) USING parquet PARTITIONED BY (ds)")
    add_partition(spark, kit, "managed", {"ds": "20260101"}, elsewhere)
    spark.sql("INSERT INTO retention_db.managed PARTITION (ds='20260102') VALUES ('x')")

    code, report = run(spark, "--table", "catalog:retention_db:managed#ds=${YEAR}${MONTH}${DAY}",
                       "--frequency", "days(1)", "--limit", "days(1)", "--now", "2026-02-01T00:00Z",
                       report=tmp_path / "report.json")

    assert code == 0, report
    # dropping it would make the catalog delete its folder wherever it is: the partition stays, reported
    assert (elsewhere / "part-00000.parquet").exists()
    assert partitions_of(spark, "managed") == ["ds=20260101"]
    assert [item["partition"] for item in report["evicted"]] == ["ds=20260102"]
    assert any(item.get("partition") == "ds=20260101" and "not inside the table's folder" in item["reason"]
               for item in report["skipped"])
    spark.sql("DROP TABLE retention_db.managed")


def test_archiving_moves_only_partition_files_inside_the_table_folder(spark: Any, tmp_path: Path, kit: Any) -> None:
    location = tmp_path / "warehouse" / "archived"
    elsewhere = tmp_path / "elsewhere" / "2026-01-02"
    archive = tmp_path / "archive"
    external_table(spark, "archived", location)
    add_partition(spark, kit, "archived", {"ds": "20260101"}, location / "ds=20260101")
    add_partition(spark, kit, "archived", {"ds": "20260102"}, elsewhere)

    code, report = run(spark, "--table", "catalog:retention_db:archived#ds=${YEAR}${MONTH}${DAY}",
                       "--frequency", "days(1)", "--limit", "days(1)", "--now", "2026-02-01T00:00Z",
                       "--action", "archive", "--archive-root", f"file://{archive}", report=tmp_path / "report.json")

    assert code == 0, report
    assert (Path(str(archive) + str(location)) / "ds=20260101" / "part-00000.parquet").exists()
    assert not (location / "ds=20260101").exists()
    assert (elsewhere / "part-00000.parquet").exists()  # not the table's to move
    assert partitions_of(spark, "archived") == []
    assert [item.get("archived_to") is not None for item in report["evicted"]] == [True, False]
    assert any("its data not archived" in item["reason"] for item in report["skipped"])
