"""Root identification and XSD validation: each problem is an ``XSD`` issue on the line of the offending element."""

from __future__ import annotations

import pytest

from falcon_airflow.entities import EntityType
from falcon_airflow.issues import Issue, Level
from falcon_airflow.parsing import ParsedFile, parse_bytes


def parse(text: str, display: str = "entity.xml") -> ParsedFile:
    return parse_bytes(text.encode("utf-8"), display)


def errors_of(parsed: ParsedFile) -> list[Issue]:
    assert parsed.entity is None, "an invalid document must not produce an entity"
    assert parsed.issues, "an invalid document must say why"
    assert all(issue.level is Level.ERROR for issue in parsed.issues)
    return list(parsed.issues)


@pytest.mark.parametrize("kind", ["cluster", "feed", "process", "datasource"])
def test_every_valid_document_parses_without_issues(documents: dict[str, str], kind: str) -> None:
    parsed = parse(documents[kind])

    assert parsed.issues == ()
    assert parsed.entity is not None
    assert parsed.entity_type is EntityType(kind)
    assert parsed.entity.entity_type is EntityType(kind)
    assert parsed.entity_name == parsed.entity.name


# -- roots ---------------------------------------------------------------------------------------------------


def test_wrong_root_element_is_refused() -> None:
    text = '<?xml version="1.0"?>\n<pipeline name="p" xmlns="uri:falcon:process:0.1"/>\n'

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert issue.line == 2
    assert "<pipeline>" in issue.message
    assert "not a Falcon entity" in issue.message
    assert issue.entity == "p"


def test_wrong_namespace_is_refused(documents: dict[str, str]) -> None:
    text = documents["feed"].replace('xmlns="uri:falcon:feed:0.1"', 'xmlns="uri:falcon:process:0.1"')

    parsed = parse(text)
    [issue] = errors_of(parsed)

    assert issue.rule == "XSD"
    assert issue.line == 2
    assert "uri:falcon:process:0.1" in issue.message
    assert "it must be in uri:falcon:feed:0.1" in issue.message
    assert parsed.entity_type is None


def test_future_version_of_the_namespace_is_refused(documents: dict[str, str]) -> None:
    text = documents["cluster"].replace("uri:falcon:cluster:0.1", "uri:falcon:cluster:0.2")

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert "uri:falcon:cluster:0.2" in issue.message


def test_right_name_without_namespace_is_refused(documents: dict[str, str]) -> None:
    text = documents["process"].replace(' xmlns="uri:falcon:process:0.1"', "")

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert "<process> has no namespace" in issue.message


def test_legacy_capitalised_process_without_namespace_is_refused() -> None:
    """Falcon's own test corpus has a ``<Process>`` from before the namespaced schema."""
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!-- legacy -->\n'
        '<Process name="sample">\n'
        '    <clusters><cluster name="testCluster"/></clusters>\n'
        '    <concurrency>1</concurrency>\n'
        '    <periodicity>hourly</periodicity>\n'
        "</Process>\n"
    )

    parsed = parse(text)
    [issue] = errors_of(parsed)

    assert issue.rule == "XSD"
    assert issue.line == 3
    assert "<Process> (no namespace)" in issue.message
    assert parsed.entity_type is None
    assert parsed.entity_name == "sample"


# -- XSD errors, each on its own line ------------------------------------------------------------------------


def test_element_out_of_order(documents: dict[str, str], line_of) -> None:
    # <groups> must come before <frequency>; move it after <availabilityFlag>'s sibling <frequency>.
    text = documents["feed"].replace("    <groups>clicks</groups>\n", "").replace(
        "<frequency>hours(1)</frequency>\n", "<frequency>hours(1)</frequency>\n    <groups>clicks</groups>\n")

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert issue.line == line_of(text, "<groups>")
    assert issue.message.startswith("<groups>: this element is not expected here.")
    assert issue.entity == "raw-clicks"
    assert issue.entity_type == "feed"
    assert issue.file == "entity.xml"


def test_missing_required_element(documents: dict[str, str], line_of) -> None:
    text = documents["feed"].replace('    <schema location="/schemas/clicks.csv" provider="csv"/>\n', "")

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert issue.line == line_of(text, "<feed ")
    assert "missing child element" in issue.message
    assert "<schema>" in issue.message


def test_missing_required_attribute(documents: dict[str, str], line_of) -> None:
    text = documents["feed"].replace(' action="delete"', "")

    [issue] = errors_of(parse(text))

    assert issue.line == line_of(text, "<retention ")
    assert "'action'" in issue.message
    assert "required" in issue.message


