"""One process's bad EL is that process's problem: it is invalid with an issue naming the rule and the character,
and every other process is still valid and still gets its DAGs - through the shared FA008 index of writers and
through the compiler's per-entity steps."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.builders import cluster, feed, process, workspace

from falcon_airflow.compiler import compilation
from falcon_airflow.compiler.compilation import compile_workspace
from falcon_airflow.validation import sharing_rules, validate_workspace
from falcon_airflow.workspace import Workspace

GOOD_DAG = "falcon.process.good.c1"
BAD_DAG = "falcon.process.bad.c1"

EXPRESSIONS = {
    "now-huge-minutes": "now(0, 99999999999)",
    "today-huge-hours": "today(-1000000000, 0)",
    "yesterday-int-max-hours": "yesterday(2147483647, 0)",
    "current-month-huge-days": "currentMonth(99999999, 0, 0)",
    "last-year-huge-months": "lastYear(99999999, 0, 0, 0)",
    "latest-huge": "latest(-99999999999)",
    "future-huge": "future(99999999999, 1)",
    "nested-parentheses": "now(0, " + "(" * 1500 + "0" + ")" * 1500 + ")",
    "nested-calls": "now(" * 400 + "0, 0" + ")" * 400,
    "chain-of-plus": "now(0, " + "+".join(["1"] * 1000) + ")",
    "huge-literal": "now(0, " + "9" * 4000 + ")",
}


def estate(folder: Path, bad: str) -> Workspace:
    """A process ``good`` writing feed out1 and a process ``bad`` (written by ``bad``) writing out2."""
    good = process("good", inputs=(("i", "in", "now(0,0)", "now(0,0)"),), outputs=(("o", "out1", "now(0,0)"),))
    return workspace(folder, cluster(), feed("in"), feed("out1", path="/o1/${YEAR}/${MONTH}/${DAY}/${HOUR}"),
                     feed("out2", path="/o2/${YEAR}/${MONTH}/${DAY}/${HOUR}"), good, bad)


def bad_process(place: str, expression: str, **validity: str) -> str:
    start = expression if place == "input-start" else "now(0,0)"
    end = expression if place == "input-end" else "now(0,0)"
    instance = expression if place == "output" else "now(0,0)"
    return process("bad", inputs=(("i", "in", start, end),), outputs=(("o", "out2", instance),), **validity)


def assert_only_bad_is_invalid(ws: Workspace) -> None:
    report = validate_workspace(ws)
    errors = [issue for issue in report.issues if issue.is_error]
    assert errors, "the bad process was accepted"
    assert {issue.entity for issue in errors} == {"bad"}, [str(issue) for issue in errors]
    assert not [issue for issue in errors if "could not be checked" in issue.message], \
        [str(issue) for issue in errors]
    dags = {spec.dag_id for spec in compile_workspace(ws, entities_dir=ws_folder(ws)).specs}
    assert GOOD_DAG in dags and BAD_DAG not in dags


def ws_folder(ws: Workspace) -> Path:
    return Path(ws.files[0].path).parent


@pytest.mark.parametrize("place", ["output", "input-start", "input-end"])
@pytest.mark.parametrize("expression", list(EXPRESSIONS.values()), ids=list(EXPRESSIONS))
def test_a_bad_expression_makes_only_its_own_process_invalid(tmp_path: Path, place: str, expression: str) -> None:
    assert_only_bad_is_invalid(estate(tmp_path, bad_process(place, expression)))


@pytest.mark.parametrize("place", ["output", "input-start", "input-end"])
def test_an_expression_that_leaves_the_calendar_only_at_the_end_of_the_validity(tmp_path: Path, place: str) -> None:
    # 65,000,000 hours is 7,415 years: year 9425 from the validity start, year 10414 from its end
    bad = bad_process(place, "now(65000000, 0)", start="2010-01-01T00:00Z", end="2999-01-01T00:00Z")

    assert_only_bad_is_invalid(estate(tmp_path, bad))


@pytest.mark.parametrize("failure", [OverflowError("date value out of range"), RecursionError("too deep"),
                                     RuntimeError("instance search did not converge"), KeyError("zone")])
def test_a_failure_in_the_shared_writer_index_stays_with_its_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     failure: Exception) -> None:
    ws = estate(tmp_path, bad_process("output", "now(0, 1)"))
    evaluate = sharing_rules.reference_time

    def failing(expression: str, moment: object) -> object:
        if expression == "now(0, 1)":
            raise failure
        return evaluate(expression, moment)  # type: ignore[arg-type]

    monkeypatch.setattr(sharing_rules, "reference_time", failing)

    report = validate_workspace(ws)

    fa008 = [issue for issue in report.issues if issue.rule == "FA008"]
    assert [issue.entity for issue in fa008] == ["bad"], [str(issue) for issue in report.issues]
    assert "output 'o'" in fa008[0].message and type(failure).__name__ in fa008[0].message
    assert fa008[0].line is not None


@pytest.mark.parametrize("failure", [OverflowError("date value out of range"), RecursionError("too deep"),
                                     RuntimeError("boom"), KeyError("zone"), AttributeError("none")])
def test_a_failure_compiling_one_entity_leaves_the_others_compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   failure: Exception) -> None:
    ws = estate(tmp_path, bad_process("output", "now(0,0)"))
    compile_process = compilation.compile_process

    def failing(view: Workspace, entity: object, *args: object, **kwargs: object) -> object:
        if getattr(entity, "name", None) == "bad":
            raise failure
        return compile_process(view, entity, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(compilation, "compile_process", failing)

    result = compile_workspace(ws, entities_dir=tmp_path)

    dags = {spec.dag_id for spec in result.specs}
    assert GOOD_DAG in dags and BAD_DAG not in dags
    problems = [issue for issue in result.report.issues if issue.entity == "bad" and issue.is_error]
    assert problems and type(failure).__name__ in problems[0].message
    assert not [issue for issue in result.report.issues if issue.entity == "good" and issue.is_error]


MIRROR_JOB = """jobName={name}
jobClusterName=primary
jobValidityStart=2026-03-01T00:00Z
jobValidityEnd=2027-03-01T00:00Z
jobFrequency=hours(1)
sourceCluster=primary
sourceDir=/data/{name}
targetCluster=backup
targetDir=/backup/{name}
jobAclOwner=dr-team
"""


@pytest.mark.parametrize("failure", [OverflowError("date value out of range"), RecursionError("too deep"),
                                     RuntimeError("boom"), KeyError("cluster")])
def test_a_failure_compiling_one_extension_job_leaves_the_others_compiled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: Exception) -> None:
    folder = tmp_path / "entities"
    shutil.copytree(Path(__file__).resolve().parents[3] / "entities", folder)
    jobs = folder / "extensions" / "hdfs-mirroring"
    jobs.mkdir(parents=True)
    for name in ("sales-dr", "orders-dr"):
        (jobs / f"{name}.properties").write_text(MIRROR_JOB.format(name=name), encoding="utf-8")
    compile_extension = compilation.compile_extension

    def failing(clusters: object, job: object, *args: object) -> object:
        if getattr(job, "name", None) == "sales-dr":
            raise failure
        return compile_extension(clusters, job, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(compilation, "compile_extension", failing)

    result = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder)

    dags = {spec.dag_id for spec in result.specs}
    assert "falcon.extension.orders-dr" in dags and "falcon.extension.sales-dr" not in dags
    assert "falcon.process.count-clicks.primary" in dags
    problems = [issue for issue in result.report.issues if issue.entity == "sales-dr" and issue.is_error]
    assert problems and type(failure).__name__ in problems[0].message
