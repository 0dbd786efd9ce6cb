"""Reading untrusted XML: refused constructs, oversized and non-text files, encodings, well-formedness.

Every refusal must be an issue with rule ``XML`` (never an exception), and must not leak what a hostile document
tried to read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from lxml import etree

from falcon_airflow.issues import Level
from falcon_airflow.parsing import MAX_ENTITY_FILE_BYTES, ParsedFile, parse_bytes, parse_file
from falcon_airflow.parsing.secure import _hardened_parser

SECRET = "s3cr3t-falcon-airflow-do-not-leak-7f3a"

BILLION_LAUGHS = """\
<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<cluster name="lolz" colo="&lol9;" xmlns="uri:falcon:cluster:0.1"/>
"""


def only_issue(parsed: ParsedFile) -> tuple[str, str, int | None]:
    """(rule, message, line) of the single issue a refused file must have."""
    assert parsed.entity is None
    assert len(parsed.issues) == 1, parsed.issues
    issue = parsed.issues[0]
    assert issue.level is Level.ERROR
    return issue.rule, issue.message, issue.line


def xxe_document(secret_file: Path, *, in_attribute: bool) -> str:
    reference = "&leak;"
    colo = reference if in_attribute else "local"
    tags = "" if in_attribute else f"<tags>k={reference}</tags>"
    return textwrap.dedent(f"""\
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE cluster [
          <!ENTITY leak SYSTEM "{secret_file.as_uri()}">
        ]>
        <cluster name="xxe" colo="{colo}" xmlns="uri:falcon:cluster:0.1">{tags}</cluster>
        """)


# -- XXE and entity expansion --------------------------------------------------------------------------------


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(SECRET + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("in_attribute", [True, False], ids=["attribute", "element"])
def test_external_entity_is_refused_without_leaking_the_file(tmp_path: Path, secret_file: Path,
                                                             in_attribute: bool) -> None:
    path = tmp_path / "xxe.xml"
    path.write_text(xxe_document(secret_file, in_attribute=in_attribute), encoding="utf-8")

    parsed = parse_file(path)

    rule, message, line = only_issue(parsed)
    assert rule == "XML"
    assert line == 2  # the <!DOCTYPE
    assert "DOCTYPE" in message
    assert SECRET not in repr(parsed)  # the dataclass repr shows every field of every issue


def test_xinclude_is_not_processed(tmp_path: Path, secret_file: Path) -> None:
    document = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<cluster name="xi" colo="local" xmlns="uri:falcon:cluster:0.1" xmlns:xi="http://www.w3.org/2001/XInclude">\n'
        f'  <xi:include href="{secret_file.as_uri()}" parse="text"/>\n'
        "</cluster>\n"
    )

    parsed = parse_bytes(document.encode("utf-8"))

    assert parsed.entity is None
    assert {issue.rule for issue in parsed.issues} == {"XSD"}  # an element the schema does not know, nothing more
    assert SECRET not in repr(parsed)


def test_doctype_after_comments_and_declaration_is_found(secret_file: Path) -> None:
    document = xxe_document(secret_file, in_attribute=True).replace(
        "<!DOCTYPE", "<!-- licence -->\n<?processing instruction?>\n<!DOCTYPE", 1)

    rule, _, line = only_issue(parse_bytes(document.encode("utf-8")))

    assert rule == "XML"
    assert line == 4


def test_doctype_without_entities_is_refused_too() -> None:
    document = '<?xml version="1.0"?>\n<!DOCTYPE cluster SYSTEM "http://example.com/cluster.dtd">\n<cluster/>\n'

    rule, _, line = only_issue(parse_bytes(document.encode("utf-8")))

    assert (rule, line) == ("XML", 2)


def test_hardened_parser_does_not_resolve_external_entities_on_its_own(secret_file: Path) -> None:
    """Defence in depth: even if the DOCTYPE check were bypassed, lxml is configured not to read the file."""
    data = xxe_document(secret_file, in_attribute=False).encode("utf-8")

    root = etree.fromstring(data, _hardened_parser())

    assert SECRET.encode() not in etree.tostring(root)


def run_python(script: str, *args: str) -> str:
    """Run ``script`` in a fresh interpreter; a generous timeout only guards against a hang (no timing check)."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], capture_output=True, text=True,
                            timeout=10, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_billion_laughs_fails_fast_in_a_subprocess(tmp_path: Path) -> None:
    path = tmp_path / "lolz.xml"
    path.write_text(BILLION_LAUGHS, encoding="utf-8")

    output = run_python("""\
        import sys
        from falcon_airflow.parsing import parse_file
        parsed = parse_file(sys.argv[1])
        assert parsed.entity is None
        print(";".join(f"{issue.rule}:{issue.line}" for issue in parsed.issues))
        """, str(path))

    assert output == "XML:2"


def test_hardened_parser_does_not_expand_internal_entities(tmp_path: Path) -> None:
    """Defence in depth: lxml itself either refuses the expansion or leaves the reference unexpanded."""
    path = tmp_path / "lolz.xml"
    path.write_text(BILLION_LAUGHS.replace('colo="&lol9;"/>', 'colo="x">&lol9;</cluster>'), encoding="utf-8")
    path_in_attribute = tmp_path / "lolz-attribute.xml"
    path_in_attribute.write_text(BILLION_LAUGHS, encoding="utf-8")

    output = run_python("""\
        import sys
        from lxml import etree
        from falcon_airflow.parsing.secure import _hardened_parser
        for name in sys.argv[1:]:
            with open(name, "rb") as handle:
                data = handle.read()
            try:
                print(len(etree.tostring(etree.fromstring(data, _hardened_parser()))))
            except etree.XMLSyntaxError:
                print("refused")
        """, str(path), str(path_in_attribute))

    for outcome in output.split():
        assert outcome == "refused" or int(outcome) < 1000


