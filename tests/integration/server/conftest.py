"""A real Airflow api-server serving the Falcon server at /falcon (a temporary home, SQLite, a free port of
127.0.0.1; :class:`tests.integration.operate.harness.AirflowServer`), and the stock Apache Falcon 0.9 CLI from the
JVM jar cache (`make jars`, group ``falcon-cli``)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.integration.operate.harness import AirflowServer
from tests.integration.ui.make_run import RunningAirflow, make_run

from falcon_airflow import jvm

FALCON_CLI = "org.apache.falcon.cli.FalconCLI"
# Falcon 0.9's JAXB 2.2 injects accessor classes into class loaders, which Java 17 allows only when java.lang is
# opened to it; Falcon ran on Java 7 and 8, where nothing had to be said.
JAVA_OPTIONS = ("--add-opens", "java.base/java.lang=ALL-UNNAMED")


@dataclass
class StockCli:
    """``falcon <args> -url <url>`` as Falcon's users ran it."""

    classpath: str
    workdir: Path

    def __call__(self, *args: str, url: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("FALCON_", "AIRFLOW"))}
        return subprocess.run(["java", *JAVA_OPTIONS, "-cp", self.classpath, FALCON_CLI, *args, "-url", url],
                              cwd=self.workdir, env=env, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="session")
def stock_cli(tmp_path_factory: pytest.TempPathFactory) -> StockCli:
    try:
        jars = jvm.jar_group("falcon-cli")
    except jvm.JarCacheError as missing:
        pytest.fail(str(missing), pytrace=False)
    return StockCli(os.pathsep.join(str(jar) for jar in jars), tmp_path_factory.mktemp("falcon-cli"))


def _serve(root: Path, scheme: str) -> Iterator[AirflowServer]:
    airflow = AirflowServer.prepare(root)
    airflow.env["AIRFLOW__FALCON__AUTHENTICATION"] = scheme
    airflow.env["AIRFLOW__FALCON__AIRFLOW_USER"] = "admin"  # who the server acts as in Airflow, as make run says
    airflow.start()
    try:
        yield airflow
    finally:
        airflow.stop()


@pytest.fixture(scope="module")
def simple_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AirflowServer]:
    """The api-server with Falcon's simple scheme on, as ``make run`` starts it."""
    yield from _serve(tmp_path_factory.mktemp("falcon-simple"), "simple")


@pytest.fixture(scope="module")
def airflow_only_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AirflowServer]:
    """The api-server accepting Airflow's tokens only."""
    yield from _serve(tmp_path_factory.mktemp("falcon-airflow-only"), "airflow")


# The clickstream without the orders import and the report, as the UI tests run it: on a busy 2-core machine every
# Spark job the scheduler starts beside generate-clicks delays its instances.
CLICKSTREAM_LEFT_OUT = ("feeds/orders.xml", "feeds/click-reports.xml", "processes/report-clicks.xml",
                        "apps/report-clicks")


@pytest.fixture(scope="module")
def clickstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningAirflow]:
    """``make run`` (its api-server, scheduler, dag-processor and triggerer; SQLite; Falcon's simple scheme) with the
    example's clickstream, whose instances the scheduler runs for real."""
    with make_run(tmp_path_factory.mktemp("falcon-clickstream"), leave_out=CLICKSTREAM_LEFT_OUT) as running:
        yield running
