"""Two runs of one instance against real PostgreSQL and MariaDB, interleaved at the worst moments (another run
exports the whole instance right after this run checked the ledger, or right before this run commits; another
import publishes the instance right before this run renames its staging folder in): rows land exactly once, a
run's staging never belongs to another run, and a publish never nests into a target that appeared.

The runs share one Spark session in a child process (the JDBC driver jar on its class path, as spark-submit gives
the jobs), which replaces the job module's own functions to run the other run at the chosen moment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.integration.databases import servers
from tests.integration.databases.submit import environment

from falcon_airflow.core.databases.jars import driver_jar

pytestmark = pytest.mark.xdist_group("databases")

REPOSITORY = Path(__file__).resolve().parents[3]
ROWS = 200
INSTANCE = "2026-02-01T00:00Z"
TASK = {"AIRFLOW_CTX_DAG_ID": "falcon.feed.orders.import.local",
        "AIRFLOW_CTX_DAG_RUN_ID": "scheduled__2026-02-01T00:00:00+00:00", "AIRFLOW_CTX_TASK_ID": "import"}

CHILD = r'''
import json, os, sys, uuid
from pyspark.sql import SparkSession
from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs import db_export, db_import, jdbc

config = json.loads(sys.argv[1])
builder = (SparkSession.builder.master("local[2]").appName("concurrent-runs")
           .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
           .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC"))
if config["jar"]:
    builder = builder.config("spark.jars", config["jar"]).config("spark.driver.extraClassPath", config["jar"])
spark = builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
root = config["root"]
spark.createDataFrame([(i, f"customer-{i}") for i in range(config["rows"])], "id BIGINT, customer STRING") \
    .coalesce(2).write.mode("overwrite").parquet(f"{root}/orders/2026-02-01")
base = ["--feed", "orders", "--cluster", "local", "--instance", config["instance"], "--timezone", "UTC",
        "--url", config["url"], "--driver", config["driver"], "--dialect", config["dialect"],
        "--user", config["user"]]


def outcome(job, argv):
    try:
        return job.run(job.parser().parse_args(argv), spark).summary
    except Exception as error:  # a run that fails: what it said, and the other scenarios still run
        return {"error": f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"}


def export(table):
    return outcome(db_export, [*base, "--location", f"file://{root}/orders/${{YEAR}}-${{MONTH}}-${{DAY}}",
                               "--table", table])


results = {}
real_query = jdbc.query

# 1. another run exports the whole instance right after this run found no ledger row
armed = [True]
def after_the_check(handle, statement):
    rows = real_query(handle, statement)
    if armed and statement.startswith(f"SELECT row_count FROM {db_export.LEDGER} WHERE"):
        armed.clear()
        results["after_check_other"] = export("race_after_check")
    return rows
jdbc.query = after_the_check
results["after_check"] = export("race_after_check")
jdbc.query = real_query

# 2. another run exports the whole instance while this run's rows sit in its staging table, before its commit
armed = [True]
def before_the_commit(handle, statement):
    if armed and statement.startswith("SELECT COUNT(*) FROM race_before_commit_fstg_"):
        armed.clear()
        results["before_commit_other"] = export("race_before_commit")
    return real_query(handle, statement)
jdbc.query = before_the_commit
results["before_commit"] = export("race_before_commit")
jdbc.query = real_query

# 3. an import beside other runs' staging: a live run's (lease just renewed), a dead run's, an earlier try's
target = f"{root}/imported/2026-02-01"
parent = os.path.dirname(target)
os.makedirs(parent, exist_ok=True)
task = "/".join(config["task"][name] for name in ("AIRFLOW_CTX_DAG_ID", "AIRFLOW_CTX_DAG_RUN_ID",
                                                    "AIRFLOW_CTX_TASK_ID"))
siblings = {}
for label, age, try_number in (("live", 0, None), ("dead", 7200, None), ("earlier_try", 0, 1)):
    token = uuid.uuid4().hex  # the names and the lease as a run writes them
    staging = f"{parent}/.2026-02-01.falcon-staging-{token}"
    os.makedirs(staging)
    open(f"{staging}/part-0", "w").write(label)
    lease = f"{parent}/.2026-02-01.falcon-lease-{token}"
    open(lease, "w").write(json.dumps({"token": token, "lease_seconds": 600.0, "task": task if try_number else None,
                                       "try_number": try_number, "host": "elsewhere", "pid": 1}))
    os.utime(lease, (os.path.getmtime(lease) - age,) * 2)
    siblings[label] = staging
os.environ.update(config["task"], AIRFLOW_CTX_TRY_NUMBER="2")
imported = ["--location", f"file://{root}/imported/${{YEAR}}-${{MONTH}}-${{DAY}}", "--table", "small_orders"]
results["import_beside_others"] = outcome(db_import, [*base, *imported])
results["siblings_left"] = sorted(label for label, path in siblings.items() if os.path.exists(path))
for name in os.environ.copy():
    if name.startswith("AIRFLOW_CTX_"):
        del os.environ[name]

# 4. another import publishes the instance right before this run renames its staging folder in
real_copy, real_exists = db_import.spark_copy, HadoopFs.exists
armed = []
def copied(*args, **kwargs):
    done = real_copy(*args, **kwargs)
    armed.append(True)
    return done
def exists(self, uri):
    found = real_exists(self, uri)
    if armed and not found and uri.rstrip("/").endswith("appeared/2026-02-01"):
        armed.clear()
        os.makedirs(uri.split("file://", 1)[-1])
        open(uri.split("file://", 1)[-1] + "/part-theirs", "w").write("theirs")
    return found
db_import.spark_copy, HadoopFs.exists = copied, exists
appeared = ["--location", f"file://{root}/appeared/${{YEAR}}-${{MONTH}}-${{DAY}}", "--table", "small_orders"]
results["appeared"] = outcome(db_import, [*base, *appeared])
db_import.spark_copy, HadoopFs.exists = real_copy, real_exists
folder = f"{root}/appeared/2026-02-01"
results["appeared_files"] = sorted(os.listdir(folder))
results["appeared_siblings"] = sorted(name for name in os.listdir(os.path.dirname(folder)) if ".falcon-" in name)

print("RESULTS " + json.dumps(results))
spark.stop()
'''


@pytest.fixture(scope="module", params=["postgres", "mariadb"])
def outcome(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> tuple[servers.Server, dict[str, Any]]:
    """Every interleaving, run once per database by one child process: (the server, what each run reported)."""
    server: servers.Server = request.getfixturevalue(request.param)
    tmp_path = tmp_path_factory.mktemp(request.param)
    for table in ("race_after_check", "race_before_commit", "small_orders"):
        server.sql(f"DROP TABLE IF EXISTS {table}")
        server.sql(f"CREATE TABLE {table} (id BIGINT, customer VARCHAR(40))")
    server.sql("INSERT INTO small_orders SELECT id, customer FROM orders WHERE id <= 50")
    if exists(server, "falcon_export_ledger"):
        server.sql("DELETE FROM falcon_export_ledger WHERE target_table LIKE 'race_%'")
    secrets = tmp_path / "credentials.json"
    secrets.write_text(json.dumps({"user": server.user, "password": server.password}))
    secrets.chmod(0o600)
    jar = driver_jar(server.driver)
    config = {"jar": str(jar) if jar else "", "root": str(tmp_path / "storage"), "rows": ROWS,
              "instance": INSTANCE, "url": server.url, "driver": server.driver,
              "dialect": "postgres" if server.kind == "postgres" else "mysql", "user": server.user, "task": TASK}
    env = {name: value for name, value in environment(secrets).items() if not name.startswith("AIRFLOW_CTX_")}
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(config)], cwd=REPOSITORY, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULTS ")]
    assert done.returncode == 0 and lines, (done.stdout + done.stderr)[-4000:]
    assert server.password not in done.stdout + done.stderr
    return server, json.loads(lines[-1][len("RESULTS "):])


def exists(server: servers.Server, table: str) -> bool:
    try:
        server.sql(f"SELECT 1 FROM {table} WHERE 1 = 0")
        return True
    except RuntimeError:
        return False


def count(server: servers.Server, table: str) -> int:
    return int(server.sql(f"SELECT COUNT(*) FROM {table}").strip())


def test_an_export_committed_after_this_runs_ledger_check_is_not_inserted_again(
        outcome: tuple[servers.Server, dict[str, Any]]) -> None:
    server, results = outcome
    assert results["after_check_other"]["inserted"] == ROWS, results
    assert (results["after_check"].get("inserted"), results["after_check"].get("already_exported")) == (0, True)
    assert count(server, "race_after_check") == ROWS  # every row exactly once


def test_an_export_committed_while_this_run_staged_leaves_its_staging_and_wins_alone(
        outcome: tuple[servers.Server, dict[str, Any]]) -> None:
    server, results = outcome
    # the other run did not drop this run's staging table (live: its heartbeat is fresh) and inserted the rows;
    # this run's commit then found the ledger row taken and inserted nothing
    assert results["before_commit_other"]["inserted"] == ROWS, results
    assert (results["before_commit"].get("inserted"), results["before_commit"].get("already_exported")) == (0, True)
    assert count(server, "race_before_commit") == ROWS
    # every run dropped its own staging table and its registration
    assert int(server.sql("SELECT COUNT(*) FROM falcon_export_staging "
                          "WHERE target_table = 'race_before_commit'").strip()) == 0


def test_an_import_removes_only_the_staging_of_runs_that_are_over(
        outcome: tuple[servers.Server, dict[str, Any]]) -> None:
    _, results = outcome
    assert results["import_beside_others"].get("rows") == 50, results
    assert results["siblings_left"] == ["live"]


def test_an_import_whose_target_appeared_before_the_rename_publishes_nothing(
        outcome: tuple[servers.Server, dict[str, Any]]) -> None:
    _, results = outcome
    assert "appeared while this run was publishing it" in results["appeared"].get("error", ""), results
    assert results["appeared_files"] == ["part-theirs"]  # no nested staging folder, no availability flag
    assert results["appeared_siblings"] == []
