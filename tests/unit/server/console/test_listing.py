"""The console's entity list: filtering, sorting and paging on the server."""

from __future__ import annotations

import time

import pytest

from falcon_airflow.server.console.listing import BadQuery, Query, Row, parse_query, select

ROWS = [
    Row("cluster", "primary", "SUBMITTED", owner="ops"),
    Row("feed", "raw-clicks", "RUNNING", tags=("owner=web", "tier=raw"), owner="web"),
    Row("feed", "click-counts", "SUSPENDED", tags=("tier=derived",), owner="analytics"),
    Row("process", "count-clicks", "RUNNING", tags=("tier=derived",), owner="analytics"),
    Row("process", "broken", "INVALID", rules=("P11",), owner="web"),
    Row("datasource", "orders-db", "SUBMITTED", owner="ops"),
]


def names(query: Query) -> list[str]:
    return [row.name for row in select(ROWS, query).rows]


def test_everything_sorted_by_name() -> None:
    assert names(Query()) == ["broken", "click-counts", "count-clicks", "orders-db", "primary", "raw-clicks"]


def test_filter_by_type_status_tag_and_text() -> None:
    assert names(Query(types=frozenset({"feed"}))) == ["click-counts", "raw-clicks"]
    assert names(Query(statuses=frozenset({"RUNNING", "INVALID"}))) == ["broken", "count-clicks", "raw-clicks"]
    assert names(Query(tag="tier=derived")) == ["click-counts", "count-clicks"]
    assert names(Query(tag="owner")) == ["raw-clicks"]  # a tag key alone
    assert names(Query(text="CLICK")) == ["click-counts", "count-clicks", "raw-clicks"]
    assert names(Query(text="analytics")) == ["click-counts", "count-clicks"]  # the owner
    assert names(Query(types=frozenset({"process"}), text="count")) == ["count-clicks"]


def test_sort_descending_and_ties_broken_by_type_then_name() -> None:
    assert names(Query(sort="name", descending=True))[0] == "raw-clicks"
    assert names(Query(sort="owner")) == ["click-counts", "count-clicks", "primary", "orders-db", "raw-clicks",
                                          "broken"]
    assert names(Query(sort="status")) == ["broken", "raw-clicks", "count-clicks", "primary", "orders-db",
                                           "click-counts"]


def test_paging_counts_every_match() -> None:
    page = select(ROWS, Query(offset=2, limit=2))
    assert page.total == 6
    assert [row.name for row in page.rows] == ["count-clicks", "orders-db"]
    assert select(ROWS, Query(offset=10)).rows == []
    assert page.as_json()["entities"][0]["type"] == "process"


def test_parse_query() -> None:
    query = parse_query({"type": "feed,process", "status": "running", "tag": "tier=raw", "q": "x", "sort": "-owner",
                         "offset": "50", "limit": "25"})
    assert query == Query(frozenset({"feed", "process"}), frozenset({"RUNNING"}), "tier=raw", "x", "owner", True, 50,
                          25)
    assert parse_query({}) == Query()
    for wrong in ({"type": "table"}, {"status": "DONE"}, {"sort": "size"}, {"limit": "0"}, {"limit": "9999"},
                  {"offset": "-1"}):
        with pytest.raises(BadQuery):
            parse_query(wrong)


def test_ten_thousand_entities_page_fast() -> None:
    rows = [Row(("feed", "process", "cluster")[n % 3], f"entity-{n:05d}", "RUNNING", tags=(f"team=t{n % 7}",),
                owner=f"user{n % 11}") for n in range(10_000)]
    started = time.perf_counter()
    page = select(rows, Query(types=frozenset({"feed"}), tag="team=t3", text="entity-0", sort="owner",
                              descending=True, offset=20, limit=50))
    assert time.perf_counter() - started < 0.5
    assert page.total == sum(1 for n in range(10_000) if n % 3 == 0 and n % 7 == 3)
    assert len(page.rows) == 50
