"""Oozie EL: the JSP EL grammar with positions, JSP coercions, and every function of the library."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from falcon_airflow.errors import ELEvaluationError, ELSyntaxError
from falcon_airflow.oozie.el import (
    ActionResult,
    ELFunction,
    LocalFileSystem,
    WorkflowContext,
    check_syntax,
    evaluate_predicate,
    evaluate_text,
    evaluate_value,
    parse_template,
)
from falcon_airflow.oozie.el.values import java_double

CLOCK = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


@pytest.fixture
def context(tmp_path: Path) -> WorkflowContext:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.txt").write_bytes(b"x" * 10)
    (tmp_path / "data" / "b.txt").write_bytes(b"y" * 5)
    (tmp_path / "data" / "sub").mkdir()
    (tmp_path / "data" / "sub" / "c.txt").write_bytes(b"z" * 100)
    return WorkflowContext(
        id="0000001-260304000000000-oozie-W", name="daily", app_path="hdfs://nn/apps/daily", user="etl",
        group="data", run=2, conf={"nameNode": "hdfs://nn:8020", "count": "5", "ratio": "0.5", "flag": "TRUE",
                                   "root": str(tmp_path)},
        variables={"limit": 3},
        actions={"probe": ActionResult(transition="decide", external_id="job_1", tracker_uri="http://rm/job_1",
                                       external_status="SUCCEEDED", data={"ready": "yes", "rows": "42"}),
                 "load": ActionResult(transition="fail", error_code="JA018", error_message="exit code [1]")},
        last_error_node="load", fs=LocalFileSystem(), clock=lambda: CLOCK)


@pytest.mark.parametrize(("text", "expected"), [
    ("${wf:id()}", "0000001-260304000000000-oozie-W"),
    ("${wf:name()}", "daily"),
    ("${wf:appPath()}", "hdfs://nn/apps/daily"),
    ("${wf:conf('nameNode')}", "hdfs://nn:8020"),
    ("${wf:conf('missing')}", None),
    ("${wf:user()}", "etl"),
    ("${wf:group()}", "data"),
    ("${wf:callback('STATUS')}", ""),
    ("${wf:transition('probe')}", "decide"),
    ("${wf:transition('never-ran')}", None),
    ("${wf:lastErrorNode()}", "load"),
    ("${wf:errorCode('load')}", "JA018"),
    ("${wf:errorMessage('load')}", "exit code [1]"),
    ("${wf:run()}", 2),
    ("${wf:actionData('probe')}", {"ready": "yes", "rows": "42"}),
    ("${wf:actionData('probe')['rows']}", "42"),
    ("${wf:actionData('probe').ready}", "yes"),
    ("${wf:actionData('never-ran')}", {}),
    ("${wf:actionExternalId('probe')}", "job_1"),
    ("${wf:actionTrackerUri('probe')}", "http://rm/job_1"),
    ("${wf:actionExternalStatus('probe')}", "SUCCEEDED"),
    ("${hadoop:counters('probe')}", {}),
    ("${firstNotNull(wf:conf('missing'), 'fallback')}", "fallback"),
    ("${firstNotNull('first', 'second')}", "first"),
    ("${concat('a', 'b')}", "ab"),
    ("${concat(wf:conf('missing'), 'b')}", "b"),
    ("${replaceAll('2026-03-04', '-', '/')}", "2026/03/04"),
    ("${replaceAll('a1b22', '([a-z])(\\\\d+)', '$2$1')}", "1a22b"),
    ("${replaceAll('abc', 'b', wf:conf('missing'))}", "ac"),
    ("${appendAll('/a,/b,/c', '/part', ',')}", "/a/part,/b/part,/c/part"),
    ("${appendAll(',/a', '/x', ',')}", "/x,/a/x"),
    ("${trim('  padded \t')}", "padded"),
    ("${urlEncode('a b/c?d=é~')}", "a+b%2Fc%3Fd%3D%C3%A9%7E"),
    ("${timestamp()}", "2026-03-04T05:06Z"),
    ("${toJsonStr(wf:actionData('probe'))}", '{"ready":"yes","rows":"42"}'),
    ("${toPropertiesStr(wf:actionData('probe'))}", "#\n#Wed Mar 04 05:06:07 UTC 2026\nready=yes\nrows=42\n"),
    ("${toConfigurationStr(wf:actionData('probe'))}",
     "<configuration>\r\n  <property>\r\n    <name>ready</name>\r\n    <value>yes</value>\r\n  </property>\r\n"
     "  <property>\r\n    <name>rows</name>\r\n    <value>42</value>\r\n  </property>\r\n</configuration>"),
])
def test_functions(context: WorkflowContext, text: str, expected: object) -> None:
    assert evaluate_value(text, context) == expected


def test_json_escapes_as_json_simple(context: WorkflowContext) -> None:
    data = WorkflowContext(actions={"a": ActionResult(data={"p": 'a/b "q"\n'})})
    assert evaluate_value("${toJsonStr(wf:actionData('a'))}", data) == '{"p":"a\\/b \\"q\\"\\n"}'


def test_properties_escape_keys_and_values() -> None:
    data = WorkflowContext(actions={"a": ActionResult(data={"a key": " v=1:#"})}, clock=lambda: CLOCK)
    text = evaluate_value("${toPropertiesStr(wf:actionData('a'))}", data)
    assert isinstance(text, str) and text.splitlines()[2] == "a\\ key=\\ v\\=1\\:\\#"


def test_fs_functions(context: WorkflowContext) -> None:
    root = context.conf["root"]
    assert evaluate_value(f"${{fs:exists('{root}/data/a.txt')}}", context) is True
    assert evaluate_value(f"${{fs:exists('file://{root}/data/*.txt')}}", context) is True
    assert evaluate_value(f"${{fs:exists('{root}/data/nothing*')}}", context) is False
    assert evaluate_value(f"${{fs:isDir('{root}/data')}}", context) is True
    assert evaluate_value(f"${{fs:isDir('{root}/data/a.txt')}}", context) is False
    assert evaluate_value(f"${{fs:dirSize('{root}/data')}}", context) == 15  # direct files only
    assert evaluate_value(f"${{fs:dirSize('{root}/data/a.txt')}}", context) == -1
    assert evaluate_value(f"${{fs:fileSize('{root}/data/a.txt')}}", context) == 10
    assert evaluate_value(f"${{fs:fileSize('{root}/missing')}}", context) == -1
    assert evaluate_value(f"${{fs:blockSize('{root}/data/a.txt')}}", context) == LocalFileSystem.BLOCK_SIZE
    assert evaluate_value(f"${{fs:blockSize('{root}/missing')}}", context) == -1
    assert evaluate_value("${fs:fileSize(concat(wf:conf('root'), '/data/b.txt')) gt 4}", context) is True


def test_fs_needs_a_file_system_and_a_reachable_path(context: WorkflowContext) -> None:
    with pytest.raises(ELEvaluationError, match="need a file system"):
        evaluate_value("${fs:exists('/tmp')}", WorkflowContext())
    with pytest.raises(ELEvaluationError, match="not on the local file system") as raised:
        evaluate_value("${fs:exists('hdfs://nn/x')}", context)
    assert raised.value.position == 12  # the argument


@pytest.mark.parametrize(("text", "expected"), [
    ("${1 + 2 * 3}", 7),
    ("${(1 + 2) * 3}", 9),
    ("${7 / 2}", 3.5),
    ("${7 div 2}", 3.5),
    ("${-7 % 3}", -1),
    ("${7 mod 3}", 1),
    ("${7.5 % 2}", 1.5),
    ("${count + 1}", 6),
    ("${ratio * 2}", 1.0),
    ("${'3' + '4'}", 7),
    ("${null + 1}", 1),
    ("${1 / 0}", float("inf")),
    ("${2 * KB}", 2048),
    ("${1 * GB}", 1024**3),
    ("${limit > 2}", True),
    ("${count eq 5}", True),
    ("${count == '5'}", True),
    ("${count ne 5}", False),
    ("${ratio == 0.5}", True),
    ("${'abc' lt 'abd'}", True),
    ("${10 ge '9'}", True),
    ("${null lt 1}", False),
    ("${null == null}", True),
    ("${flag and true}", True),
    ("${flag && not false}", True),
    ("${false or ''}", False),
    ("${!true || true}", True),
    ("${empty wf:conf('missing')}", True),
    ("${empty ''}", True),
    ("${empty wf:actionData('probe')}", False),
    ("${not empty nameNode}", True),
    ("${count > 3 ? 'big' : 'small'}", "big"),
    ("${wf:conf('missing') == null ? wf:name() : 'x'}", "daily"),
    ("${true ? false ? 1 : 2 : 3}", 2),
    ("${-count}", -5),
    ("${- -1}", 1),
    ("${1e3}", 1000.0),
    ("${.5 + .25}", 0.75),
    ("${\"double \\\"quoted\\\"\"}", 'double "quoted"'),
    ("${'it\\'s'}", "it's"),
])
def test_operators_and_coercions(context: WorkflowContext, text: str, expected: object) -> None:
    assert evaluate_value(text, context) == expected


def test_texts_join_their_parts_as_strings(context: WorkflowContext) -> None:
    assert evaluate_text("${nameNode}/user/${wf:user()}/run-${wf:run()}", context) == "hdfs://nn:8020/user/etl/run-2"
    assert evaluate_text("ratio=${ratio * 1} big=${1e10 * 1} none=[${wf:conf('missing')}]", context) == \
        "ratio=0.5 big=1.0E10 none=[]"
    assert evaluate_text("no expressions, $ and { alone", context) == "no expressions, $ and { alone"
    assert evaluate_text("${1 + 1}${'}'}", context) == "2}"


def test_predicates(context: WorkflowContext) -> None:
    assert evaluate_predicate("\n  ${wf:actionData('probe')['ready'] eq 'yes'}\n  ", context) is True
    assert evaluate_predicate("${fs:fileSize(concat(root, '/data/a.txt')) gt 10 * KB}", context) is False
    assert evaluate_predicate("true", context) is True
    assert evaluate_predicate("${'TRUE'}", context) is True
    with pytest.raises(ELEvaluationError, match="true or false"):
        evaluate_predicate("${5}", context)


@pytest.mark.parametrize(("text", "message", "position"), [
    ("${a +}", "ends too early", 5),
    ("x ${", "not closed", 2),
    ("${'open}", "not closed", 0),
    ("${(1 + 2}", "expected ')'", 8),
    ("${wf:id(}", "ends too early", 8),
    ("${a ? b}", "expected ':'", 7),
    ("${}", "empty expression", 2),
    ("${1 # 2}", "unexpected character '#'", 4),
    ("${a b}", "unexpected 'b'", 4),
    ("${a.}", "property name", 4),
    ("${x instanceof y}", "not supported", 4),
    ("ok ${1} then ${2 +* 3}", "unexpected '*'", 18),
])
def test_syntax_errors_have_positions(text: str, message: str, position: int) -> None:
    problem = check_syntax(text)
    assert problem is not None and message in problem.message, problem
    assert problem.position == position
    with pytest.raises(ELSyntaxError):
        parse_template(text)


def test_valid_syntax() -> None:
    for text in ("${wf:conf('a') ?: 1}",):
        assert check_syntax(text) is not None
    for text in ("${a ? wf:id() : b}", "${x:y(1)}", "${m['k'].v[0]}", "plain", "${a.b.c}", "${empty x and not y}"):
        assert check_syntax(text) is None, text


@pytest.mark.parametrize(("text", "message", "position"), [
    ("${undefinedVar}", "variable [undefinedVar] cannot be resolved", 2),
    ("${wf:nope()}", "unknown function 'wf:nope'", 2),
    ("${wf:conf()}", "takes 1 argument(s)", 2),
    ("${1 + true}", "not a number", 4),  # the operator
    ("${'abc' * 2}", "not a number", 8),
    ("${5 % 0}", "division by zero", 4),
    ("${replaceAll('a', '(', 'b')}", "not a regular expression", 18),
    ("${replaceAll('a', 'a', '$2')}", "group 2", 23),
    ("${toJsonStr('not a map')}", "not a map", 12),
    ("${wf:name() < 1}", "not a number", 12),
])
def test_evaluation_errors_have_positions(context: WorkflowContext, text: str, message: str, position: int) -> None:
    with pytest.raises(ELEvaluationError) as raised:
        evaluate_value(text, context)
    assert message in raised.value.message
    assert raised.value.position == position


def test_extra_functions_can_be_registered(context: WorkflowContext) -> None:
    shout = ELFunction("demo:shout", ("string",), lambda c, text: text.upper() + "!", "louder")
    assert evaluate_value("${demo:shout(wf:user())}", context, functions={"demo:shout": shout}) == "ETL!"


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1.0"), (2.5, "2.5"), (1e10, "1.0E10"), (1.5e-5, "1.5E-5"), (0.001, "0.001"), (1234567.0, "1234567.0"),
    (12345678.0, "1.2345678E7"), (-0.25, "-0.25"), (0.0, "0.0"), (float("nan"), "NaN"), (float("-inf"), "-Infinity"),
])
def test_doubles_print_as_java(value: float, text: str) -> None:
    assert java_double(value) == text
