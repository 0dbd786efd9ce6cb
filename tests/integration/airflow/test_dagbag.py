"""Airflow's own DagBag over dags/: no import errors, the DAG ids the issue names, invalid entities isolated."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.xdist_group("airflow")


def dagbag(monkeypatch: pytest.MonkeyPatch, folder: Path, *, strict: bool = False):  # type: ignore[no-untyped-def]
    from airflow.dag_processing.dagbag import DagBag

    monkeypatch.setenv("FALCON_ENTITIES_DIR", str(folder))
    monkeypatch.setenv("AIRFLOW__FALCON__STRICT", str(strict))
    return DagBag(dag_folder=str(REPOSITORY / "dags"))


def test_example_entities(monkeypatch: pytest.MonkeyPatch) -> None:
    bag = dagbag(monkeypatch, REPOSITORY / "entities")
    assert bag.import_errors == {}
    assert sorted(bag.dag_ids) == [
        "example.click-counts-consumer",  # a user's DAG on a feed's asset, dags/example_feed_consumer.py
        "falcon.feed.click-counts.replication.primary.backup",
        "falcon.feed.click-counts.retention.backup",
        "falcon.feed.click-counts.retention.primary",
        "falcon.feed.click-reports.retention.primary",
        "falcon.feed.orders.import.primary",
        "falcon.feed.orders.retention.primary",
        "falcon.feed.raw-clicks.retention.primary",
        "falcon.process.count-clicks.primary",
        "falcon.process.count-clicks.sla.primary",  # its shouldStartIn / shouldEndIn monitor
        "falcon.process.generate-clicks.primary",
        "falcon.process.report-clicks.primary",
    ]


def test_base_valid_scenario(monkeypatch: pytest.MonkeyPatch, shared: Path) -> None:
    bag = dagbag(monkeypatch, shared / "conformance" / "scenarios" / "base-valid")
    assert bag.import_errors == {}
    assert "falcon.process.pyspark-process.local" in bag.dag_ids
    assert "falcon.feed.in.retention.local" in bag.dag_ids
    assert any(dag_id.startswith("falcon.feed.repl-feed.replication.") for dag_id in bag.dag_ids)
    assert "falcon.invalid-entities" not in bag.dag_ids


def test_one_invalid_entity_hides_nothing_else(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = tmp_path / "entities"
    shutil.copytree(REPOSITORY / "entities", folder)
    broken = folder / "feeds" / "raw-clicks.xml"
    broken.write_text(broken.read_text().replace('limit="days(2)"', 'limit="hours(1)"'))  # F9: shorter than cut-off
    bag = dagbag(monkeypatch, folder)
    # the invalid entity is an import error of the second DAG file, naming the entity file and the rule
    (where, error), = bag.import_errors.items()
    assert where.endswith("falcon_invalid_entities.py")
    assert "raw-clicks.xml:" in error and "[F9]" in error and "raw-clicks" in error
    assert "falcon.process.generate-clicks.primary" not in bag.dag_ids  # writes the broken feed
    assert "falcon.feed.click-counts.replication.primary.backup" in bag.dag_ids
    report = bag.dags["falcon.invalid-entities"]
    assert "raw-clicks.xml" in report.doc_md and "[F9]" in report.doc_md

    strict = dagbag(monkeypatch, folder, strict=True)
    (error,) = strict.import_errors.values()
    assert "[F9]" in error and "raw-clicks.xml" in error

    monkeypatch.setenv("AIRFLOW__FALCON__INVALID_ENTITIES_AS_IMPORT_ERRORS", "False")
    assert dagbag(monkeypatch, folder).import_errors == {}


@pytest.mark.parametrize("tracebacks", ["True", "False"])
@pytest.mark.parametrize(("strict", "relative", "change", "rule"), [
    (False, "feeds/raw-clicks.xml", ('limit="days(2)"', 'limit="hours(1)"'), "[F9]"),  # a rule
    (False, "feeds/raw-clicks.xml", ("<frequency>", "<frequenzy/><frequency>"), "[XSD]"),  # the schema
    (True, "processes/count-clicks.xml", ("<parallel>", "<parallel>x</parallel><parallel>"), "[XSD]"),
])
def test_the_import_error_opens_with_the_invalid_entities(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                          tracebacks: str, strict: bool, relative: str,
                                                          change: tuple[str, str], rule: str) -> None:
    folder = tmp_path / "entities"
    shutil.copytree(REPOSITORY / "entities", folder)
    broken = folder / relative
    assert change[0] in broken.read_text()
    broken.write_text(broken.read_text().replace(*change, 1))
    monkeypatch.setenv("AIRFLOW__CORE__DAGBAG_IMPORT_ERROR_TRACEBACKS", tracebacks)
    (error,) = dagbag(monkeypatch, folder, strict=strict).import_errors.values()
    first, second = error.splitlines()[:2]
    assert "invalid Falcon entit" in first and not first.startswith("Traceback"), error
    assert second.startswith(str(broken)) and rule in second, error
    if tracebacks == "True":  # where it failed comes after the list
        assert error.index("Traceback") > error.index(rule), error
    else:
        assert "Traceback" not in error


def test_a_file_colliding_with_running_feeds_takes_none_of_their_dags_down(monkeypatch: pytest.MonkeyPatch,
                                                                             tmp_path: Path) -> None:
    """A running `make run` gets a new feed in the folder of raw-clicks: the DAG list keeps every DAG it had, and
    the import error names the newcomer, the rule and the running feed."""
    folder = tmp_path / "entities"
    shutil.copytree(REPOSITORY / "entities", folder)
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "store"))
    running = dagbag(monkeypatch, folder)
    assert running.import_errors == {}
    before = set(running.dag_ids)

    incumbent = folder / "feeds" / "raw-clicks.xml"
    newcomer = folder / "feeds" / "clicks-copy.xml"
    newcomer.write_text(incumbent.read_text().replace('name="raw-clicks"', 'name="clicks-copy"')
                        .replace('limit="days(2)"', 'limit="days(5)"'))
    bag = dagbag(monkeypatch, folder)
    assert set(bag.dag_ids) == before | {"falcon.invalid-entities"}
    (where, error), = bag.import_errors.items()
    assert where.endswith("falcon_invalid_entities.py")
    assert "clicks-copy.xml:" in error and "[FA009]" in error
    assert f"feed 'raw-clicks' ({incumbent}) is running already" in error
    assert "raw-clicks.xml:" not in error
