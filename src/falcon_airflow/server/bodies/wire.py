"""The three ways Falcon's server wrote a result, from one element tree.

Falcon's REST resources returned JAXB objects and Jersey 1.9 wrote them. Whatever the class, the bytes on the wire
follow from the XML infoset JAXB produces for it, so every body here first becomes a :class:`Node` tree (the
elements JAXB would write, in its order) and one of three writers turns the tree into bytes:

* :func:`to_xml` - JAXB's marshaller writing to Jersey's output stream: a ``standalone="yes"`` declaration, no
  namespace, no indentation, an empty element as ``<name/>``; ``&``, ``<``, ``>`` and ``"`` escaped, a carriage
  return as ``&#xD;``, tab and line feed as they are. (JAXB 2.2.3's stream output escapes ``"`` in text too; its
  ``Writer`` output, which Jersey did not use, leaves it.)
* :func:`to_natural_json` - Jersey's *natural* JSON notation, which Falcon's ``JAXBContextResolver`` chose for a few
  classes (``APIResult`` itself, ``InstancesResult``, ``InstancesSummaryResult``, ``InstanceDependencyResult``,
  ``TriageResult``): the root element is dropped, a collection property is always a JSON array, an ``int`` is a
  number, an empty element is ``null``; repeated elements JAXB did not know as a collection (the entries of a
  ``Map``) each keep their own key, so the object repeats it.
* :func:`to_mapped_json` - Jersey's default *mapped* notation, used for every other class (``EntityList``,
  ``EntitySummaryResult``, ``FeedInstanceResult``, ``FeedLookupResult``, the admin property list ...): the root is
  dropped, every value is a string (numbers too), repeated elements become an array only when there are two or
  more, and an empty element is ``null`` - the whole body too when the root has no child (an empty property list).

:func:`to_jettison_json` writes the hand-built JSON objects of the metadata and extension resources (Jettison 1.3's
``JSONObject``: keys in insertion order, ``/`` escaped as ``\\/``).

Nothing here imports more than the standard library: the plugin that serves these bodies loads in every Airflow
component.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'


class Node(NamedTuple):
    """One element as JAXB writes it.

    ``text`` is the character content of a leaf (``None``: no content at all, which is not the same as ``""``);
    ``children`` the child elements of a complex one. ``many`` marks an item of a collection property (an array or
    a list field) and ``number`` a numeric leaf: only the natural JSON notation looks at them.

    A named tuple, not a frozen dataclass: an answer of a thousand instances is some hundred thousand nodes, and a
    tuple is made several times faster.
    """

    name: str
    text: str | None = None
    children: tuple[Node, ...] = ()
    many: bool = False
    number: bool = False


# -- building nodes -------------------------------------------------------------------------------------------------

def leaf(name: str, value: str | None) -> tuple[Node, ...]:
    """A string field: absent when ``None`` (JAXB leaves out a null reference), present when ``""``."""
    return () if value is None else (Node(name, value),)


def number(name: str, value: int) -> tuple[Node, ...]:
    """A primitive ``int``/``long`` field: always written, ``0`` included."""
    return (Node(name, str(int(value)), number=True),)


def date(name: str, value: datetime | None) -> tuple[Node, ...]:
    """A ``java.util.Date`` field, as ``xsd:dateTime`` (see :func:`xsd_datetime`)."""
    return () if value is None else (Node(name, xsd_datetime(value)),)


def strings(name: str, values: Sequence[str] | None) -> tuple[Node, ...]:
    """An unwrapped ``String[]`` field: one element per item, none for a null or empty array."""
    return tuple(Node(name, value, many=True) for value in values or ())


def wrapped(wrapper: str, item: str, values: Sequence[str] | None) -> tuple[Node, ...]:
    """A ``List<String>`` under ``@XmlElementWrapper``: absent when null, an empty ``<wrapper/>`` when empty."""
    if values is None:
        return ()
    return (Node(wrapper, children=tuple(Node(item, value, many=True) for value in values)),)


def objects(name: str, items: Iterable[tuple[Node, ...]]) -> tuple[Node, ...]:
    """An array (or list) of objects: one element ``name`` per item, holding the item's child elements."""
    return tuple(Node(name, children=children, many=True) for children in items)


def xsd_datetime(moment: datetime) -> str:
    """A ``java.util.Date`` as JAXB printed it, on a server whose time zone is UTC: ``2026-03-01T05:00:30Z``, with
    milliseconds (always three digits) only when there are any: ``2026-03-01T05:00:30.120Z``.

    A naive datetime is taken as UTC."""
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    text = f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
    millis = utc.microsecond // 1000
    if millis:
        text += f".{millis:03d}"
    return text + "Z"


