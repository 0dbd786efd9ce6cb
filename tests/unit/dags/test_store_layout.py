"""The store laid out as files (one folder per revision, written whole) and compiled with the entities folder as one
workspace: references across both, a name in both an error naming both, the store's schedule states and -doAs
users applied; the dags folder's own file builds nothing once the store is in the database."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.builders import cluster, feed, process

from falcon_airflow.compiler.store_state import recorded_store_state
from falcon_airflow.dags.loader import load_dags
from falcon_airflow.dags.store_layout import (
    DAG_FILE,
    LayoutError,
    lay_out,
    read_layout,
    store_display,
)
from falcon_airflow.dags.store_loader import load_store_dags, load_store_specs
from falcon_airflow.store.database import Snapshot, StoredDefinition

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)
EVERY_HOUR = (("i", "in", "now(0,0)", "now(0,0)"),)
MIRROR = """jobName=mirror
jobClusterName=c1
jobValidityStart=2026-01-01T00:00Z
jobValidityEnd=2099-01-01T00:00Z
jobFrequency=days(1)
sourceCluster=c1
targetCluster=c1
sourceDir=/incoming/a
targetDir=/backup/mirror/a
"""


def stored(kind: str, name: str, content: str, revision: int = 1, variant: str | None = None) -> StoredDefinition:
    return StoredDefinition(kind=kind, name=name, content=content.encode(), revision=revision, submitted_by="ann",
                            submitted_at=MOMENT, variant=variant)


def snapshot(revision: int, *definitions: StoredDefinition, states: dict[tuple[str, str], str] | None = None,
             users: dict[tuple[str, str], str] | None = None) -> Snapshot:
    return Snapshot(revision, definitions, states or {}, users or {})


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An entities folder holding the cluster and the input feed; the cache and state folders in tmp_path."""
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FALCON_ENTITIES_DIR", str(tmp_path / "entities"))
    entities = tmp_path / "entities"
    (entities / "clusters").mkdir(parents=True)
    (entities / "feeds").mkdir()
    (entities / "clusters" / "c1.xml").write_text(cluster("c1"))
    (entities / "feeds" / "in.xml").write_text(feed("in"))
    return entities


def test_a_revision_is_laid_out_as_the_loader_reads_files(tmp_path: Path) -> None:
    done = lay_out(snapshot(7, stored("feed", "out", feed("out"), 5), stored("process", "p", "<process/>", 7),
                            stored("extension", "mirror", MIRROR, 6, variant="hdfs-mirroring"),
                            states={("process", "p"): "RUNNING"}, users={("process", "p"): "etl"}),
                   tmp_path / "versions")
    assert done == tmp_path / "versions" / "7"
    assert (done / "entities" / "feeds" / "out.xml").read_text() == feed("out")
    assert (done / "entities" / "processes" / "p.xml").read_bytes() == b"<process/>"
    assert (done / "entities" / "extensions" / "hdfs-mirroring" / "mirror.properties").read_text() == MIRROR
    assert "load_store_dags(__file__)" in (done / DAG_FILE).read_text()
    state = recorded_store_state(done / "entities", done / "state")
    assert state.schedule_states == {("process", "p"): "RUNNING"} and state.proxy_users == {("process", "p"): "etl"}
    layout = read_layout(done)
    assert layout.revision == 7
    assert [(entry.display, entry.file) for entry in layout.entries] == [
        ("store:feed/out (revision 5)", "entities/feeds/out.xml"),
        ("store:process/p (revision 7)", "entities/processes/p.xml"),
        ("store:extension/mirror (revision 6)", "entities/extensions/hdfs-mirroring/mirror.properties")]
    # nothing but the version folder is left behind
    assert [path.name for path in (tmp_path / "versions").iterdir()] == ["7"]


def test_a_layout_that_exists_is_kept_and_a_name_is_never_a_path(tmp_path: Path) -> None:
    versions = tmp_path / "versions"
    lay_out(snapshot(1, stored("feed", "../../etc/passwd", "<feed/>"), stored("feed", ".hidden", "<x/>")), versions)
    files = sorted(path.name for path in (versions / "1" / "entities" / "feeds").iterdir())
    assert len(files) == 2 and all(name.startswith("_") and name.endswith(".xml") for name in files)
    assert not (tmp_path / "etc").exists()
    # a second lay-out of the same revision (another process got there first) changes nothing
    lay_out(snapshot(1, stored("feed", "other", "<feed/>")), versions)
    assert not (versions / "1" / "entities" / "feeds" / "other.xml").exists()


