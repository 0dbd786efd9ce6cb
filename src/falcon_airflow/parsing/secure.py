"""Reading untrusted XML safely.

Entity files come from users' repositories, so the reader assumes the worst:

* files above :data:`MAX_ENTITY_FILE_BYTES` are refused before they are read (Falcon entities are a few KB; the
  largest real ones are tens of KB, so 4 MiB leaves room for generated entities while keeping memory bounded);
* the bytes must be text: no NUL or other control bytes, valid UTF-8 (an ASCII-only file may declare any
  ASCII-compatible encoding);
* a document type declaration is refused outright, before the XML parser sees it: it is the only way to declare
  entities, so external entities (XXE) and entity expansion ("billion laughs") cannot happen;
* the parser itself is configured defensively too: no DTD loading, no entity resolution, no network, no huge trees.

Every refusal is an :class:`~falcon_airflow.issues.Issue` with rule ``XML`` and a line number where one applies.
"""

from __future__ import annotations

import os
import re
import stat
import threading
from dataclasses import dataclass
from typing import cast

from lxml import etree

from falcon_airflow.issues import Issue, Level

MAX_ENTITY_FILE_BYTES = 4 * 1024 * 1024

_UTF8_BOM = b"\xef\xbb\xbf"
_WIDE_BOMS = {
    b"\xff\xfe\x00\x00": "UTF-32",
    b"\x00\x00\xfe\xff": "UTF-32",
    b"\xff\xfe": "UTF-16",
    b"\xfe\xff": "UTF-16",
}
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NOT_CONTROL = bytes(byte for byte in range(256) if not _CONTROL_BYTES.fullmatch(bytes([byte])))
_DECLARED_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._\-]+)["']""")
_ALWAYS_FINE_ENCODINGS = {"utf8", "usascii", "ascii"}
_ASCII_COMPATIBLE_ENCODINGS = {"iso88591", "latin1", "iso885915", "windows1252", "cp1252"}
_PROLOG_ITEM = re.compile(rb"\s*(?:<\?.*?\?>|<!--.*?-->)", re.DOTALL)
_SPACES = re.compile(rb"[ \t\n\r\x0b\x0c]*")  # the bytes bytes.strip() takes for whitespace


@dataclass(frozen=True, slots=True)
class LoadedXml:
    root: etree._Element | None
    issues: tuple[Issue, ...]