@pytest.mark.parametrize(
    ("old", "new", "marker", "words"),
    [
        pytest.param("<frequency>hours(1)</frequency>", "<frequency>hours(0)</frequency>", "<frequency>",
                     "'hours(0)' is not a valid frequency", id="feed-frequency-zero"),
        pytest.param('cut-off="hours(3)"', 'cut-off="weeks(1)"', "<late-arrival",
                     "'weeks(1)' is not a valid frequency", id="no-weeks"),
        pytest.param('limit="days(2)"', 'limit="days(02)"', "<retention", "'days(02)' is not a valid frequency",
                     id="leading-zero"),
        pytest.param('name="raw-clicks"', 'name="name_with_underscore"', "<feed ",
                     "'name_with_underscore' is not a valid name", id="identifier-underscore"),
        pytest.param('name="raw-clicks"', 'name="Feed.name"', "<feed ", "is not a valid name", id="identifier-dot"),
        pytest.param('cluster name="primary"', 'cluster name="9lives"', "<cluster name", "is not a valid name",
                     id="identifier-leading-digit"),
        pytest.param('type="source"', 'type="origin"', "<cluster name", "'origin' is not one of source, target",
                     id="cluster-type-enumeration"),
        pytest.param('type="data"', 'type="logs"', '<location type="logs"', "'logs' is not one of data, stats",
                     id="location-type-enumeration"),
        pytest.param('action="delete"', 'action="archive"', "<retention", "'archive' is not one of delete",
                     id="retention-action-enumeration"),
        pytest.param("<groups>clicks</groups>", "<groups>clicks, views</groups>", "<groups>",
                     "is not a valid group list", id="group-list-with-space"),
        pytest.param("<tags>source=web,format=csv</tags>", "<tags>source = web</tags>", "<tags>",
                     "is not a valid tag list", id="tags-space-before-equals"),
        pytest.param('start="2026-01-01T00:00Z"', 'start="2026-01-01 00:00"', "<validity",
                     "is not a valid date", id="date-format"),
        # the XSD pattern lets '/', '.' and ' ' separate date parts; Falcon's date parser then refused them
        pytest.param('start="2026-01-01T00:00Z"', 'start="2026/01/01T00:00Z"', "<validity",
                     "'2026/01/01T00:00Z' is not a valid UTC date", id="date-slashes"),
        pytest.param('start="2026-01-01T00:00Z"', 'start="2026.01.01T00:00Z"', "<validity",
                     "'2026.01.01T00:00Z' is not a valid UTC date", id="date-dots"),
        pytest.param('end="2099-12-31T00:00Z"', 'end="2100-01-01T00:00Z"', "<validity",
                     "is not a valid date", id="feed-year-after-2099"),
        pytest.param('<feed name="raw-clicks"', '<feed name="raw-clicks" version="two"', "<feed ",
                     "'two' is not a valid integer", id="version-not-an-integer"),
    ],
)
def test_feed_schema_errors(documents: dict[str, str], line_of, old: str, new: str, marker: str,
                            words: str) -> None:
    assert old in documents["feed"]
    text = documents["feed"].replace(old, new, 1)

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert words in issue.message
    assert issue.line == line_of(text, marker)


@pytest.mark.parametrize(
    ("old", "new", "marker", "words"),
    [
        pytest.param('delay="minutes(10)"', 'delay="hours(0)"', "<retry", "'hours(0)' is not a valid frequency",
                     id="retry-delay-zero"),
        pytest.param('policy="periodic"', 'policy="backoff"', "<retry",
                     "'backoff' is not one of periodic, exp-backoff, final", id="legacy-backoff"),
        pytest.param("<order>FIFO</order>", "<order>ONLYLAST</order>", "<order>",
                     "'ONLYLAST' is not one of FIFO, LIFO, LAST_ONLY", id="order-enumeration"),
        pytest.param('<workflow path=', '<workflow engine="mapreduce" path=', "<workflow",
                     "'mapreduce' is not one of oozie, pig, hive, spark", id="engine-enumeration"),
        pytest.param("<parallel>2</parallel>", "<parallel>13</parallel>", "<parallel>",
                     "'13' is greater than the maximum value allowed ('12')", id="parallel-range"),
        pytest.param('attempts="3"', 'attempts="0"', "<retry",
                     "attribute 'attempts' of <retry>: The value '0' is less than the minimum", id="attempts-zero"),
        pytest.param('input name="clicks"', 'input name="click_events"', "<input ", "is not a valid name",
                     id="input-identifier"),
        pytest.param('end="now(0,0)"/>', 'end="now(0,0)" optional="yes"/>', "<input ",
                     "'yes' is not a valid boolean", id="optional-not-a-boolean"),
        pytest.param("<pipelines>clickstream</pipelines>", "<pipelines>click-stream</pipelines>", "<pipelines>",
                     "is not a valid pipeline list", id="pipeline-with-dash"),
    ],
)
def test_process_schema_errors(documents: dict[str, str], line_of, old: str, new: str, marker: str,
                               words: str) -> None:
    assert old in documents["process"]
    text = documents["process"].replace(old, new, 1)

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert words in issue.message
    assert issue.line == line_of(text, marker)
    assert issue.entity_type == "process"


