"""Falcon's catalog properties of table inputs and outputs: what every engine's workflow gets for an instance."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pendulum

from falcon_airflow.instances.bindings import FeedBinding, InputBinding, OutputBinding
from falcon_airflow.instances.catalog_properties import INPUT_PROPERTIES, OUTPUT_PROPERTIES, catalog_properties
from falcon_airflow.provider import macros

HOURLY = FeedBinding(feed="clicks", cluster="primary", frequency="hours(1)", timezone="UTC",
                     start="2026-01-01T00:00Z", end="2099-01-01T00:00Z", storage="table",
                     location="catalog:web:clicks#ds=${YEAR}${MONTH}${DAY};hr=${HOUR};region=us",
                     metastore="thrift://127.0.0.1:9083")
RUN = SimpleNamespace(data_interval_start=pendulum.datetime(2026, 3, 1, 5, tz="UTC"), logical_date=None)


def test_an_input_gets_its_table_and_a_filter_per_engine_with_one_clause_per_instance() -> None:
    binding = InputBinding(name="raw", feed=HOURLY, start="now(0,-60)", end="now(0,0)")
    found = catalog_properties(binding, RUN.data_interval_start)
    assert set(found) == set(INPUT_PROPERTIES)
    assert (found["storage_type"], found["catalog_url"], found["database"], found["table"]) == \
        ("TABLE", "thrift://127.0.0.1:9083", "web", "clicks")
    assert found["partition_filter_hive"] == found["partition_filter_java"] == \
        "(ds='20260301' AND hr='04' AND region='us') OR (ds='20260301' AND hr='05' AND region='us')"
    assert found["partition_filter_pig"] == \
        "(ds=='20260301' AND hr=='04' AND region=='us') OR (ds=='20260301' AND hr=='05' AND region=='us')"


def test_an_output_gets_all_partitions_for_pig_and_java_and_the_dated_ones_for_hive() -> None:
    binding = OutputBinding(name="out", feed=HOURLY, instance="now(0,-60)")
    found = catalog_properties(binding, RUN.data_interval_start)
    assert set(found) == {*OUTPUT_PROPERTIES, "dated_partition_value_ds", "dated_partition_value_hr"}
    assert found["partitions_pig"] == found["partitions_java"] == "ds=20260301,hr=04,region=us"
    assert found["partitions_hive"] == "ds='20260301',hr='04'"
    assert (found["dated_partition_value_ds"], found["dated_partition_value_hr"]) == ("20260301", "04")
    assert found["catalog_url"] == "thrift://127.0.0.1:9083" and found["table"] == "clicks"


def test_the_macros_take_bindings_as_dag_params_hold_them() -> None:
    as_params = {"in": json.loads(InputBinding(name="raw", feed=HOURLY, start="now(0,0)", end="now(0,0)")
                                  .model_dump_json()),
                 "out": json.loads(OutputBinding(name="out", feed=HOURLY, instance="now(0,0)").model_dump_json())}
    assert macros.table_property(as_params["in"], "partition_filter_hive", RUN) == \
        "(ds='20260301' AND hr='05' AND region='us')"
    assert macros.table_property(as_params["out"], "partitions_hive", RUN) == "ds='20260301',hr='05'"
    assert macros.table_property(as_params["out"], "no_such_property", RUN) == ""
    assert macros.partition_filter(as_params["in"], RUN, "pig") == "(ds=='20260301' AND hr=='05' AND region=='us')"