def _xml_issue(display: str, message: str, line: int | None = None) -> Issue:
    return Issue(Level.ERROR, "XML", message, file=display, line=line)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_limited(path: str | os.PathLike[str], display: str) -> tuple[bytes | None, Issue | None]:
    """The file's bytes, or an issue when it is missing, not a file, or too large (checked before reading)."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None, _xml_issue(display, "file does not exist")
    except OSError as error:
        return None, _xml_issue(display, f"cannot read file: {error.strerror}")
    if not stat.S_ISREG(status.st_mode):  # what os.path.isfile asks, from the status already read
        return None, _xml_issue(display, "not a regular file")
    if status.st_size > MAX_ENTITY_FILE_BYTES:
        return None, _xml_issue(
            display,
            f"file is {status.st_size:,} bytes; entity files are limited to {MAX_ENTITY_FILE_BYTES:,} bytes",
        )
    try:
        # Asked for the size just read (and one byte more, to see growth): asking for the limit allocated a 4 MiB
        # buffer per file, which slowed reading a large estate by half. A plain descriptor, not a buffered file
        # object: the bytes are read once, whole, and the file object cost more than the read.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            data = _read_up_to(descriptor, status.st_size + 1)
            if len(data) > status.st_size:  # it grew since: read on as far as the limit allows
                data += _read_up_to(descriptor, MAX_ENTITY_FILE_BYTES + 1 - len(data))
        finally:
            os.close(descriptor)
    except OSError as error:
        return None, _xml_issue(display, f"cannot read file: {error.strerror}")
    if len(data) > MAX_ENTITY_FILE_BYTES:  # grew while we looked
        return None, _xml_issue(display, f"file is larger than {MAX_ENTITY_FILE_BYTES:,} bytes")
    return data, None


def _read_up_to(descriptor: int, size: int) -> bytes:
    """Up to ``size`` bytes, fewer only at the end of the file (a read may return less than asked)."""
    data = os.read(descriptor, size)
    while 0 < len(data) < size:
        more = os.read(descriptor, size - len(data))
        if not more:
            break
        data += more
    return data


def check_text(data: bytes, display: str) -> Issue | None:
    """Refuse what is not UTF-8 XML text: empty, binary, other encodings, invalid byte sequences."""
    if not data or data.isspace():  # what data.strip() being empty says, without copying the file
        return _xml_issue(display, "file is empty; expected a Falcon entity XML document")
    for bom, name in _WIDE_BOMS.items():
        if data.startswith(bom):
            return _xml_issue(display, f"file is encoded as {name}; entity files must be UTF-8", 1)
    body = data[len(_UTF8_BOM) :] if data.startswith(_UTF8_BOM) else data
    # translate() keeps only the control bytes, at C speed; the regex finds the first one only when there is one
    control = _CONTROL_BYTES.search(body) if body.translate(None, _NOT_CONTROL) else None
    if control:
        byte = control.group()[0]
        return _xml_issue(
            display,
            f"binary content (byte 0x{byte:02x}); expected a Falcon entity XML text file",
            _line_of(body, control.start()),
        )
    pure_ascii = body.isascii()
    try:
        if not pure_ascii:  # ASCII is UTF-8 already: only other bytes need the (copying) decode to be checked
            body.decode("utf-8")
    except UnicodeDecodeError as error:
        return _xml_issue(
            display,
            f"not valid UTF-8 (byte 0x{body[error.start]:02x}); entity files must be UTF-8",
            _line_of(body, error.start),
        )
    declared = _DECLARED_ENCODING.match(body)
    if declared:
        name = re.sub(r"[^a-z0-9]", "", declared.group(1).decode("ascii").lower())
        if name not in _ALWAYS_FINE_ENCODINGS and not (pure_ascii and name in _ASCII_COMPATIBLE_ENCODINGS):
            return _xml_issue(
                display,
                f"declares encoding '{declared.group(1).decode('ascii')}'; entity files must be UTF-8",
                1,
            )
    return None


def find_doctype(data: bytes) -> int | None:
    """Line of a ``<!DOCTYPE`` in the prolog (before the root element), if there is one."""
    position = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    while True:
        item = _PROLOG_ITEM.match(data, position)
        if item is None:
            break
        position = item.end()
    spaces = _SPACES.match(data, position)  # what lstrip() would skip, without copying the rest (always matches)
    start = spaces.end() if spaces is not None else position
    if data[start:start + 9].upper() == b"<!DOCTYPE":
        return _line_of(data, start)
    return None


def source_line(element: etree._Element) -> int | None:
    """The line of ``element`` in its document, or None when lxml does not know it.

    lxml-stubs declares ``sourceline`` without a type (``sourceline = ...``); lxml gives an ``int`` or ``None``.
    """
    return cast("int | None", element.sourceline)


def _hardened_parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        dtd_validation=False,
        no_network=True,
        huge_tree=False,
        collect_ids=False,
    )


_PARSERS = threading.local()


def _thread_parser() -> etree.XMLParser:
    """This thread's hardened parser, made once: a parser per document cost a sixth of reading a large estate
    (lxml parsers may parse one document after another, but not in two threads at once)."""
    parser: etree.XMLParser | None = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = _hardened_parser()
    return parser


def parse_xml_bytes(data: bytes, display: str) -> LoadedXml:
    """Parse checked bytes into an element tree, refusing DTDs; never raises for bad input."""
    text_issue = check_text(data, display)
    if text_issue:
        return LoadedXml(None, (text_issue,))
    doctype_line = find_doctype(data)
    if doctype_line is not None:
        return LoadedXml(
            None,
            (
                _xml_issue(
                    display,
                    "DOCTYPE declarations are refused: they can define entities that read other files "
                    "or expand without bound; remove the <!DOCTYPE ...> block",
                    doctype_line,
                ),
            ),
        )
    try:
        root = etree.fromstring(data, _thread_parser())
    except etree.XMLSyntaxError as error:
        message = str(error.msg or error).strip()
        message = re.sub(r",? line \d+, column \d+$", "", message)
        return LoadedXml(None, (_xml_issue(display, f"not well-formed XML: {message}", error.lineno or None),))
    if root.getroottree().docinfo.internalDTD is not None:  # defence in depth; find_doctype catches it first
        return LoadedXml(None, (_xml_issue(display, "DOCTYPE declarations are refused", 1),))
    return LoadedXml(root, ())


def load_xml_file(path: str | os.PathLike[str], display: str) -> LoadedXml:
    data, issue = read_limited(path, display)
    if issue is not None or data is None:
        return LoadedXml(None, (issue,) if issue else ())
    return parse_xml_bytes(data, display)
