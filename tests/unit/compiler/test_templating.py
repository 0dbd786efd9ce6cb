"""Entity text inside templated fields: escaped so that Airflow's Jinja gives it back verbatim, joined with the
compiler's own template text without opening anything new, escaped once only."""

from __future__ import annotations

import jinja2
import pytest

from falcon_airflow.compiler.templating import (
    JinjaText,
    jinja,
    jinja_string,
    literal,
    literal_text,
    needs_escaping,
    template_conf,
    template_text,
    template_values,
)

HOSTILE = [
    "{{ conn.x.password }}",
    "{% for c in range(3) %}{{ c }}{% endfor %}",
    "{# gone #}",
    "{{ ''.__class__ }}",
    "{%- raw -%}{{ x }}{% endraw %}",
    "a'b\"c\\d{{ 1 }}",
    "x }}'{{ 'y",
    "ends with an open brace {",
    "line\r\nbreak",
    "trailing newline\n",
    "\u00e9\u20ac\U0001f600\x00\u2028 {{ x }}",
]
"""Text Jinja would not give back as written: blocks, comments, quotes and backslashes, a brace that opens a block
with what follows, newlines Jinja rewrites, characters outside ASCII."""

PLAIN = ["/data/${YEAR}/${MONTH}", "a}b}}", "100%", "#tag", "{ x }", "spark.executor.memory=2g", ""]
"""Text Jinja reads as plain data: left as it is, so specs stay readable."""


def render(text: str) -> str:
    """Render as Airflow renders a task's templated field (its sandboxed environment, strict undefined)."""
    from airflow.sdk.definitions._internal.templater import SandboxedEnvironment

    environment = SandboxedEnvironment(undefined=jinja2.StrictUndefined, extensions=["jinja2.ext.do"], cache_size=0)
    return environment.from_string(text).render()


@pytest.mark.parametrize("text", HOSTILE + PLAIN)
def test_a_literal_renders_as_the_text(text: str) -> None:
    assert render(literal(text)) == text
    assert render("{{ " + jinja_string(text) + " }}") == text


@pytest.mark.parametrize("text", HOSTILE + PLAIN)
def test_an_escaped_value_reads_back_without_rendering(text: str) -> None:
    assert literal_text(literal(text)) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_text_jinja_would_read_is_escaped(text: str) -> None:
    assert needs_escaping(text)
    escaped = literal(text)
    assert escaped != text and escaped.startswith("{{ '") and escaped.endswith("' }}") and escaped.isascii()


@pytest.mark.parametrize("text", PLAIN)
def test_plain_text_stays_as_it_is(text: str) -> None:
    assert not needs_escaping(text)
    assert literal(text) == text


@pytest.mark.parametrize("text", HOSTILE + PLAIN)
def test_escaping_happens_once(text: str) -> None:
    once = literal(text)
    assert isinstance(once, JinjaText)
    assert literal(once) is once
    assert template_values([once]) == (once,) and template_conf({"k": once}) == {"k": once}
    assert render(template_text(once, jinja("{{ 'x' }}"))) == text + "x"


@pytest.mark.parametrize("text", HOSTILE + PLAIN)
def test_pieces_join_without_opening_a_block(text: str) -> None:
    template = template_text(text, jinja("{{ 'made' }}"), text[::-1], "{", jinja("{{ 'by us' }}"))
    assert render(template) == text + "made" + text[::-1] + "{" + "by us"


@pytest.mark.parametrize("text", HOSTILE)
def test_generated_template_text_is_never_escaped(text: str) -> None:
    made = jinja("{{ " + jinja_string(text) + " | upper }}")
    assert render(template_values([made])[0]) == text.upper()
    assert render(template_conf({"key": made})["key"]) == text.upper()
