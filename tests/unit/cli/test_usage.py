"""Command-line mistakes exit with 2 and a message, never with a traceback."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from falcon_airflow.cli import main


def exit_code_of(argv: list[str]) -> int:
    """main's return value, or the code argparse exits with."""
    try:
        return main(argv)
    except SystemExit as leaving:
        return int(leaving.code or 0)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        pytest.param([], "the following arguments are required: COMMAND", id="no-subcommand"),
        pytest.param(["frobnicate"], "invalid choice: 'frobnicate'", id="unknown-subcommand"),
        pytest.param(["validate", "--bogus"], "unrecognized arguments: --bogus", id="unknown-option"),
        pytest.param(["validate", "--format", "xml"], "invalid choice: 'xml'", id="bad-format"),
        pytest.param(["validate", "--format"], "expected one argument", id="format-without-value"),
        pytest.param(["validate", "--now", "yesterday"], "--now: 'yesterday' is not a valid UTC date", id="bad-now"),
        pytest.param(["el", "now(0,0)"], "the following arguments are required: --at", id="el-without-at"),
        pytest.param(["el", "now(0,0)", "--at", "2024-02-30T00:00Z"], "February 2024 has no day 30", id="el-bad-at"),
        pytest.param(["el", "now(0,0)", "--at", "2024-01-01T00:00Z", "--timezone", "Mars/Olympus"],
                     "not a known time zone", id="el-unknown-zone"),
        pytest.param(["el", "now(0,0)", "--at", "2024-01-01T00:00Z", "--feed-frequency", "hours(1)"],
                     "go together", id="el-frequency-without-start"),
        pytest.param(["el", "now(0,0)", "--at", "2024-01-01T00:00Z", "--feed-frequency", "hours(0)",
                      "--feed-start", "2024-01-01T00:00Z"], "'hours(0)' is not a frequency", id="el-bad-frequency"),
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    code = exit_code_of(argv)

    captured = capsys.readouterr()
    assert code == 2
    assert words in captured.err
    assert captured.out == ""
    assert "Traceback" not in captured.err


def test_missing_path_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"

    code = exit_code_of(["validate", str(tmp_path), str(missing)])

    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.strip() == f"falcon-airflow validate: no such file or folder: {missing}"
    assert captured.out == ""


def test_missing_default_folder_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no entities/ here

    assert exit_code_of(["validate"]) == 2
    assert "no such file or folder: entities" in capsys.readouterr().err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code_of(["validate", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--schema-only", "--strict", "--format", "--check-environment", "--now"):
        assert option in out


@pytest.mark.parametrize("argv", [[], ["validate", "--unknown"], ["validate", "--format", "yaml"]],
                         ids=["no-subcommand", "unknown-option", "bad-format"])
def test_real_script_usage_errors(run_script: Callable[..., subprocess.CompletedProcess[str]],
                                  argv: list[str]) -> None:
    result = run_script(*argv)

    assert result.returncode == 2
    assert result.stderr.startswith("usage: falcon-airflow")
    assert "Traceback" not in result.stderr
