"""Golden files: the exact bytes ``falcon-airflow validate`` prints in every format, for the conformance
scenarios (valid and invalid workspaces), the example entities and a generated estate with broken entities.

Validation was made faster for large estates (reading, rule dispatch, cached EL values, report indexes); these
files were written before that work and prove that no report changed by a byte. Regenerate only after an intended
change of a report, with ``FALCON_UPDATE_GOLDEN=1 pytest tests/golden`` and a review of the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.estate import write_estate

from falcon_airflow.cli import main

GOLDEN = Path(__file__).resolve().parent / "files" / "validate"
REPOSITORY = Path(__file__).resolve().parents[2]
SCENARIOS = REPOSITORY.parent / "shared" / "conformance" / "scenarios"
FORMATS = ("text", "json", "junit", "github")
NOW = "2026-03-01T12:00Z"


def report(capsys: pytest.CaptureFixture[str], path: str, output_format: str) -> str:
    code = main(["validate", path, "--format", output_format, "--now", NOW])
    return f"exit {code}\n{capsys.readouterr().out}"


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("FALCON_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path}; run with FALCON_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8"), f"the report differs from {path}"


SCENARIO_NAMES = sorted(path.name for path in SCENARIOS.iterdir() if path.is_dir()) if SCENARIOS.is_dir() else []


@pytest.mark.parametrize("output_format", FORMATS)
@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_scenario_reports(shared: Path, scenario: str, output_format: str, capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(shared / "conformance" / "scenarios")  # relative paths: the report is the same anywhere
    check(f"{scenario}.{output_format}", report(capsys, scenario, output_format))


@pytest.mark.parametrize("output_format", FORMATS)
def test_example_entities_reports(output_format: str, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPOSITORY)
    check(f"example-entities.{output_format}", report(capsys, "entities", output_format))


def test_generated_estate_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    write_estate(tmp_path / "estate", 150, broken=11)
    monkeypatch.chdir(tmp_path)
    for output_format in FORMATS:
        text = report(capsys, "estate", output_format)
        assert text.startswith("exit 1\n")  # the broken entities are reported, so every report path is exercised
        check(f"generated-estate.{output_format}", text)
