"""The Oozie EL function library: ``wf:``, ``fs:``, ``hadoop:`` and the basic string functions.

Each function declares its parameter types; arguments are coerced to them as JSP EL coerces (a null string
argument becomes "", a string argument of a numeric parameter is parsed). Results are the values the action
sees after substitution: Oozie evaluates EL over the action's XML text and therefore XML-escapes what
``toJsonStr``, ``toPropertiesStr`` and ``toConfigurationStr`` return; here EL is evaluated on the values already
read from the XML, so they are returned unescaped (the same text reaches the action).

``wf:callback`` returns an empty string: there is no callback service (Airflow watches its own tasks), so an
action that hands the URL to an external system gets nothing to call. ``hadoop:counters`` returns an empty map:
actions run on Spark or locally, not as MapReduce jobs, so there are no Hadoop counters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal
from urllib.parse import quote_plus

from falcon_airflow.core.times import format_instant
from falcon_airflow.oozie.el.context import OozieFileSystem, WorkflowContext
from falcon_airflow.oozie.el.values import CoercionError, Value, describe, to_boolean, to_integer, to_text

ParameterType = Literal["string", "long", "int", "boolean", "object", "map"]
KB = 1024
CONSTANTS: Mapping[str, int] = {"KB": KB, "MB": KB**2, "GB": KB**3, "TB": KB**4, "PB": KB**5}


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as XML character entities (what ``xml.sax.saxutils.escape`` does; written here
    because importing that module imports urllib.request, HTTP and TLS, which every ``validate`` paid for)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class FunctionError(Exception):
    """A function that cannot give a value for these arguments; ``index`` names the argument at fault."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


@dataclass(frozen=True, slots=True)
class ELFunction:
    name: str  # qualified: "wf:id", "concat"
    parameters: tuple[ParameterType, ...]
    implementation: Callable[..., Value]
    summary: str

    @property
    def usage(self) -> str:
        return f"{self.name}({', '.join(self.parameters)})"

    def coerce(self, arguments: list[Value]) -> list[Value]:
        coerced: list[Value] = []
        for index, (kind, value) in enumerate(zip(self.parameters, arguments, strict=True)):
            try:
                coerced.append(_coerce(kind, value))
            except CoercionError as problem:
                raise FunctionError(f"argument {index + 1}: {problem}", index) from None
        return coerced


def _coerce(kind: ParameterType, value: Value) -> Value:
    if kind == "string":
        return to_text(value)
    if kind in ("long", "int"):
        return to_integer(value)
    if kind == "boolean":
        return to_boolean(value)
    if kind == "map":
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise CoercionError(f"{describe(value)} is not a map")
        return value
    return value


# -- wf: ------------------------------------------------------------------------------------------------------------


def _wf_conf(context: WorkflowContext, name: str) -> str | None:
    return context.conf.get(name)


def _wf_callback(context: WorkflowContext, state_variable: str) -> str:
    return ""


def _action_data(context: WorkflowContext, node: str) -> Mapping[str, str]:
    return dict(context.action(node).data)


# -- fs: ------------------------------------------------------------------------------------------------------------


def _fs(context: WorkflowContext) -> OozieFileSystem:
    if context.fs is None:
        raise FunctionError("fs: functions need a file system, and this evaluation has none")
    return context.fs


def _fs_call(method: str) -> Callable[[WorkflowContext, str], Value]:
    def call(context: WorkflowContext, path: str) -> Value:
        file_system = _fs(context)
        try:
            result: Value = getattr(file_system, method)(path)
        except (OSError, ValueError) as problem:
            raise FunctionError(f"cannot look at '{path}': {problem}", 0) from None
        return result

    return call


# -- basic functions --------------------------------------------------------------------------------------------------


