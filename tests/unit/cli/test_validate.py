"""``falcon-airflow validate``: exit codes, the four output formats, --strict and --schema-only."""

from __future__ import annotations

import gc
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.cli import main

NOW = "2026-06-01T00:00Z"  # what rules that depend on "now" (P10) take as the current time
RunScript = Callable[..., subprocess.CompletedProcess[str]]
GITHUB_COMMAND = re.compile(r"^::(error|warning) file=([^,:]+),line=(\d+),title=([^:]+)::(.+)$")


def validate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``falcon-airflow validate ARGS`` in process: (exit code, stdout, stderr)."""
    code = main(["validate", "--now", NOW, *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- the real console script, end to end ---------------------------------------------------------------------


def test_repository_entities_are_valid(kit: Any, run_script: RunScript) -> None:
    result = run_script("validate", str(kit.repository / "entities"))

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1].startswith("valid:")
    assert result.stderr == ""


def test_the_program_ends_with_the_command_and_an_in_process_caller_keeps_its_collector(
        kit: Any, capsys: pytest.CaptureFixture[str]) -> None:
    entities = str(kit.repository / "entities")
    program = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom falcon_airflow.cli import main\n"
         f"sys.argv = ['falcon-airflow', 'validate', {entities!r}]\nmain()\nprint('after the command')"],
        capture_output=True, text=True, timeout=60, check=False)
    # the report is out in full and the exit code is the command's, but nothing after it runs: the process ended
    # with the command instead of tearing its objects down
    assert (program.returncode, program.stderr) == (0, ""), program.stdout + program.stderr
    assert program.stdout.strip().splitlines()[-1].startswith("valid:"), program.stdout
    assert "after the command" not in program.stdout

    frozen = gc.get_freeze_count()
    code, _, _ = validate(capsys, entities)
    assert (code, gc.get_freeze_count(), gc.isenabled()) == (0, frozen, True)


def test_default_path_is_entities_folder(kit: Any, run_script: RunScript) -> None:
    result = run_script("validate", "--format", "json", cwd=kit.repository)

    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["valid"] is True
    assert report["files"], "the example entities were not found"
    assert all(item["path"].startswith("entities/") for item in report["files"])
    assert {entity["type"] for item in report["files"] for entity in item["entities"]} >= {
        "cluster", "feed", "process"}


def test_invalid_workspace_exits_1_with_json(run_script: RunScript, invalid_workspace: Path) -> None:
    result = run_script("validate", str(invalid_workspace), "--format", "json", "--now", NOW)

    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["valid"] is False
    assert {issue["rule"] for issue in report["issues"]} == {"XSD", "F5", "XML"}


def test_usage_error_exits_2_without_traceback(run_script: RunScript, tmp_path: Path) -> None:
    result = run_script("validate", str(tmp_path / "missing"))

    assert result.returncode == 2
    assert "no such file or folder" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


# -- exit codes and formats ----------------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["text", "json", "junit", "github"])
def test_every_format_exits_0_for_a_valid_workspace(capsys: pytest.CaptureFixture[str], valid_workspace: Path,
                                                   output_format: str) -> None:
    code, out, err = validate(capsys, str(valid_workspace), "--format", output_format)

    assert code == 0, out
    assert err == ""
    assert out.strip()


@pytest.mark.parametrize("output_format", ["text", "json", "junit", "github"])
def test_every_format_exits_1_for_an_invalid_workspace(kit: Any, capsys: pytest.CaptureFixture[str],
                                                      invalid_workspace: Path, output_format: str) -> None:
    code, out, _ = validate(capsys, str(invalid_workspace), "--format", output_format)

    assert code == 1
    for relative in kit.invalid_paths:
        assert relative in out


def test_text_format(capsys: pytest.CaptureFixture[str], invalid_workspace: Path) -> None:
    given = str(invalid_workspace)

    _, out, _ = validate(capsys, given)

    lines = out.strip().splitlines()
    assert lines[-1] == "invalid: 7 file(s), 5 entities, 3 error(s), 0 warning(s)"
    assert f"{given}/feeds/orphan.xml:5: error [F5] feed 'orphan': " in lines[1]
    assert all(re.match(rf"^{re.escape(given)}/\S+\.xml:\d+: error \[\w+\] ", line) for line in lines[:-1])


def test_json_contract_for_a_valid_workspace(capsys: pytest.CaptureFixture[str], valid_workspace: Path) -> None:
    _, out, _ = validate(capsys, str(valid_workspace), "--format", "json")

    report = json.loads(out)
    assert report == {
        "valid": True,
        "files": [
            {"path": f"{valid_workspace}/{relative}", "entities": [{"type": kind, "name": name}], "valid": True}
            for relative, kind, name in [
                ("clusters/primary.xml", "cluster", "primary"),
                ("feeds/click-counts.xml", "feed", "click-counts"),
                ("feeds/raw-clicks.xml", "feed", "raw-clicks"),
                ("processes/count-clicks.xml", "process", "count-clicks"),
            ]
        ],
        "issues": [],
    }


def test_json_contract_for_an_invalid_workspace(kit: Any, capsys: pytest.CaptureFixture[str], invalid_workspace: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(invalid_workspace.parent)
    given = invalid_workspace.name  # a relative folder: paths are shown as found under it

    _, out, _ = validate(capsys, given, "--format", "json")

    report = json.loads(out)
    assert set(report) == {"valid", "files", "issues"}
    assert report["valid"] is False
    assert [item["path"] for item in report["files"]] == sorted(f"{given}/{path}" for path in kit.invalid_files)
    for item in report["files"]:
        assert set(item) == {"path", "entities", "valid"}
        assert item["valid"] is (item["path"].removeprefix(f"{given}/") not in kit.invalid_paths)
        for entity in item["entities"]:
            assert set(entity) == {"type", "name"}
    broken = next(item for item in report["files"] if item["path"].endswith("broken.xml"))
    assert broken["entities"] == []  # not XML: nothing is known about it
    for issue in report["issues"]:
        assert set(issue) == {"level", "rule", "file", "line", "entity", "message"}
        assert issue["level"] == "error"
        assert isinstance(issue["line"], int)
    by_rule = {issue["rule"]: issue for issue in report["issues"]}
    assert by_rule["F5"]["file"] == f"{given}/feeds/orphan.xml"
    assert by_rule["F5"]["entity"] == "orphan"
    assert "nowhere" in by_rule["F5"]["message"]
    assert by_rule["XSD"]["file"] == f"{given}/feeds/bad-frequency.xml"
    assert by_rule["XSD"]["line"] == 3
    assert by_rule["XML"]["file"] == f"{given}/processes/broken.xml"
    assert by_rule["XML"]["entity"] is None


def test_json_file_is_shown_as_given_for_a_single_file(capsys: pytest.CaptureFixture[str],
                                                      invalid_workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(invalid_workspace)

    _, out, _ = validate(capsys, "./feeds/bad-frequency.xml", "--schema-only", "--format", "json")

    report = json.loads(out)
    assert [item["path"] for item in report["files"]] == ["./feeds/bad-frequency.xml"]
    assert report["files"][0]["entities"] == [{"type": "feed", "name": "bad-frequency"}]
    assert [issue["file"] for issue in report["issues"]] == ["./feeds/bad-frequency.xml"]


def test_junit_format(kit: Any, capsys: pytest.CaptureFixture[str], invalid_workspace: Path) -> None:
    _, out, _ = validate(capsys, str(invalid_workspace), "--format", "junit")

    root = ElementTree.fromstring(out.encode("utf-8"))
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(kit.invalid_files) == int(suite.get("tests", "0"))
    names = [case.get("name", "") for case in cases]
    assert names == sorted(f"{invalid_workspace}/{path}" for path in kit.invalid_files)
    failing = {case.get("name", "").removeprefix(f"{invalid_workspace}/") for case in cases
               if case.findall("failure")}
    assert failing == kit.invalid_paths
    assert int(suite.get("failures", "0")) == len(kit.invalid_paths)
    orphan = next(case for case in cases if case.get("name", "").endswith("orphan.xml"))
    [failure] = orphan.findall("failure")
    assert failure.get("type") == "F5"
    assert "nowhere" in failure.get("message", "")
    assert "orphan.xml:5" in (failure.text or "")


def test_junit_for_a_valid_workspace_has_no_failures(kit: Any, capsys: pytest.CaptureFixture[str],
                                                    valid_workspace: Path) -> None:
    _, out, _ = validate(capsys, str(valid_workspace), "--format", "junit")

    suite = ElementTree.fromstring(out.encode("utf-8")).find("testsuite")
    assert suite is not None
    assert suite.get("failures") == "0"
    assert len(suite.findall("testcase")) == len(kit.valid_files)
    assert not suite.findall(".//failure")


def test_junit_escapes_messages(capsys: pytest.CaptureFixture[str], make_workspace: Callable[..., Path]) -> None:
    folder = make_workspace("escape", {"odd & <name>.xml": '<?xml version="1.0"?>\n<a>&amp;<b>"</a>\n'})

    _, out, _ = validate(capsys, str(folder), "--format", "junit")

    case = ElementTree.fromstring(out.encode("utf-8")).find("testsuite/testcase")
    assert case is not None
    assert case.get("name", "").endswith("odd & <name>.xml")
    assert case.findall("failure")


def test_github_format(capsys: pytest.CaptureFixture[str], invalid_workspace: Path) -> None:
    _, out, _ = validate(capsys, str(invalid_workspace), "--format", "github")

    lines = out.strip().splitlines()
    assert lines[-1].startswith("falcon-airflow validate: invalid, 3 error(s), 0 warning(s)")
    commands = [GITHUB_COMMAND.match(line) for line in lines[:-1]]
    assert all(commands), lines
    found = {(match[2].removeprefix(f"{invalid_workspace}/"), match[4]) for match in commands if match}
    assert found == {("feeds/bad-frequency.xml", "falcon-airflow XSD (feed bad-frequency)"),
                     ("feeds/orphan.xml", "falcon-airflow F5 (feed orphan)"),
                     ("processes/broken.xml", "falcon-airflow XML")}
    orphan = next(match for match in commands if match and match[2].endswith("orphan.xml"))
    assert orphan[1] == "error"
    assert orphan[3] == "5"


def test_github_format_escapes_properties_and_data(capsys: pytest.CaptureFixture[str],
                                                  make_workspace: Callable[..., Path]) -> None:
    folder = make_workspace("x,y", {"a:b.xml": "<a>\n"})

    _, out, _ = validate(capsys, str(folder), "--format", "github")

    first = out.splitlines()[0]
    assert first.startswith(f"::error file={str(folder).replace(',', '%2C')}/a%3Ab.xml,")
    assert "\n" not in first


# -- --strict and --schema-only ------------------------------------------------------------------------------


def test_strict_turns_warnings_into_errors(kit: Any, capsys: pytest.CaptureFixture[str],
                                          make_workspace: Callable[..., Path]) -> None:
    files = {**kit.valid_files, "feeds/raw-clicks.xml": kit.feed("raw-clicks", timezone="Mars/Olympus")}
    folder = make_workspace("zones", files)

    code, out, _ = validate(capsys, str(folder), "--format", "json")
    strict_code, strict_out, _ = validate(capsys, str(folder), "--format", "json", "--strict")

    assert code == 0
    [warning] = json.loads(out)["issues"]
    assert (warning["level"], warning["rule"], warning["line"]) == ("warning", "FA003", 4)
    assert json.loads(out)["valid"] is True
    assert strict_code == 1
    [error] = json.loads(strict_out)["issues"]
    assert (error["level"], error["rule"]) == ("error", "FA003")
    assert json.loads(strict_out)["valid"] is False


def test_strict_without_warnings_changes_nothing(capsys: pytest.CaptureFixture[str], valid_workspace: Path) -> None:
    assert validate(capsys, str(valid_workspace), "--strict")[0] == 0


def test_schema_only_judges_files_alone(kit: Any, capsys: pytest.CaptureFixture[str],
                                       make_workspace: Callable[..., Path]) -> None:
    folder = make_workspace("alone", {"feeds/orphan.xml": kit.feed("orphan", cluster="nowhere")})

    schema_code, schema_out, _ = validate(capsys, str(folder), "--schema-only", "--format", "json")
    full_code, full_out, _ = validate(capsys, str(folder), "--format", "json")

    assert schema_code == 0
    assert json.loads(schema_out)["issues"] == []
    assert full_code == 1
    assert [issue["rule"] for issue in json.loads(full_out)["issues"]] == ["F5"]


def test_schema_only_still_reports_schema_and_xml_errors(capsys: pytest.CaptureFixture[str],
                                                        invalid_workspace: Path) -> None:
    code, out, _ = validate(capsys, str(invalid_workspace), "--schema-only", "--format", "json")

    assert code == 1
    assert sorted(issue["rule"] for issue in json.loads(out)["issues"]) == ["XML", "XSD"]


def test_files_and_folders_form_one_workspace(kit: Any, capsys: pytest.CaptureFixture[str], valid_workspace: Path,
                                             make_workspace: Callable[..., Path]) -> None:
    """A feed in one folder resolves a cluster given as a separate file."""
    extra = make_workspace("extra", {"backup-feed.xml": kit.feed("backup-feed")})

    code, out, _ = validate(capsys, str(extra), str(valid_workspace / "clusters" / "primary.xml"), "--format", "json")

    assert code == 0, out
    assert len(json.loads(out)["files"]) == 2


def test_empty_folder_is_valid(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = validate(capsys, str(tmp_path), "--format", "json")

    assert code == 0
    assert json.loads(out) == {"valid": True, "files": [], "issues": []}
