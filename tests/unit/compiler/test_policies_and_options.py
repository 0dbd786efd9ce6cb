"""Pure pieces of the compiler and runtime: Falcon's wait policies and spark-opts parsing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from falcon_airflow.compiler.spark_options import SparkOptionsError, parse_spark_options, split_master
from falcon_airflow.timekeeping.policies import next_late_check, retry_wait

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


def test_retry_waits_match_falcons_rerun_policy_tests() -> None:
    assert retry_wait("exp-backoff", 2 * MINUTE, 2) == timedelta(milliseconds=480_000)
    assert retry_wait("periodic", 2 * MINUTE, 2) == timedelta(milliseconds=120_000)
    assert retry_wait("periodic", 2 * MINUTE, 5) == timedelta(milliseconds=120_000)
    assert retry_wait("final", 2 * MINUTE, 3) == timedelta(0)


def test_late_checks_match_falcons_rerun_policy_tests() -> None:
    cut_off = NOW + timedelta(hours=1)
    # exp-backoff, nominal = now - 4 min, d = 2 min: checks at +2, +6 (2 + 4) -> 6 minutes after nominal
    assert next_late_check("exp-backoff", 2 * MINUTE, NOW - 4 * MINUTE, NOW, cut_off) == NOW + 2 * MINUTE
    # nominal = now - 9 min, d = 1 min: 1 + 2 + 4 + 8 = 15 minutes after nominal
    assert next_late_check("exp-backoff", MINUTE, NOW - 9 * MINUTE, NOW, cut_off) == NOW + 6 * MINUTE
    # periodic d = 3 min with nominal = now: 3 minutes
    assert next_late_check("periodic", 3 * MINUTE, NOW, NOW, cut_off) == NOW + 3 * MINUTE
    assert next_late_check("final", 3 * MINUTE, NOW, NOW, cut_off) == cut_off
    assert next_late_check("periodic", timedelta(hours=2), NOW, NOW, cut_off) == cut_off  # capped


def test_spark_opts_split_into_arguments_and_conf() -> None:
    options = parse_spark_options("--num-executors 1 --driver-memory 512m --executor-memory 512m "
                                  "--executor-cores 1 --conf spark.sql.shuffle.partitions=4 "
                                  "--conf=spark.ui.enabled=false --driver-cores 2 --verbose")
    assert options.arguments == {"num_executors": 1, "driver_memory": "512m", "executor_memory": "512m",
                                 "executor_cores": 1}
    assert options.conf == {"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false",
                            "spark.driver.cores": "2"}


@pytest.mark.parametrize(("text", "message"), [
    ("--driver-memory", "needs a value"),
    ("--num-executors many", "takes a number"),
    ("--conf novalue", "key=value"),
    ("--supervise yes", "not supported"),
    ("driver-memory 1g", "is not an option"),
    ("--conf 'unterminated", "cannot be read"),
])
def test_bad_spark_opts_are_refused(text: str, message: str) -> None:
    with pytest.raises(SparkOptionsError, match=message):
        parse_spark_options(text)


def test_falcon_yarn_masters_become_master_and_deploy_mode() -> None:
    assert split_master("yarn-cluster") == ("yarn", "cluster")
    assert split_master("YARN-CLIENT") == ("yarn", "client")
    assert split_master("local[2]") == ("local[2]", None)
