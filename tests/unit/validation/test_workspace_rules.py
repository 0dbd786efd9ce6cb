"""The runner: FA001 (duplicates) and FA003 (unknown time zone), collecting every problem, crashes, --strict."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import falcon_airflow.validation as validation
from falcon_airflow.issues import Level
from falcon_airflow.validation import RULES, validate_paths

# Rule ids the runner can report: every registered rule, plus the workspace's FA001 and the builder's FA003.
ALL_RULE_IDS = sorted({rule.id for rule in RULES} | {"FA001", "FA003"})


@pytest.mark.parametrize("rule", ALL_RULE_IDS)
def test_valid_base_workspace_reports_nothing_for(base_report, rule):
    assert rule not in {issue.rule for issue in base_report.issues}
    assert base_report.valid


def test_every_rule_has_a_test():
    """A rule registered without a test of its own shows up here."""
    here = Path(__file__).parent
    mentioned = set()
    for module in here.glob("test_*.py"):
        if module.name != Path(__file__).name:
            mentioned |= set(re.findall(r'"((?:C|F|P|D|FA)\d+)"', module.read_text(encoding="utf-8")))
    mentioned |= {"FA001", "FA003"}  # tested below
    assert set(ALL_RULE_IDS) - mentioned == set()


# -- FA001: the same type and name defined twice --------------------------------------------------------------


@pytest.mark.parametrize(("original", "kind"), [("primary", "cluster"), ("sample", "process"), ("mysql", "datasource"),
                                                ("clicks", "feed")])
def test_second_definition_is_a_duplicate(ws, original, kind):
    ws.put("again", ws.files[original], where="zz-later/again.xml")  # read after every base file
    report = ws.validate()
    name = ws.entity_name(original)
    issue = ws.assert_reported(report, "FA001", "again", f'<{kind} name="{name}"',
                               f"{kind} '{name}' is defined twice; the first definition is in {ws.path(original)}:1")
    assert issue.entity_type == kind


def test_same_name_for_different_types_is_no_duplicate(ws):
    ws.put("sample-feed", ws.files["join2"].replace('name="imp-click-join2"', 'name="sample"'))
    ws.assert_clean(ws.validate())


def test_a_file_named_twice_is_read_once(ws):
    ws.validate()
    report = validate_paths([str(ws.root), ws.path("sample")], now=ws.now)
    ws.assert_clean(report)
    assert len(report.files) == len(ws.files)


# -- FA003: a time zone Java would not have known ------------------------------------------------------------


@pytest.mark.parametrize(("key", "zone"), [("sample", "Mars/Olympus"), ("sample", "Europe/Pariss"),
                                           ("impressions", "GMT+25:00")])
def test_unknown_time_zone_is_a_warning(ws, key, zone):
    ws.edit(key, "<timezone>UTC</timezone>", f"<timezone>{zone}</timezone>")
    report = ws.validate()
    ws.assert_reported(report, "FA003", key, "<timezone>", f"time zone '{zone}' is not a known zone ID",
                       level=Level.WARNING)
    assert report.valid


@pytest.mark.parametrize("zone", ["IST", "GMT+05:30", "Europe/Paris", "EST", "America/Los_Angeles", "UTC"])
def test_known_time_zone_is_silent(ws, zone):
    ws.edit("sample", "<timezone>UTC</timezone>", f"<timezone>{zone}</timezone>")
    ws.assert_clean(ws.validate())


# -- the runner --------------------------------------------------------------------------------------------------


def test_one_run_reports_every_problem_of_every_file(ws):
    ws.edit("primary", '<location name="staging" path="/projects/falcon/staging"/>', "")
    ws.edit("customers", '<validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>',
            '<validity start="2012-01-01T00:00Z" end="2011-12-31T00:00Z"/>')
    ws.edit("sample", '<validity start="2011-11-02T00:00Z" end="2091-12-30T00:00Z"/>',
            '<validity start="2011-11-02T00:00Z" end="2011-11-01T00:00Z"/>')
    ws.edit("sample", '<property name="name2" value="value2"/>', '<property name="name1" value="value2"/>')
    ws.put("broken", "<feed name='half'")
    ws.put("unknown", '<cluster name="x" xmlns="uri:falcon:cluster:0.1"><interfaces/></cluster>')
    report = ws.validate()

    found = {(issue.rule, issue.file) for issue in report.issues}
    assert found == {
        ("C9", ws.path("primary")),
        ("F7", ws.path("customers")),
        ("P5", ws.path("sample")),
        ("P7", ws.path("sample")),
        ("XML", ws.path("broken")),
        ("XSD", ws.path("unknown")),
    }, ws.describe(report)
    assert list(report.issues) == sorted(report.issues, key=lambda issue: issue.sort_key())
    assert len(report.files) == len(ws.files)
    assert not report.valid


def test_a_rule_that_crashes_becomes_an_issue(ws, monkeypatch):
    def crash(context, entity):
        raise RuntimeError("boom")

    patched = [dataclasses.replace(rule, check=crash) if rule.id == "P5" else rule for rule in RULES]
    monkeypatch.setattr(validation, "RULES", patched)
    ws.edit("customers", '<validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>',
            '<validity start="2012-01-01T00:00Z" end="2011-12-31T00:00Z"/>')

    report = ws.validate()

    crashed = [issue for issue in report.issues if issue.rule == "P5"]
    assert len(crashed) == 1
    assert crashed[0].level is Level.ERROR
    assert crashed[0].message.startswith("rule P5 (validity start is before validity end) could not be checked: "
                                         "RuntimeError: boom")
    assert (crashed[0].file, crashed[0].line, crashed[0].entity) == (ws.path("sample"), 1, "sample")
    assert ws.rules(report) == {"P5", "F7"}, "the other rules must still run"


def test_strict_turns_warnings_into_errors(ws):
    ws.edit("sample", "<timezone>UTC</timezone>", "<timezone>Mars/Olympus</timezone>")
    report = ws.validate()
    assert [issue.level for issue in report.issues] == [Level.WARNING]
    assert report.valid

    strict = report.strict()

    assert not strict.valid
    assert [issue.level for issue in strict.issues] == [Level.ERROR]
    assert [dataclasses.replace(issue, level=Level.WARNING) for issue in strict.issues] == list(report.issues)
    assert strict.files == report.files


def test_strict_leaves_a_clean_report_clean(base_report):
    assert base_report.strict().issues == ()
    assert base_report.strict().valid
