"""Content negotiation as Falcon's Jersey did it, and the error bodies of Falcon's status codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

import pytest

from falcon_airflow.server.bodies import (
    ANSWERS,
    PRODUCES_ENTITY_ACTION,
    PRODUCES_JSON,
    PRODUCES_JSON_TEXT,
    PRODUCES_JSON_XML,
    PRODUCES_TEXT,
    PRODUCES_XML_JSON,
    denial,
    failure,
    metadata_failure,
    negotiate,
)

# What the stock Falcon 0.9 client sends (FalconClient's Entities, Instances, AdminOperations and
# MetadataOperations enums), and what each resource produces (their @Produces lists).
STOCK_CLIENT = [
    ("entity -submit", "text/xml", PRODUCES_ENTITY_ACTION, "xml"),
    ("entity -status", "text/xml", PRODUCES_ENTITY_ACTION, "xml"),
    ("entity -definition", "text/xml", PRODUCES_ENTITY_ACTION, "xml"),
    ("entity -list", "text/xml", PRODUCES_XML_JSON, "xml"),
    ("entity -dependency", "text/xml", PRODUCES_XML_JSON, "xml"),
    ("entity -summary", "application/json", PRODUCES_XML_JSON, "json"),
    ("entity -lookup", "application/json", PRODUCES_JSON_TEXT, "json"),
    ("entity -slaAlert", "application/json", PRODUCES_JSON_XML, "json"),
    ("instance -status", "application/json", PRODUCES_JSON, "json"),
    ("admin -version", "application/json", PRODUCES_XML_JSON, "json"),
    ("admin -stack", "text/plain", PRODUCES_TEXT, "text"),
    ("metadata -list", "application/json", PRODUCES_JSON, "json"),
]


@pytest.mark.parametrize(("call", "accept", "produces", "expected"), STOCK_CLIENT, ids=[row[0] for row in STOCK_CLIENT])
def test_the_stock_clients_calls(call: str, accept: str, produces: tuple[str, ...], expected: str) -> None:
    assert negotiate(accept, produces) == expected  # type: ignore[arg-type]


def test_no_preference_gets_the_first_type_the_resource_lists() -> None:
    for accept in (None, "", "*/*", "*/*;q=0.8"):
        assert negotiate(accept, PRODUCES_ENTITY_ACTION) == "xml"
        assert negotiate(accept, PRODUCES_XML_JSON) == "xml"
        assert negotiate(accept, PRODUCES_JSON_XML) == "json"
        assert negotiate(accept, PRODUCES_JSON) == "json"
    assert negotiate("text/*", PRODUCES_ENTITY_ACTION) == "xml"
    assert negotiate("text/*", PRODUCES_JSON_TEXT) == "text"
    assert negotiate("application/*", PRODUCES_XML_JSON) == "json"


def test_quality_then_specificity_then_order() -> None:
    # a browser's header: text/xml is not named, */* is (q=0.8), application/xml is no type Falcon produced
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    assert negotiate(browser, PRODUCES_XML_JSON) == "xml"
    assert negotiate(browser, PRODUCES_JSON) == "json"
    assert negotiate("application/json;q=0.5, text/xml", PRODUCES_XML_JSON) == "xml"
    assert negotiate("text/xml;q=0.5, application/json", PRODUCES_XML_JSON) == "json"
    assert negotiate("*/*, application/json", PRODUCES_XML_JSON) == "json"  # the concrete range is more specific
    assert negotiate("application/json, text/xml", PRODUCES_XML_JSON) == "json"  # a tie: the header's order
    assert negotiate("text/xml, application/json", PRODUCES_XML_JSON) == "xml"
    assert negotiate("Application/JSON", PRODUCES_XML_JSON) == "json"


def test_nothing_acceptable_is_a_406() -> None:
    assert negotiate("text/xml", PRODUCES_JSON) is None  # an instance call asked for XML
    assert negotiate("application/xml", PRODUCES_XML_JSON) is None  # Falcon produced text/xml, not application/xml
    assert negotiate("application/json;q=0, text/html", PRODUCES_JSON) is None
    assert negotiate("garbage", PRODUCES_JSON) is None
    assert ANSWERS["not-acceptable"].status == 406


def test_a_refusal_is_an_xml_api_result_whatever_was_asked() -> None:
    status, body, media_type = failure("default/raw-clicks (FEED) not found\n", request_id="default/r\n")
    assert (status, media_type) == (400, "text/xml")
    assert body.decode() == (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><result><status>FAILED</status><message>'
        'default/raw-clicks (FEED) not found\n</message><requestId>default/r\n</requestId></result>')
    root = ElementTree.fromstring(body)
    assert root.findtext("message") == "default/raw-clicks (FEED) not found\n"
    assert failure("boom", status=500)[0] == 500 == ANSWERS["internal"].status
    assert ANSWERS["refused"].status == 400


def test_a_denial_is_the_authorization_filters_json() -> None:
    status, body, media_type = denial("Permission denied: user=bob not authorized for feed raw", request_id="r-9")
    assert (status, media_type) == (403, "application/json")
    assert body == (b'{"errorCode":403,"errorMessage":"Permission denied: user=bob not authorized for feed raw",'
                    b'"requestId":"r-9"}')
    assert json.loads(body)["errorCode"] == ANSWERS["denied"].status
    unknown = denial("raw (FEED) not found", status=400)
    assert unknown[0] == 400 and json.loads(unknown[1]) == {"errorCode": 400, "errorMessage": "raw (FEED) not found"}
    assert json.loads(denial("a/b")[1])["errorMessage"] == "a/b" and b"a\\/b" in denial("a/b")[1]


def test_metadata_errors_are_plain_text() -> None:
    assert metadata_failure("Invalid Dimension type : FOO") == (400, b"Invalid Dimension type : FOO", "text/plain")
    assert metadata_failure('"Vertex with [7] cannot be found."', status=404)[0] == 404
    assert ANSWERS["metadata-not-found"].status == 404