# -- size ----------------------------------------------------------------------------------------------------


def test_file_above_the_size_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.xml"
    with open(path, "wb") as handle:  # sparse: no need to write megabytes
        handle.truncate(MAX_ENTITY_FILE_BYTES + 1)

    rule, message, line = only_issue(parse_file(path))

    assert rule == "XML"
    assert f"{MAX_ENTITY_FILE_BYTES:,}" in message
    assert f"{MAX_ENTITY_FILE_BYTES + 1:,}" in message
    assert line is None


def test_file_at_the_size_limit_is_read(tmp_path: Path) -> None:
    head = b'<?xml version="1.0" encoding="UTF-8"?>\n<!--'
    tail = b"-->\n<nothing/>\n"
    path = tmp_path / "big.xml"
    path.write_bytes(head + b" " * (MAX_ENTITY_FILE_BYTES - len(head) - len(tail)) + tail)
    assert path.stat().st_size == MAX_ENTITY_FILE_BYTES

    rule, message, _ = only_issue(parse_file(path))

    assert rule == "XSD"  # read and parsed; only its root is wrong
    assert "<nothing>" in message


def test_bytes_above_the_size_limit_are_refused() -> None:
    rule, message, _ = only_issue(parse_bytes(b" " * (MAX_ENTITY_FILE_BYTES + 1)))

    assert rule == "XML"
    assert "larger than" in message


# -- not text, not UTF-8 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected_words", "expected_line"),
    [
        pytest.param(bytes(range(256)) * 4, "binary content", 1, id="binary-garbage"),
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary content", 2, id="png-header"),
        pytest.param(b"<cluster>\n<a>\x00</a>\n</cluster>", "byte 0x00", 2, id="nul-inside-xml"),
        pytest.param(b"", "empty", None, id="empty"),
        pytest.param(b" \n\t\r\n   \n", "empty", None, id="whitespace-only"),
        pytest.param('<?xml version="1.0"?>\n<cluster name="café"/>\n'.encode("latin-1"), "not valid UTF-8", 2,
                     id="latin-1-bytes"),
        pytest.param('<?xml version="1.0" encoding="ISO-8859-1"?>\n\n<cluster name="café"/>'.encode("latin-1"),
                     "byte 0xe9", 3, id="latin-1-declared"),
        pytest.param(b'<cluster name="\xff\xfe"/>', "not valid UTF-8", 1, id="invalid-sequence"),
        pytest.param('<?xml version="1.0" encoding="UTF-16"?>\n<cluster/>'.encode("utf-16"), "UTF-16", 1,
                     id="utf-16-le-bom"),
        pytest.param(b"\xfe\xff" + '<cluster/>'.encode("utf-16-be"), "UTF-16", 1, id="utf-16-be-bom"),
        pytest.param(b"\xff\xfe\x00\x00" + '<cluster/>'.encode("utf-32-le"), "UTF-32", 1, id="utf-32-bom"),
        pytest.param(b'<?xml version="1.0" encoding="Shift_JIS"?>\n<cluster/>', "Shift_JIS", 1,
                     id="other-declared-encoding"),
    ],
)
def test_non_text_and_non_utf8_input_is_refused(tmp_path: Path, data: bytes, expected_words: str,
                                                expected_line: int | None) -> None:
    path = tmp_path / "entity.xml"
    path.write_bytes(data)

    rule, message, line = only_issue(parse_file(path, display="shown/entity.xml"))

    assert rule == "XML"
    assert expected_words in message
    assert line == expected_line
    assert parse_file(path, display="shown/entity.xml").issues[0].file == "shown/entity.xml"


def test_utf8_bom_and_ascii_compatible_declaration_are_accepted(documents: dict[str, str]) -> None:
    with_bom = b"\xef\xbb\xbf" + documents["cluster"].encode("utf-8")
    latin1_declared = documents["cluster"].replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').encode("ascii")

    for data in (with_bom, latin1_declared):
        parsed = parse_bytes(data)
        assert parsed.issues == ()
        assert parsed.entity is not None


def test_missing_file_and_folder_are_issues_not_exceptions(tmp_path: Path) -> None:
    assert only_issue(parse_file(tmp_path / "nowhere.xml"))[:2] == ("XML", "file does not exist")
    assert only_issue(parse_file(tmp_path))[:2] == ("XML", "not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.xml"
    os.mkfifo(pipe)  # opening it for reading would block until a writer comes

    assert only_issue(parse_file(pipe))[:2] == ("XML", "not a regular file")


# -- well-formedness -----------------------------------------------------------------------------------------


def test_not_well_formed_reports_the_line(line_of) -> None:
    document = textwrap.dedent("""\
        <?xml version="1.0" encoding="UTF-8"?>
        <cluster name="broken" colo="local" xmlns="uri:falcon:cluster:0.1">
            <interfaces>
                <interface type="write" endpoint="file:///tmp" version="1.0">
            </interfaces>
        </cluster>
        """)

    rule, message, line = only_issue(parse_bytes(document.encode("utf-8"), "broken.xml"))

    assert rule == "XML"
    assert message.startswith("not well-formed XML:")
    assert "mismatch" in message
    assert line == line_of(document, "</interfaces>")


def test_undefined_entity_reference_is_not_well_formed() -> None:
    rule, message, line = only_issue(parse_bytes(b'<?xml version="1.0"?>\n<cluster colo="&undefined;"/>'))

    assert (rule, line) == ("XML", 2)
    assert "undefined" in message


def test_text_after_the_root_is_not_well_formed() -> None:
    rule, _, line = only_issue(parse_bytes(b"<cluster/>\n\n# stray\n"))

    assert (rule, line) == ("XML", 3)
