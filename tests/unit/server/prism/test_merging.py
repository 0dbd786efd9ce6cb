from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from falcon_airflow.server import bodies
from falcon_airflow.server.bodies import ResultStatus
from falcon_airflow.server.bodies.results import EntityElement, EntitySummary, EntitySummaryResult, SummaryInstance
from falcon_airflow.server.prism.merging import (
    ColoResult,
    merge_entity_lists,
    merge_entity_summaries,
    merge_json_results,
    merge_results,
    merged_status,
    read_api_result,
    read_entity_list,
    read_entity_summary,
)

S, P, F = ResultStatus.SUCCEEDED, ResultStatus.PARTIAL, ResultStatus.FAILED


@pytest.mark.parametrize(("statuses", "expected"), [
    ((S, S), S), ((F, F), F), ((S, F), P), ((P, S), P), ((P, P), P), ((F, P), P), ((F,), F),
])
def test_the_status_is_partial_unless_every_colo_agrees(statuses: tuple[ResultStatus, ...],
                                                         expected: ResultStatus) -> None:
    assert merged_status(statuses) == expected


def test_each_colos_message_and_request_id_are_kept_under_its_name() -> None:
    merged = merge_results([ColoResult("east", S, "default/f(feed) scheduled successfully", "r1"),
                            ColoResult("west", F, "cannot reach http://w/falcon: ConnectError")])
    assert merged.status == P
    assert merged.message == ("east/default/f(feed) scheduled successfully\n"
                              "west/cannot reach http://w/falcon: ConnectError\n")
    assert merged.request_id == "east/r1\nwest/None\n"


def test_a_colos_api_result_is_read_and_an_unreadable_answer_is_its_failure() -> None:
    xml = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><result><status>PARTIAL</status>'
           b"<message>default/m\n</message><requestId>abc</requestId></result>")
    assert read_api_result("east", xml) == ColoResult("east", P, "default/m", "abc")
    assert read_api_result("east", b"<html>oops</html>").status == F


def test_entity_lists_merge_one_element_per_entity_labelled_by_colo() -> None:
    east = read_entity_list(b"<entities><totalResults>2</totalResults>"
                            b"<entity><type>CLUSTER</type><name>east</name><status>SUBMITTED</status></entity>"
                            b"<entity><type>FEED</type><name>f</name><status>RUNNING</status>"
                            b"<clusters><cluster>east</cluster><cluster>west</cluster></clusters></entity>"
                            b"</entities>")
    assert east[1] == EntityElement("FEED", "f", "RUNNING", None, None, ("east", "west"))
    west = [EntityElement("FEED", "f", "SUBMITTED"), EntityElement("CLUSTER", "west", "SUBMITTED")]
    merged = merge_entity_lists([("east", east), ("west", west)])
    assert merged.total_results == 3
    assert [(item.name, item.status) for item in merged.entities] == [
        ("east", "east/SUBMITTED"), ("f", "east/RUNNING,west/SUBMITTED"), ("west", "west/SUBMITTED")]
    assert merged.entities[1].clusters == ("east", "west")


def test_without_statuses_the_label_names_the_colos_and_paging_applies_to_the_merged_list() -> None:
    merged = merge_entity_lists([("east", [EntityElement("FEED", "a"), EntityElement("FEED", "b")]),
                                 ("west", [EntityElement("FEED", "b")])], offset=1, limit=1)
    assert merged.total_results == 2
    assert [(item.name, item.status) for item in merged.entities] == [("b", "east,west")]


def test_instance_results_are_concatenated_and_a_failed_colo_is_named() -> None:
    east = json.loads('{"status":"SUCCEEDED","message":"default/STATUS\\n","requestId":"r",'
                      '"instances":[{"instance":"2026-03-01T05:00Z","cluster":"east"}]}')
    west = {"status": "SUCCEEDED", "message": "default/STATUS", "instances": [{"instance": "x", "cluster": "west"}]}
    merged = merge_json_results([("east", east, None), ("west", west, None)])
    assert merged["status"] == "SUCCEEDED"
    assert [item["cluster"] for item in merged["instances"]] == ["east", "west"]
    assert merged["message"] == "east/default/STATUS\nwest/default/STATUS\n"
    partial = merge_json_results([("east", east, None), ("west", None, "cannot reach w")])
    assert partial["status"] == "PARTIAL" and partial["message"].endswith("west/cannot reach w\n")


def test_entity_summaries_are_read_back_as_the_server_writes_them_and_kept_colo_after_colo() -> None:
    instance = SummaryInstance("2026-01-01T03:00Z", "SUCCEEDED", "http://west/log", "west", "east",
                               datetime(2026, 1, 1, 3, tzinfo=UTC), datetime(2026, 1, 1, 3, 5, tzinfo=UTC))
    west = EntitySummaryResult(S, "west's", "r1", (EntitySummary("clicks", "FEED", "RUNNING", ("a=b", "c=d"), ("p",),
                                                                 (instance, instance)),))
    east = EntitySummaryResult(S, "east's", "r2", (EntitySummary("views", "FEED", "SUBMITTED"),))
    read = [read_entity_summary(colo, bodies.render(body, "xml")[0]) for colo, body in (("west", west),
                                                                                        ("east", east))]
    assert read[0] == (ColoResult("west", S, "west's", "r1"), west.summaries)
    merged = merge_entity_summaries(read)
    assert merged == EntitySummaryResult(S, "west/west's\neast/east's\n", "west/r1\neast/r2\n",
                                         (*west.summaries, *east.summaries))

    refused = bodies.failure("no such cluster")[1]
    failed = read_entity_summary("east", refused)
    assert failed == (ColoResult("east", F, "no such cluster", failed[0].request_id), ())
    assert merge_entity_summaries([read[0], failed]).status == P
    assert read_entity_summary("east", b"<entities/>")[0].status == F