def java_replacement(replacement: str) -> Callable[[re.Match[str]], str]:
    """Java's ``Matcher.replaceAll`` replacement syntax: ``$n`` and ``${name}`` are groups, ``\\x`` is ``x``."""

    def replace(match: re.Match[str]) -> str:
        out: list[str] = []
        index = 0
        while index < len(replacement):
            char = replacement[index]
            if char == "\\" and index + 1 < len(replacement):
                out.append(replacement[index + 1])
                index += 2
                continue
            if char == "$" and index + 1 < len(replacement):
                named = re.match(r"\{([A-Za-z][A-Za-z0-9]*)\}", replacement[index + 1:])
                if named:
                    out.append(match.group(named[1]) or "")
                    index += 1 + named.end()
                    continue
                digits = re.match(r"\d", replacement[index + 1:])
                if digits:
                    # Java takes as many digits as still name a group
                    number = int(digits[0])
                    length = 1
                    while (index + 1 + length < len(replacement) and replacement[index + 1 + length].isdigit()
                           and int(replacement[index + 1:index + 2 + length]) <= (match.re.groups or 0)):
                        number = int(replacement[index + 1:index + 2 + length])
                        length += 1
                    if number > (match.re.groups or 0):
                        raise FunctionError(f"replacement refers to group {number}, which the pattern lacks", 2)
                    out.append(match.group(number) or "")
                    index += 1 + length
                    continue
                raise FunctionError("illegal group reference in the replacement", 2)
            out.append(char)
            index += 1
        return "".join(out)

    return replace


def _compile(pattern: str, index: int) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as problem:
        raise FunctionError(f"'{pattern}' is not a regular expression: {problem}", index) from None


def _replace_all(context: WorkflowContext, source: str, pattern: str, replacement: str) -> str:
    return _compile(pattern, 1).sub(java_replacement(replacement), source)


def java_split(text: str, pattern: str) -> list[str]:
    """Java's ``String.split(regex)``: trailing empty strings are dropped; a zero-width match at the start adds
    no empty first item."""
    compiled = _compile(pattern, 2)
    pieces: list[str] = []
    start = 0
    for match in compiled.finditer(text):
        if match.end() == 0:  # zero-width match at the very start
            continue
        if match.start() == match.end() and match.start() >= len(text):
            break
        pieces.append(text[start:match.start()])
        start = match.end()
    pieces.append(text[start:])
    if not text:
        return [""]
    while pieces and pieces[-1] == "":
        pieces.pop()
    return pieces


def _append_all(context: WorkflowContext, source: str, append: str, delimiter: str) -> str:
    if not delimiter:
        return source
    pieces = java_split(source, delimiter)
    # join with the delimiter text itself, as Oozie does (it is usually a plain character such as ",")
    result = delimiter.join(piece + append for piece in pieces)
    if source.startswith(delimiter) and pieces and pieces[0] != "":
        result = append + result
    return result


def _trim(context: WorkflowContext, text: str) -> str:
    return text.strip()


def _url_encode(context: WorkflowContext, text: str) -> str:
    # Java's URLEncoder: letters, digits and . - * _ stay; a space is '+'; everything else is %XX of its UTF-8
    return quote_plus(text, safe="*").replace("~", "%7E")


def _timestamp(context: WorkflowContext) -> str:
    return format_instant(context.clock())


