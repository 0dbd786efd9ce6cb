"""Declared field operations (CDAP style) to OpenLineage column lineage and the operation-chain facet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from falcon_airflow.lineage.field_operations import (
    FACET_KEY,
    FACET_SCHEMA,
    EndPoint,
    FieldOperations,
    FieldRef,
    merge,
)

USERS = EndPoint("file", "/data/users")
ORDERS = EndPoint("hdfs://nn:8020", "/data/orders/2026/03/01")
CONTACTS = EndPoint("file", "/data/contacts")
SUMMARY = EndPoint("hive://metastore:9083", "mart.order_summary")
VALIDATOR = Path(__file__).resolve().parents[3].parent / "shared" / "tools" / "validate-openlineage"


def recorded() -> FieldOperations:
    """CDAP's documentation example (fullName = concat(firstName, lastName)) plus a hash, a drop, a filter, a join
    and an aggregation into a second destination."""
    ops = FieldOperations()
    ops.read("read_users", USERS, ["id", "firstName", "lastName", "email", "address", "active"], "read users")
    ops.read("read_orders", ORDERS, ["order_id", "user_id", "amount"], "read one day of orders")
    ops.transform("full_name", [("read_users", "firstName"), ("read_users", "lastName")], ["fullName"],
                  "concat(firstName, ' ', lastName)")
    ops.transform("hash_email", [("read_users", "email")], ["email_hash"], "sha256(email)", masking=True)
    ops.transform("rename_id", [FieldRef("read_users", "id")], ["user"], "id AS user", kind="IDENTITY")
    ops.drop("drop_address", [("read_users", "address")], "the address is never kept")
    ops.condition("active_only", [("read_users", "active")], "active = true", applies_to=[CONTACTS])
    ops.write("write_contacts", CONTACTS,
              [("rename_id", "user"), ("full_name", "fullName"), ("hash_email", "email_hash")], "write contacts")
    ops.condition("join_users", [("read_orders", "user_id"), ("read_users", "id")], "orders JOIN users",
                  subtype="JOIN", applies_to=[SUMMARY])
    ops.transform("total", [("read_orders", "amount")], ["total"], "sum(amount)", kind="AGGREGATION")
    ops.transform("label", [("full_name", "fullName"), ("total", "total")], ["label"],
                  "CASE WHEN total > 100 THEN fullName END", kind="CONDITIONAL")
    ops.write("write_summary", SUMMARY, [("rename_id", "user"), ("total", "total"), ("label", "label")])
    return ops


def edges(facet: dict[str, Any]) -> set[str]:
    return {f"{name}<-{item['name']}.{item['field']}:{t['subtype']}{'*' if t['masking'] else ''}"
            for name, spec in facet["fields"].items() for item in spec["inputFields"] for t in item["transformations"]}


def test_column_lineage_of_each_destination() -> None:
    ops = recorded()
    assert ops.problems() == []
    contacts = ops.column_lineage_facet(CONTACTS)
    assert edges(contacts) == {"user<-/data/users.id:IDENTITY", "fullName<-/data/users.firstName:TRANSFORMATION",
                               "fullName<-/data/users.lastName:TRANSFORMATION",
                               "email_hash<-/data/users.email:TRANSFORMATION*"}
    assert [(item["field"], item["transformations"]) for item in contacts["dataset"]] == [
        ("active", [{"type": "INDIRECT", "subtype": "FILTER", "masking": False, "description": "active_only"}])]
    described = contacts["fields"]["fullName"]["inputFields"][0]["transformations"][0]
    assert described["description"] == "full_name"
    summary = ops.column_lineage_facet(SUMMARY)
    assert edges(summary) == {"user<-/data/users.id:IDENTITY",
                              "total<-/data/orders/2026/03/01.amount:AGGREGATION",
                              "label<-/data/users.firstName:CONDITIONAL", "label<-/data/users.lastName:CONDITIONAL",
                              "label<-/data/orders/2026/03/01.amount:CONDITIONAL"}
    assert {(item["namespace"], item["field"]) for item in summary["dataset"]} == {
        ("hdfs://nn:8020", "user_id"), ("file", "id")}
    assert all(t["type"] == "INDIRECT" and t["subtype"] == "JOIN"
               for item in summary["dataset"] for t in item["transformations"])


def test_summaries_drops_and_chain() -> None:
    ops = recorded()
    assert ops.incoming(CONTACTS)["fullName"] == [(USERS, "firstName"), (USERS, "lastName")]
    assert ops.outgoing()[(USERS, "id")] == [(CONTACTS, "user"), (SUMMARY, "user")]
    assert ops.dropped() == [(USERS, "address", "drop_address")]
    chain = [operation.name for operation in ops.chain(CONTACTS)]
    assert chain == ["read_users", "full_name", "hash_email", "rename_id", "drop_address", "active_only",
                     "write_contacts"]
    assert [operation.name for operation in ops.chain(CONTACTS, "fullName")] == [
        "read_users", "full_name", "drop_address", "active_only", "write_contacts"]
    assert ops.destinations() == [CONTACTS, SUMMARY]


def test_operations_facet_is_valid_json_with_its_own_schema() -> None:
    ops = recorded()
    facet = ops.operations_facet(CONTACTS)
    assert json.loads(json.dumps(facet)) == facet
    Draft202012Validator(FACET_SCHEMA, format_checker=FormatChecker()).validate(facet)
    assert facet["_schemaURL"].startswith("https://pypi.org/project/falcon-airflow/")
    assert facet["_schemaURL"].split("#")[0] == FACET_SCHEMA["$id"]
    kinds = {item["name"]: item["type"] for item in facet["operations"]}
    assert kinds["drop_address"] == "DROP" and kinds["read_users"] == "READ" and kinds["write_contacts"] == "WRITE"
    assert facet["dropped"] == [{"namespace": "file", "name": "/data/users", "field": "address",
                                 "operation": "drop_address"}]


def test_checksum_ignores_recording_order() -> None:
    first, second = recorded(), FieldOperations()
    for operation in reversed(first.operations):
        second.operations.append(operation)
    assert first.checksum() == second.checksum()
    second.operations.pop()
    assert first.checksum() != second.checksum()


def test_problems_follow_cdap_rules() -> None:
    ops = FieldOperations()
    assert ops.problems() == ["no READ operation", "no WRITE operation"]
    ops.read("r", USERS, ["a"])
    ops.transform("t", [("r", "missing"), ("nowhere", "a")], ["b"])
    ops.transform("loop1", [("loop2", "x")], ["y"])
    ops.transform("loop2", [("loop1", "y")], ["x"])
    ops.write("w", CONTACTS, [("t", "b"), ("w", "b")])
    problems = ops.problems()
    assert "t: 'r' does not produce field 'missing'" in problems
    assert "t: input 'a' comes from unknown operation 'nowhere'" in problems
    assert "w: 'w' (WRITE) produces no fields" in problems
    assert any(problem.startswith("cycle through operation") for problem in problems)
    with pytest.raises(ValueError, match="invalid field operations"):
        ops.validate()
    with pytest.raises(ValueError, match="already recorded"):
        ops.read("r", USERS, ["b"])
    with pytest.raises(ValueError, match="kind"):
        ops.transform("bad", [("r", "a")], ["c"], kind="HASH")
    with pytest.raises(ValueError, match="subtype"):
        ops.condition("bad2", [("r", "a")], subtype="TRANSFORMATION")
    assert ops.lineage(CONTACTS)["b"] == []  # nothing reaches a read through the broken transform


def test_merge_matches_openlineage() -> None:
    assert merge(("DIRECT", "IDENTITY", False), ("DIRECT", "TRANSFORMATION", True)) == (
        "DIRECT", "TRANSFORMATION", True)
    assert merge(("DIRECT", "AGGREGATION", False), ("INDIRECT", "FILTER", False)) == ("INDIRECT", "FILTER", False)
    assert merge(("INDIRECT", "JOIN", False), ("INDIRECT", "FILTER", False)) == ("INDIRECT", "JOIN", False)


def test_a_dataset_event_with_both_facets_passes_the_validator(tmp_path: Path) -> None:
    if not VALIDATOR.is_file():
        pytest.skip("../shared/tools/validate-openlineage is not beside the repository")
    ops = recorded()
    events = []
    for destination in ops.destinations():
        facets = {"columnLineage": ops.column_lineage_facet(destination), FACET_KEY: ops.operations_facet(destination)}
        events.append({"eventTime": "2026-03-01T05:00:00Z", "producer": facets["columnLineage"]["_producer"],
                       "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
                       "dataset": {"namespace": destination.namespace, "name": destination.name, "facets": facets}})
    path = tmp_path / "declared.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    done = subprocess.run([sys.executable, str(VALIDATOR), str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
