"""Golden files: the compiled DagSpecs (JSON) of the example entities and of Falcon's corpus processes.

Regenerate after an intended change with ``FALCON_UPDATE_GOLDEN=1 pytest tests/golden`` and review the diff.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.parsing import parse_file
from falcon_airflow.workspace import Workspace

GOLDEN = Path(__file__).resolve().parent / "files"
REPOSITORY = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def normalised(compilation: Any, *roots: Path) -> str:
    data = {"specs": [spec.model_dump(mode="json") for spec in compilation.specs],
            "issues": [{"rule": issue.rule, "level": issue.level.value, "file": issue.file, "line": issue.line,
                        "message": issue.message} for issue in compilation.report.issues if issue.is_error]}
    text = json.dumps(data, indent=1, sort_keys=True)
    for root, name in zip(roots, ("<root>", "<shared>"), strict=False):
        for form in {str(root.resolve()), str(root.absolute())}:  # shared may be reached through a symlink
            text = text.replace(form, name)
    return text + "\n"


def check(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("FALCON_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path}; run with FALCON_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8"), f"compiled specs differ from {path}"


def test_example_entities() -> None:
    folder = REPOSITORY / "entities"
    workspace = Workspace.load([str(folder)])
    compilation = compile_workspace(workspace, entities_dir=folder, now=NOW)
    assert len(compilation.specs) == 11 and compilation.report.valid
    check("example-entities", normalised(compilation, REPOSITORY))


CORPUS_PROCESSES = sorted(path.name for path in (REPOSITORY.parent / "shared" / "conformance" / "corpus")
                          .glob("valid__process__*.xml"))


@pytest.mark.parametrize("name", CORPUS_PROCESSES)
def test_corpus_process(shared: Path, name: str) -> None:
    corpus = shared / "conformance" / "corpus"
    process_file = corpus / name
    others = [parse_file(path, str(path)) for path in sorted(corpus.glob("valid__*.xml"))
              if "__process__" not in path.name]
    workspace = Workspace.from_parsed([*others, parse_file(process_file, str(process_file))])
    compilation = compile_workspace(workspace, entities_dir=corpus, now=NOW)
    mine = [spec for spec in compilation.specs if spec.source.file == str(process_file)]
    problems = [issue for issue in compilation.report.issues if issue.file == str(process_file)]
    assert mine or problems, "a corpus process either compiles or says why not"
    subset = type(compilation)(tuple(mine), type(compilation.report)(compilation.report.files, tuple(problems)))
    check(f"corpus-{process_file.stem.removeprefix('valid__process__')}", normalised(subset, REPOSITORY, shared))
