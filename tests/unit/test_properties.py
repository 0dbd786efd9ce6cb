"""Java properties texts, read as ``java.util.Properties.load`` reads them (extension jobs, REST bodies, the output
an Oozie shell action captures)."""

from __future__ import annotations

import pytest

from falcon_airflow.properties import parse_properties, read_properties


def test_java_properties_syntax() -> None:
    text = "! comment\n  a = 1\nb:2\nc 3\nd=one\\\n  two\ne=\\u0041\\tB\nf=ends\\\\\n"
    assert read_properties(text) == [("a", "1", 2), ("b", "2", 3), ("c", "3", 4), ("d", "onetwo", 5),
                                     ("e", "A\tB", 7), ("f", "ends\\", 8)]


def test_java_properties_rules() -> None:
    text = "# comment\n! also\n  a=1\nb : two words\nc three\nd=line\\\n    continued\ne=tab\\there\nf=\\u00e9\n"
    assert parse_properties(text) == {"a": "1", "b": "two words", "c": "three", "d": "linecontinued",
                                      "e": "tab\there", "f": "é"}
    assert parse_properties("key\\=with\\:colon=value\nempty=\n") == {"key=with:colon": "value", "empty": ""}


def test_a_key_given_twice_keeps_its_last_value() -> None:
    assert parse_properties("a=1\nb=2\na=3\n") == {"a": "3", "b": "2"}


def test_a_continuation_at_the_end_of_the_text_ends_the_value() -> None:
    assert read_properties("a=one\\") == [("a", "one", 1)]


@pytest.mark.parametrize(("escaped", "value"), [
    ("\\u00E9", "é"),
    ("\\u00e", "u00e"),         # fewer than four hex digits: not a code point
    ("\\u+0e9", "u+0e9"),       # only hex digits make one, whatever int() would read
    ("\\u 0e9", "u 0e9"),
    ("\\u0x1f", "u0x1f"),
    ("\\u٠٠e9", "u٠٠e9"),
])
def test_unicode_escapes_are_four_hex_digits(escaped: str, value: str) -> None:
    assert parse_properties(f"k={escaped}") == {"k": value}
