"""``validate`` and ``el`` run in a user's CI without Airflow or Spark: they must never import them."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

HEAVY = ("airflow", "pyspark")

SCRIPT = textwrap.dedent("""\
    import json
    import sys

    import falcon_airflow.cli

    code = falcon_airflow.cli.main(sys.argv[2:])
    heavy = sorted(name for name in sys.modules if name.split(".")[0] in {heavy!r})
    with open(sys.argv[1], "w") as handle:
        json.dump({{"code": code, "heavy": heavy}}, handle)
    """).format(heavy=set(HEAVY))


def imported_by(importtime: str) -> set[str]:
    """Top-level package names in ``-X importtime`` output (``import time: self | cumulative | name``)."""
    names = set()
    for line in importtime.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


@pytest.mark.parametrize(
    ("argv", "expected_code"),
    [
        pytest.param(lambda kit, ws: ["validate", str(kit.repository / "entities")], 0, id="validate-valid"),
        pytest.param(lambda kit, ws: ["validate", str(ws), "--format", "junit", "--strict"], 1,
                     id="validate-invalid"),
        pytest.param(lambda kit, ws: ["validate", str(ws), "--schema-only", "--format", "github"], 1,
                     id="validate-schema-only"),
        pytest.param(lambda kit, ws: ["el", "now(0,-20)", "--at", "2012-02-28T10:37Z", "--feed-frequency",
                                      "minutes(5)", "--feed-start", "2012-02-27T10:00Z"], 0, id="el"),
    ],
)
def test_never_imports_airflow_or_pyspark(kit: Any, invalid_workspace: Path, tmp_path: Path, argv: Any,
                                          expected_code: int) -> None:
    result_file = tmp_path / "result.json"

    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", SCRIPT, str(result_file), *argv(kit, invalid_workspace)],
        capture_output=True, text=True, timeout=60, check=False)

    assert completed.returncode == 0, completed.stderr[-2000:]
    result = json.loads(result_file.read_text(encoding="utf-8"))
    assert result["code"] == expected_code
    assert result["heavy"] == []
    imported = imported_by(completed.stderr)
    assert "falcon_airflow" in imported  # the import-time report was read
    assert imported.isdisjoint(HEAVY)
