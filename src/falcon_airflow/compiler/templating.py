"""Entity text inside Airflow's templated fields: always data, never a template.

Airflow renders every templated field of a task (``application_args``, ``conf``, ``name``, ``markers`` ...) with
Jinja in the worker, where the context reaches connections (``conn``), variables (``var``) and the task itself. The
compiler writes Jinja of its own into those fields - calls of the ``macros.falcon`` functions that resolve EL and
feed instances per run - and next to it text that entity authors wrote: feed paths, datasource URLs and tables,
``<spark-opts>`` values, properties, names. That text must come out of the rendering exactly as written, so a
feed path holding ``{{ conn.db.password }}`` stays a (strange) path and never becomes the password.

Every templated value the compiler produces is built here, from two kinds of pieces:

* :func:`jinja` marks template text the compiler wrote itself; it goes in as it is;
* any other text is entity (or deployment) text and is escaped by :func:`literal`: when Jinja would read anything
  in it, it becomes a Jinja string literal (``{{ '...' }}``) whose value is the text, so rendering gives it back
  verbatim; text Jinja reads as plain data stays as it is, which keeps specs and golden files readable.

Inside an expression, entity text is passed as a string literal written by :func:`jinja_string`.

The escaped form is Jinja text, not a value: it is only right where the field is rendered once, as a string
(``render_template_as_native_obj`` off, as every DAG of ours has it), and a value escaped must never be escaped
again - :class:`JinjaText` lets the helpers here pass text they already produced through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_JINJA_STARTS = ("{{", "{%", "{#")
"""What opens a variable, a statement and a comment with Jinja's default delimiters (our DAGs keep them)."""


_ESCAPED = re.compile(r"\{\{ '((?:[^'\\]|\\.)*)' \}\}", re.DOTALL)
"""What :func:`literal` makes of text it escapes."""


class JinjaText(str):
    """Text that is already right for a templated field: template text the compiler wrote, or entity text
    escaped by :func:`literal`. The helpers here pass it through as it is."""

    __slots__ = ()


def jinja(text: str) -> JinjaText:
    """Mark ``text`` as template text the compiler generated (``{{ macros.falcon... }}``): never escaped."""
    return text if isinstance(text, JinjaText) else JinjaText(text)


def jinja_string(text: str) -> str:
    """A Jinja string literal whose value is ``text``, for an argument inside ``{{ ... }}``.

    Jinja reads a quoted string and decodes its backslash escapes with Python's ``unicode-escape`` codec, so the
    text encoded with that codec (every non-ASCII and control character escaped, backslashes doubled) with its
    single quotes escaped reads back exactly; the literal itself is plain ASCII and holds no delimiter Jinja
    would end the expression at (a ``}}`` inside quotes is part of the string)."""
    return "'" + text.encode("unicode_escape").decode("ascii").replace("'", "\\'") + "'"


def needs_escaping(text: str) -> bool:
    """Whether Jinja would not render ``text`` as itself: it opens a variable, statement or comment; it ends
    with ``{``, which would open one with whatever template text follows it; or it holds what Jinja changes in
    plain data (a carriage return becomes a newline, one trailing newline is dropped)."""
    return any(start in text for start in _JINJA_STARTS) or text.endswith(("{", "\n")) or "\r" in text


def literal(text: str) -> JinjaText:
    """``text`` as template text that renders to exactly ``text`` (text already escaped passes unchanged)."""
    if isinstance(text, JinjaText):
        return text
    if not needs_escaping(text):
        return JinjaText(text)
    return JinjaText("{{ " + jinja_string(text) + " }}")


def literal_text(template: str) -> str:
    """The text a value made by :func:`literal` renders to, without rendering it: for showing a templated spec
    field (the Spark application's name in an instance's mail) outside a task."""
    escaped = _ESCAPED.fullmatch(template)
    return escaped[1].encode("ascii").decode("unicode_escape") if escaped else template


def template_text(*pieces: str) -> JinjaText:
    """One templated value from pieces: :class:`JinjaText` as it is, any other text escaped by :func:`literal`.
    No piece ends with an open ``{`` (an escaped one ends with ``}}``), so joining them opens nothing new."""
    return JinjaText("".join(literal(piece) for piece in pieces))


def template_values(values: Iterable[str]) -> tuple[JinjaText, ...]:
    """A templated list (``application_args``): each item through :func:`literal`."""
    return tuple(literal(value) for value in values)


def template_conf(conf: Mapping[str, str]) -> dict[str, JinjaText]:
    """A templated mapping (Spark ``conf``, ``env_vars``): each value through :func:`literal`. Airflow renders
    the values only; the keys stay as they are."""
    return {key: literal(value) for key, value in conf.items()}


def optional_literal(text: str | None) -> JinjaText | None:
    """:func:`literal` of an optional setting (``--jars`` ...); ``None`` stays ``None``."""
    return None if text is None else literal(text)
