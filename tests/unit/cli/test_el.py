"""``falcon-airflow el``: the value alone on stdout; a bad expression exits 1 naming the character position."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

from falcon_airflow.cli import main

AT = "2012-02-28T10:37Z"


def el(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["el", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("args", "printed"),
    [
        pytest.param(["now(0,0)"], "2012-02-28T10:37Z", id="now"),
        pytest.param(["now(1,-37)"], "2012-02-28T11:00Z", id="now-offset"),
        pytest.param(["today(0,0)"], "2012-02-28T00:00Z", id="today"),
        pytest.param(["hours(5)"], "18000000", id="duration"),
        pytest.param(["days(3)"], "259200000", id="days"),
        pytest.param(["now(0,-20)", "--feed-frequency", "minutes(5)", "--feed-start", "2012-02-27T10:00Z"],
                     "2012-02-28T10:15Z", id="snapped-to-feed"),
        pytest.param(["now(0,0)", "--feed-frequency", "hours(1)", "--feed-start", "2013-01-01T00:00Z"], "",
                     id="before-the-first-instance"),
        pytest.param(["today(0,0)", "--timezone", "Asia/Kolkata"], "2012-02-27T18:30Z", id="in-a-zone"),
    ],
)
def test_prints_the_value(capsys: pytest.CaptureFixture[str], args: list[str], printed: str) -> None:
    code, out, err = el(capsys, *args, "--at", AT)

    assert code == 0, err
    assert out == printed + "\n"
    assert err == ""


@pytest.mark.parametrize(
    ("expression", "words", "position"),
    [
        pytest.param("now(0,", "ends too early", 7, id="unfinished"),
        pytest.param("now(0,-20", "expected ')'", 10, id="unclosed"),
        pytest.param("now(0,0))", "unexpected ')'", 9, id="extra-parenthesis"),
        pytest.param("nosuch(1)", "unknown function 'nosuch'", 1, id="unknown-function"),
        pytest.param("now(0, bogus(1))", "unknown function 'bogus'", 8, id="unknown-nested-function"),
        pytest.param("now(1)", "now takes 2 argument(s)", 1, id="too-few-arguments"),
        pytest.param("today(0,0,1)", "today takes 2 argument(s)", 1, id="too-many-arguments"),
        pytest.param("  now(1)", "now takes 2 argument(s)", 3, id="position-after-spaces"),
    ],
)
def test_bad_expression_exits_1_with_the_position(capsys: pytest.CaptureFixture[str], expression: str, words: str,
                                                  position: int) -> None:
    code, out, err = el(capsys, expression, "--at", AT)

    assert code == 1
    assert out == ""
    assert err.startswith("falcon-airflow el: ")
    assert words in err
    assert f"at character {position} of {expression!r}" in err
    assert "Traceback" not in err


def test_real_script_el(run_script: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    good = run_script("el", "now(-1,0)", "--at", AT)
    bad = run_script("el", "now(0,", "--at", AT)

    assert (good.returncode, good.stdout) == (0, "2012-02-28T09:37Z\n")
    assert bad.returncode == 1
    assert "at character 7" in bad.stderr
    assert "Traceback" not in bad.stderr


HOSTILE = {
    "now-huge-minutes": "now(0, 99999999999)",
    "today-huge-hours": "today(-1000000000, 0)",
    "yesterday-int-max": "yesterday(2147483647, 0)",
    "current-month-huge": "currentMonth(99999999, 0, 0)",
    "last-year-huge": "lastYear(99999999, 0, 0, 0)",
    "latest-huge": "latest(-99999999999)",
    "future-huge": "future(99999999999, 1)",
    "date-offset-huge": "dateOffset(instanceTime(), 99999999999, 'YEAR')",
    "parentheses-1500": "(" * 1500 + "1" + ")" * 1500,
    "parentheses-100000": "(" * 100000 + "1" + ")" * 100000,
    "signs-3000": "-" * 3000 + "1",
    "nested-calls": "now(" * 500 + "0,0" + ")" * 500,
    "chain-of-plus": "+".join(["1"] * 1000),
    "chain-of-100000": "+".join(["1"] * 100000),
    "digits-4000": "9" * 4000,
    "digits-5000": "9" * 5000,
    "long-overflow": "9223372036854775807 * 2",
}


@pytest.mark.parametrize("feed", [(), ("--feed-frequency", "hours(1)", "--feed-start", "2010-01-01T00:00Z")],
                         ids=["action", "dataset"])
@pytest.mark.parametrize("expression", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_expressions_are_clear_errors(capsys: pytest.CaptureFixture[str], expression: str,
                                              feed: tuple[str, ...]) -> None:
    code, out, err = el(capsys, "--at", AT, *feed, "--", expression)  # "--": an expression may start with '-'

    assert code == 1
    assert out == ""
    assert err.startswith("falcon-airflow el: ") and err.count("\n") == 1
    assert "at character " in err
    assert len(err) < 600  # a 200,000-character expression is shown as an excerpt around the character
    assert "Traceback" not in err and "Error:" not in err


def test_real_script_refuses_a_deep_expression_without_a_traceback(
        run_script: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    deep = run_script("el", "now(0, " + "(" * 2000 + "0" + ")" * 2000 + ")", "--at", AT)
    huge = run_script("el", "now(0, 99999999999)", "--at", AT)

    assert deep.returncode == 1 and "too deep" in deep.stderr and "Traceback" not in deep.stderr
    assert huge.returncode == 1 and "out of range" in huge.stderr and "Traceback" not in huge.stderr