def test_a_manifest_naming_a_file_outside_the_layout_is_refused(tmp_path: Path) -> None:
    (tmp_path / "store.json").write_text(json.dumps(
        {"revision": 1, "definitions": [{"kind": "feed", "name": "f", "revision": 1, "file": "../f.xml"}]}))
    with pytest.raises(LayoutError, match="outside"):
        read_layout(tmp_path)
    with pytest.raises(LayoutError, match="not a layout"):
        read_layout(tmp_path / "nothing")


def test_the_store_and_the_folder_are_one_workspace(folder: Path, tmp_path: Path) -> None:
    """A process in the store reads a feed of the folder; the store's schedule state and -doAs user apply."""
    done = lay_out(snapshot(3, stored("feed", "out", feed("out"), 2),
                            stored("process", "p", process("p", inputs=EVERY_HOUR,
                                                           outputs=(("o", "out", "now(0,0)"),)), 3),
                            states={("process", "p"): "RUNNING"}, users={("process", "p"): "etl"}),
                   tmp_path / "versions")
    specs, issues = load_store_specs(read_layout(done), folder, catchup_default=False)
    assert [issue for issue in issues if issue["level"] == "error"] == []
    by_id = {spec.dag_id: spec for spec in specs}
    assert {"falcon.process.p.c1", "falcon.feed.in.retention.c1", "falcon.feed.out.retention.c1"} <= set(by_id)
    made = by_id["falcon.process.p.c1"]
    assert made.source.file == store_display("process", "p", 3) == "store:process/p (revision 3)"
    assert made.paused_upon_creation is False and made.run_as == "etl"
    assert by_id["falcon.feed.in.retention.c1"].source.file == str(folder / "feeds" / "in.xml")
    # the same content again: the cached compilation
    assert load_store_specs(read_layout(done), folder, catchup_default=False)[0] == specs


def test_a_name_in_the_folder_and_in_the_store_is_an_error_naming_both(folder: Path, tmp_path: Path) -> None:
    done = lay_out(snapshot(4, stored("feed", "in", feed("in"), 4)), tmp_path / "versions")
    specs, issues = load_store_specs(read_layout(done), folder, catchup_default=False)
    twice = [issue for issue in issues if issue["rule"] == "FA001"]
    assert len(twice) == 1
    assert twice[0]["file"] == "store:feed/in (revision 4)"
    assert str(folder / "feeds" / "in.xml") in twice[0]["message"]
    assert not any(spec.source.name == "in" for spec in specs)  # neither is scheduled until one goes


def test_an_extension_job_in_the_store_compiles_with_the_folder_s_clusters(folder: Path, tmp_path: Path) -> None:
    done = lay_out(snapshot(2, stored("extension", "mirror", MIRROR, 2, variant="hdfs-mirroring")),
                   tmp_path / "versions")
    specs, issues = load_store_specs(read_layout(done), folder, catchup_default=False)
    assert [issue for issue in issues if issue["level"] == "error"] == []
    assert "falcon.extension.mirror" in {spec.dag_id for spec in specs}
    # the same job in the folder too: EXT1 names both
    (folder / "extensions" / "hdfs-mirroring").mkdir(parents=True)
    (folder / "extensions" / "hdfs-mirroring" / "mirror.properties").write_text(MIRROR)
    _, issues = load_store_specs(read_layout(done), folder, catchup_default=False)
    assert [(issue["file"], issue["message"]) for issue in issues if issue["rule"] == "EXT1"] == [
        ("store:extension/mirror (revision 2)",
         f"job mirror is also defined in {folder / 'extensions' / 'hdfs-mirroring' / 'mirror.properties'}")]