def test_cluster_interface_type_enumeration(documents: dict[str, str], line_of) -> None:
    text = documents["cluster"].replace('type="spark"', 'type="oozie"')

    [issue] = errors_of(parse(text))

    assert issue.line == line_of(text, 'type="oozie"')
    assert "'oozie' is not one of readonly, write, execute, workflow, messaging, registry, spark" in issue.message


def test_datasource_type_enumeration(documents: dict[str, str]) -> None:
    text = documents["datasource"].replace('type="mysql"', 'type="xyz"')

    [issue] = errors_of(parse(text))

    assert issue.line == 2
    assert "'xyz' is not one of mysql, oracle" in issue.message


@pytest.mark.parametrize(
    ("date", "words"),
    [
        ("2011-02-30T00:00Z", "February 2011 has no day 30"),
        ("2010-04-31T00:00Z", "April has 30 days"),
        ("2007-02-29T00:00Z", "February 2007 has no day 29"),
    ],
)
def test_impossible_date_is_a_schema_error_on_the_validity_line(documents: dict[str, str], line_of, date: str,
                                                                 words: str) -> None:
    text = documents["feed"].replace('end="2099-12-31T00:00Z"', f'end="{date}"')

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert issue.line == line_of(text, "<validity")
    assert "attribute 'end' of <validity>" in issue.message
    assert words in issue.message
    assert issue.entity == "raw-clicks"


def test_impossible_date_in_a_process(documents: dict[str, str], line_of) -> None:
    text = documents["process"].replace('start="2026-01-01T00:00Z"', 'start="2011-02-30T00:00Z"')

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert issue.line == line_of(text, "<validity")
    assert "2011-02-30T00:00Z" in issue.message


def test_feed_with_both_locations_and_table(documents: dict[str, str], line_of) -> None:
    table = '    <table uri="catalog:default:clicks#ds=${YEAR}-${MONTH}-${DAY}"/>\n'
    text = documents["feed"].replace("    <ACL ", table + "    <ACL ", 1)

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert issue.line == line_of(text, "<table ")
    assert issue.message.startswith("<table>: this element is not expected here.")


def test_feed_with_neither_locations_nor_table(documents: dict[str, str], line_of) -> None:
    start = documents["feed"].index("    <locations>")
    end = documents["feed"].index("    <ACL ")
    text = documents["feed"][:start] + documents["feed"][end:]

    [issue] = errors_of(parse(text))

    assert issue.rule == "XSD"
    assert issue.line == line_of(text, "<ACL ")


def test_feed_with_table_only_is_valid(documents: dict[str, str]) -> None:
    start = documents["feed"].index("    <locations>")
    end = documents["feed"].index("    <ACL ")
    table = '    <table uri="catalog:default:clicks#ds=${YEAR}-${MONTH}-${DAY}"/>\n'
    text = documents["feed"][:start] + table + documents["feed"][end:]

    parsed = parse(text)

    assert parsed.issues == ()
    assert parsed.entity is not None
    assert parsed.entity.table is not None
    assert parsed.entity.table.parsed().database == "default"


def test_several_errors_are_all_reported_in_line_order(documents: dict[str, str], line_of) -> None:
    text = (documents["process"]
            .replace("<order>FIFO</order>", "<order>RANDOM</order>")
            .replace('policy="periodic"', 'policy="sometimes"'))

    issues = errors_of(parse(text))

    assert [issue.line for issue in issues] == [line_of(text, "<order>"), line_of(text, "<retry")]


def test_unknown_element_is_named_without_namespace(documents: dict[str, str]) -> None:
    text = documents["cluster"].replace("<ACL ", "<owner>me</owner>\n    <ACL ")

    [issue] = errors_of(parse(text))

    assert issue.message.startswith("<owner>:")
    assert "uri:falcon" not in issue.message
