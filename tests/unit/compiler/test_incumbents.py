"""A newcomer never takes running entities down: when a new file collides with an entity that runs already (FA009
overlapping locations, FA008 two writers), only the newcomer and what uses it are left out, and its error names the
running entity (type, name, file). Without a record of what runs, both are reported, as ``validate`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.builders import cluster, feed, process

from falcon_airflow.compiler import StoreState, compile_workspace
from falcon_airflow.compiler.store_state import FIRST_BUILT_DOC, record_first_built
from falcon_airflow.dags.loader import load_specs
from falcon_airflow.workspace import Workspace

CLICKS = "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"

INCUMBENTS = {
    "cluster.xml": cluster("c1"),
    "clicks.xml": feed("clicks", path=CLICKS),
    "counts.xml": feed("counts", path="/data/counts/${YEAR}/${MONTH}/${DAY}/${HOUR}"),
    "count.xml": process("count", inputs=(("clicks", "clicks", "now(0,0)", "now(0,0)"),),
                         outputs=(("counts", "counts", "now(0,0)"),)),
}

# Newcomers that collide with a running feed (FA009) or a running process (FA008), each with the rule it breaks and
# the running entity it must name.
NEWCOMERS = {
    "same folder, kept otherwise": (feed("intruder", path=CLICKS, retention="days(3)"), "FA009", "feed 'clicks'"),
    "inside it": (feed("intruder", path=CLICKS + "/part"), "FA009", "feed 'clicks'"),
    "around it": (feed("intruder", path="/data/clicks"), "FA009", "feed 'clicks'"),
    "its stats": (feed("intruder", path="/data/intruder/${YEAR}", retention="days(3)").replace(
        "</locations>", f'<location type="stats" path="{CLICKS}"/></locations>'), "FA009", "feed 'clicks'"),
    "a second writer": (process("rewrite", outputs=(("again", "counts", "now(0,0)"),)), "FA008", "process 'count'"),
}
NEW_NAMES = {"intruder", "rewrite"}


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def running(*names: str) -> StoreState:
    """The store's record of the example's entities as built by an earlier compilation."""
    return StoreState(first_built={(kind, name): "2026-03-01T05:00:00.000000Z" for kind, name in
                                   [("feed", "clicks"), ("feed", "counts"), ("process", "count"), ("cluster", "c1")]
                                   if not names or name in names})


def compiled(folder: Path, state: StoreState | None):  # type: ignore[no-untyped-def]
    return compile_workspace(Workspace.load([str(folder)]), entities_dir=folder, store_state=state)


@pytest.mark.parametrize("case", NEWCOMERS)
@pytest.mark.parametrize("state", [
    running(),
    StoreState(schedule_states={("feed", "clicks"): "RUNNING", ("process", "count"): "RUNNING"}),
    StoreState(schedule_states={("feed", "clicks"): "SUSPENDED", ("process", "count"): "SUSPENDED"}),
], ids=["first built earlier", "scheduled", "suspended"])
def test_only_the_newcomer_is_left_out(tmp_path: Path, case: str, state: StoreState) -> None:
    before = {spec.dag_id for spec in compiled(write(tmp_path / "e", INCUMBENTS), state).specs}
    xml, rule, incumbent = NEWCOMERS[case]
    newcomer = write(tmp_path / "e", {"newcomer.xml": xml}) / "newcomer.xml"
    compilation = compiled(tmp_path / "e", state)
    errors = [issue for issue in compilation.report.issues if issue.is_error]
    assert errors and {issue.entity for issue in errors} <= NEW_NAMES, errors
    assert {spec.dag_id for spec in compilation.specs} == before  # every incumbent DAG is still there
    (issue,) = [issue for issue in errors if issue.rule == rule]
    assert issue.file == str(newcomer)
    assert f"{incumbent} ({tmp_path / 'e'}" in issue.message and "is running already" in issue.message


@pytest.mark.parametrize("case", NEWCOMERS)
def test_without_a_record_both_are_reported(tmp_path: Path, case: str) -> None:
    """Nothing is known to run (a fresh folder, ``falcon-airflow validate``): neither came first."""
    xml, rule, incumbent = NEWCOMERS[case]
    compilation = compiled(write(tmp_path / "e", {**INCUMBENTS, "newcomer.xml": xml}), StoreState())
    blamed = {issue.entity for issue in compilation.report.issues if issue.rule == rule}
    assert blamed == NEW_NAMES & blamed | {incumbent.split("'")[1]}
    assert len(blamed) == 2


def test_a_process_reading_the_newcomer_is_left_out_with_it(tmp_path: Path) -> None:
    reader = process("reader", inputs=(("in", "intruder", "now(0,0)", "now(0,0)"),), outputs=())
    files = {**INCUMBENTS, "newcomer.xml": NEWCOMERS["inside it"][0], "reader.xml": reader}
    compilation = compiled(write(tmp_path / "e", files), running())
    by_rule = {(issue.rule, issue.entity) for issue in compilation.report.issues if issue.is_error}
    assert by_rule == {("FA009", "intruder"), ("FA101", "reader")}
    assert "falcon.process.count.c1" in {spec.dag_id for spec in compilation.specs}


@pytest.mark.parametrize("case", NEWCOMERS)
def test_the_loader_keeps_the_running_dags_when_a_colliding_file_is_dropped_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    folder = write(tmp_path / "entities", INCUMBENTS)
    specs, issues = load_specs(folder, catchup_default=False)
    assert not issues
    running_dags = sorted(spec.dag_id for spec in specs)
    recorded = json.loads((tmp_path / "state" / FIRST_BUILT_DOC).read_text())
    assert set(recorded) == {"feed/clicks", "feed/counts", "process/count"}

    xml, rule, incumbent = NEWCOMERS[case]
    write(folder, {"newcomer.xml": xml})
    specs, issues = load_specs(folder, catchup_default=False)
    assert sorted(spec.dag_id for spec in specs) == running_dags
    errors = [issue for issue in issues if issue["level"] == "error"]
    assert {issue["entity"] for issue in errors} <= NEW_NAMES and errors
    (issue,) = [issue for issue in errors if issue["rule"] == rule]
    assert issue["file"] == str(folder / "newcomer.xml")
    assert f"{incumbent} ({folder / ''}" in issue["message"], issue["message"]
    assert json.loads((tmp_path / "state" / FIRST_BUILT_DOC).read_text()) == recorded  # the newcomer never ran

    (folder / "newcomer.xml").unlink()  # moved away: nothing changes for the incumbents
    assert sorted(spec.dag_id for spec in load_specs(folder, catchup_default=False)[0]) == running_dags


def test_the_record_forgets_entities_whose_files_left_and_keeps_the_first_time(tmp_path: Path) -> None:
    state = tmp_path / "state"
    record_first_built(tmp_path, state, {("feed", "a"), ("feed", "b")}, {("feed", "a"), ("feed", "b")}, {})
    first = json.loads((state / FIRST_BUILT_DOC).read_text())
    known = {tuple(key.split("/")): entry["since"] for key, entry in first.items()}
    record_first_built(tmp_path, state, {("feed", "a"), ("feed", "c")}, {("feed", "a"), ("feed", "c")},
                       known)  # type: ignore[arg-type]
    second = json.loads((state / FIRST_BUILT_DOC).read_text())
    assert set(second) == {"feed/a", "feed/c"} and second["feed/a"] == first["feed/a"]


def test_the_record_waits_for_an_old_layout_to_be_moved(tmp_path: Path) -> None:
    """A store still kept inside the entities folder is moved by the first command only if the state folder does
    not exist yet: the loader never creates it first."""
    (tmp_path / ".falcon").mkdir()
    record_first_built(tmp_path, tmp_path / "state", {("feed", "a")}, {("feed", "a")}, {})
    assert not (tmp_path / "state").exists()