# -- XML ------------------------------------------------------------------------------------------------------------

def _xml_char_allowed(code: int) -> bool:
    return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000


_XML_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#xD;"}


def xml_text(value: str) -> str:
    """Character content as JAXB escaped it for an output stream. JAXB also wrote characters XML forbids (``\\x01``)
    as they were, which made the document unreadable to every parser; they are left out here."""
    return "".join(_XML_ESCAPES.get(char, char) for char in value if _xml_char_allowed(ord(char)))


def _write_xml(node: Node, out: list[str]) -> None:
    if node.children:
        out.append(f"<{node.name}>")
        for child in node.children:
            _write_xml(child, out)
        out.append(f"</{node.name}>")
    elif node.text is None:
        out.append(f"<{node.name}/>")
    else:
        out.append(f"<{node.name}>{xml_text(node.text)}</{node.name}>")


def to_xml(root: Node) -> bytes:
    """The XML document of ``root``, UTF-8, as Jersey's JAXB writer sent it (no line break after the declaration,
    none at the end)."""
    out = [XML_DECLARATION]
    _write_xml(root, out)
    return "".join(out).encode("utf-8")


# -- JSON -----------------------------------------------------------------------------------------------------------

_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


_ESCAPED = re.compile(r'[\x00-\x1f"\\]')
_ESCAPED_WITH_SLASH = re.compile(r'[\x00-\x1f"\\/]')


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char in _JSON_ESCAPES:
        return _JSON_ESCAPES[char]
    return "\\/" if char == "/" else f"\\u{ord(char):04X}"


def json_string(value: str, *, escape_slash: bool = False) -> str:
    """A JSON string as Jersey's writers produced it: ``"``, ``\\`` and control characters escaped (``\\u001F``,
    upper-case hex), everything else - ``/`` and non-ASCII included - as it is. Jettison also escaped ``/``."""
    return '"' + (_ESCAPED_WITH_SLASH if escape_slash else _ESCAPED).sub(_escape, value) + '"'


def _groups(children: Sequence[Node]) -> Iterator[list[Node]]:
    """Runs of consecutive children with the same name (JAXB writes the items of one property together)."""
    run: list[Node] = []
    for child in children:
        if run and run[0].name != child.name:
            yield run
            run = []
        run.append(child)
    if run:
        yield run


def _natural_value(node: Node) -> str:
    if node.children:
        return _natural_object(node.children)
    if node.text is None:
        return "null"
    if node.number:
        return node.text
    return json_string(node.text)


def _natural_object(children: Sequence[Node]) -> str:
    members: list[str] = []
    for run in _groups(children):
        key = json_string(run[0].name)
        if run[0].many:
            members.append(f"{key}:[{','.join(_natural_value(item) for item in run)}]")
        else:  # one element, or repeated elements JAXB did not describe as a collection: one key each
            members.extend(f"{key}:{_natural_value(item)}" for item in run)
    return "{" + ",".join(members) + "}"


def to_natural_json(root: Node) -> bytes:
    """Jersey's natural notation of ``root`` with the root element unwrapped; a root with no child elements is
    ``null``, as any empty element."""
    return (_natural_object(root.children) if root.children else "null").encode("utf-8")


def _mapped_value(node: Node) -> str:
    if node.children:
        return _mapped_object(node.children)
    if node.text is None:
        return "null"
    return json_string(node.text)


def _mapped_object(children: Sequence[Node]) -> str:
    members: list[str] = []
    for run in _groups(children):
        key = json_string(run[0].name)
        if len(run) > 1:
            members.append(f"{key}:[{','.join(_mapped_value(item) for item in run)}]")
        else:
            members.append(f"{key}:{_mapped_value(run[0])}")
    return "{" + ",".join(members) + "}"


def to_mapped_json(root: Node) -> bytes:
    """Jersey's default (mapped) notation of ``root`` with the root element unwrapped; a root with no child
    elements (an empty property list, an empty lineage graph) is ``null``."""
    return (_mapped_object(root.children) if root.children else "null").encode("utf-8")


def _jettison(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json_string(value, escape_slash=True)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{json_string(str(key), escape_slash=True)}:{_jettison(item)}"
                              for key, item in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ",".join(_jettison(item) for item in value) + "]"
    raise TypeError(f"no JSON form for {type(value).__name__}")


def to_jettison_json(value: Mapping[str, Any]) -> bytes:
    """A JSON object written as Jettison's ``JSONObject.toString()``: members in insertion order, no spaces."""
    return _jettison(value).encode("utf-8")