def test_the_store_s_dag_file_builds_the_dags_and_the_dags_folder_s_builds_none(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    done = lay_out(snapshot(3, stored("feed", "out", feed("out"), 2),
                            stored("process", "p", process("p", inputs=EVERY_HOUR,
                                                           outputs=(("o", "out", "now(0,0)"),)), 3)),
                   tmp_path / "versions")
    dags = load_store_dags(str(done / DAG_FILE))
    assert {"falcon.process.p.c1", "falcon.feed.in.retention.c1"} <= set(dags)
    assert load_dags(folder=folder)  # [falcon] store = folder: the dags folder's file builds them
    monkeypatch.setenv("AIRFLOW__FALCON__STORE", "database")
    assert load_dags(folder=folder) == {}


def test_without_an_entities_folder_the_store_compiles_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FALCON_ENTITIES_DIR", str(tmp_path / "missing"))
    done = lay_out(snapshot(1, stored("cluster", "c1", cluster("c1")), stored("feed", "in", feed("in"))),
                   tmp_path / "versions")
    assert "falcon.feed.in.retention.c1" in load_store_dags(str(done / DAG_FILE))


def test_invalid_entities_of_the_store_and_the_folder_are_the_layout_s_import_error(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.dags.loader import InvalidEntitiesError
    from falcon_airflow.dags.store_layout import INVALID_FILE
    from falcon_airflow.dags.store_loader import report_store_invalid_entities

    done = lay_out(snapshot(1, stored("feed", "out", feed("out"))), tmp_path / "versions")
    report_store_invalid_entities(str(done / INVALID_FILE))  # all valid: nothing to say
    assert "report_store_invalid_entities(__file__)" in (done / INVALID_FILE).read_text()
    broken = lay_out(snapshot(2, stored("feed", "out", feed("out")),
                              stored("feed", "bad", feed("bad", clusters=(("nowhere", "source"),)), 2)),
                     tmp_path / "versions")
    with pytest.raises(InvalidEntitiesError) as raised:
        report_store_invalid_entities(str(broken / INVALID_FILE))
    listing = str(raised.value.__cause__ or raised.value)
    assert "store:feed/bad (revision 2)" in listing and "1 invalid Falcon entit(y/ies)" in listing, listing
    monkeypatch.setenv("AIRFLOW__FALCON__INVALID_ENTITIES_AS_IMPORT_ERRORS", "false")
    report_store_invalid_entities(str(broken / INVALID_FILE))  # turned off


def test_a_revision_of_another_store_is_never_taken_for_this_one_s(tmp_path: Path) -> None:
    """Two stores count revisions alike (a database made anew, another deployment sharing the bundle folder)."""
    from dataclasses import replace

    from falcon_airflow.dags.store_layout import laid_out

    ours = replace(snapshot(1, stored("feed", "out", feed("out"))), store_id="ours")
    theirs = replace(snapshot(1, stored("feed", "other", feed("other"))), store_id="theirs")
    done = lay_out(theirs, tmp_path / "versions")
    assert laid_out(done, "theirs") and not laid_out(done, "ours")
    again = lay_out(ours, tmp_path / "versions")
    assert again == done and laid_out(again, "ours")
    assert [entry.name for entry in read_layout(again).entries] == ["out"]
    assert sorted(path.name for path in (tmp_path / "versions").iterdir()) == ["1"]  # nothing left aside


def test_a_stored_datasource_s_password_text_is_read_from_the_revision_s_layout(
        folder: Path, tmp_path: Path) -> None:
    from falcon_airflow.provider.operators.database import password_text

    repository = Path(__file__).resolve().parents[3]
    datasource = (repository / "entities" / "datasources" / "shop-db.xml").read_text()
    orders = (repository / "entities" / "feeds" / "orders.xml").read_text().replace('name="primary"', 'name="c1"')
    done = lay_out(snapshot(4, stored("datasource", "shop-db", datasource, 3), stored("feed", "orders", orders, 4)),
                   tmp_path / "versions")
    dags = load_store_dags(str(done / DAG_FILE))
    [database] = [task.database for task in dags["falcon.feed.orders.import.c1"].tasks
                  if isinstance(getattr(task, "database", None), dict)]
    assert database["datasource_file"] == str(done / "entities" / "datasources" / "shop-db.xml")
    assert password_text(database["datasource_file"], "shop-db", "readonly") == ("reader", "not-used-by-sqlite")
    # the spec cached for the revision still names the definition in the store, as issues do
    specs, _ = load_store_specs(read_layout(done), folder)
    [spec] = [item for item in specs if item.dag_id == "falcon.feed.orders.import.c1"]
    assert spec.database.datasource_file == "store:datasource/shop-db (revision 3)"  # type: ignore[attr-defined]