# Control characters both Java writers below spell with a backslash and a letter.
_LETTER_ESCAPES = {"\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_ESCAPES = {**_LETTER_ESCAPES, "\b": "\\b", '"': '\\"', "\\": "\\\\", "/": "\\/"}


def _json_string(text: str) -> str:
    """A JSON string as json-simple writes it: it also escapes '/' and control characters."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[char])
        elif code < 0x20 or 0x7F <= code <= 0x9F or 0x2000 <= code <= 0x20FF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _to_json(context: WorkflowContext, value: Mapping[object, object]) -> str:
    items = []
    for key, item in value.items():
        shown = "null" if item is None else _json_string(to_text(item)) if isinstance(item, str) else json.dumps(item)
        items.append(f"{_json_string(to_text(key))}:{shown}")
    return "{" + ",".join(items) + "}"


def _properties_escape(text: str, *, key: bool) -> str:
    """``java.util.Properties.store`` escaping (written to a Writer, so non-ASCII stays as it is)."""
    out: list[str] = []
    for index, char in enumerate(text):
        if char == " " and (key or index == 0):
            out.append("\\ ")
        elif char in "\\=:#!":
            out.append("\\" + char)
        else:
            out.append(_LETTER_ESCAPES.get(char, char))
    return "".join(out)


def _java_date(moment: datetime) -> str:
    """``java.util.Date.toString()`` in UTC: ``Tue Nov 24 21:58:28 UTC 2026``."""
    return moment.astimezone(UTC).strftime("%a %b %d %H:%M:%S UTC %Y")


def _to_properties(context: WorkflowContext, value: Mapping[object, object]) -> str:
    lines = ["#", "#" + _java_date(context.clock())]
    for key, item in value.items():
        lines.append(f"{_properties_escape(to_text(key), key=True)}={_properties_escape(to_text(item), key=False)}")
    return "\n".join(lines) + "\n"


def _to_configuration(context: WorkflowContext, value: Mapping[object, object]) -> str:
    # the layout of Oozie's pretty-printed configuration: two-space indent, CRLF line ends, no XML declaration
    lines = ["<configuration>"]
    for key, item in value.items():
        lines += ["  <property>", f"    <name>{escape(to_text(key).strip())}</name>",
                  f"    <value>{escape(to_text(item).strip())}</value>", "  </property>"]
    lines.append("</configuration>")
    return "\r\n".join(lines)


def _first_not_null(context: WorkflowContext, first: Value, second: Value) -> Value:
    return first if first is not None else second


def _concat(context: WorkflowContext, first: str, second: str) -> str:
    return first + second


def _counters(context: WorkflowContext, node: str) -> Mapping[str, Mapping[str, int]]:
    return {}


def _registry(*functions: ELFunction) -> dict[str, ELFunction]:
    return {function.name: function for function in functions}


FUNCTIONS: Mapping[str, ELFunction] = _registry(
    ELFunction("wf:id", (), lambda c: c.id, "the workflow job's id"),
    ELFunction("wf:name", (), lambda c: c.name, "the workflow application's name"),
    ELFunction("wf:appPath", (), lambda c: c.app_path, "the workflow application's path"),
    ELFunction("wf:conf", ("string",), _wf_conf, "a property of the job configuration (null when unset)"),
    ELFunction("wf:user", (), lambda c: c.user, "the user the job runs as"),
    ELFunction("wf:group", (), lambda c: c.group, "the group of the job"),
    ELFunction("wf:callback", ("string",), _wf_callback, "no callback service here: an empty string"),
    ELFunction("wf:transition", ("string",), lambda c, n: c.action(n).transition,
               "the node the given action went to"),
    ELFunction("wf:lastErrorNode", (), lambda c: c.last_error_node, "the last action that ended in error"),
    ELFunction("wf:errorCode", ("string",), lambda c, n: c.action(n).error_code, "the given action's error code"),
    ELFunction("wf:errorMessage", ("string",), lambda c, n: c.action(n).error_message,
               "the given action's error message"),
    ELFunction("wf:run", (), lambda c: c.run, "the run number of the job (0 for the first run)"),
    ELFunction("wf:actionData", ("string",), _action_data, "the properties the given action's output captured"),
    ELFunction("wf:actionExternalId", ("string",), lambda c, n: c.action(n).external_id,
               "the external id of the given action"),
    ELFunction("wf:actionTrackerUri", ("string",), lambda c, n: c.action(n).tracker_uri,
               "where the given action can be watched"),
    ELFunction("wf:actionExternalStatus", ("string",), lambda c, n: c.action(n).external_status,
               "the external status of the given action"),
    ELFunction("fs:exists", ("string",), _fs_call("exists"), "whether the path (or glob) exists"),
    ELFunction("fs:isDir", ("string",), _fs_call("is_dir"), "whether the path is a folder"),
    ELFunction("fs:dirSize", ("string",), _fs_call("dir_size"),
               "bytes in the files directly in the folder (-1: not a folder)"),
    ELFunction("fs:fileSize", ("string",), _fs_call("file_size"), "bytes of the file (-1: missing)"),
    ELFunction("fs:blockSize", ("string",), _fs_call("block_size"), "block size of the file (-1: missing)"),
    ELFunction("hadoop:counters", ("string",), _counters, "Hadoop counters of the action: none here"),
    ELFunction("firstNotNull", ("object", "object"), _first_not_null, "the first argument that is not null"),
    ELFunction("concat", ("string", "string"), _concat, "the two strings joined"),
    ELFunction("replaceAll", ("string", "string", "string"), _replace_all,
               "every match of the Java regular expression replaced"),
    ELFunction("appendAll", ("string", "string", "string"), _append_all,
               "the text appended to every item of a delimited list"),
    ELFunction("trim", ("string",), _trim, "the string without leading and trailing white space"),
    ELFunction("urlEncode", ("string",), _url_encode, "the string URL-encoded (UTF-8)"),
    ELFunction("timestamp", (), _timestamp, "the current UTC time, yyyy-MM-ddTHH:mmZ"),
    ELFunction("toJsonStr", ("map",), _to_json, "a map as a JSON object"),
    ELFunction("toPropertiesStr", ("map",), _to_properties, "a map as Java properties text"),
    ELFunction("toConfigurationStr", ("map",), _to_configuration, "a map as Hadoop configuration XML"),
)
