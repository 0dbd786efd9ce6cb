"""Workspaces for the command-line tests, and how to run the installed ``falcon-airflow`` script."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.builders import cluster

REPOSITORY = Path(__file__).resolve().parents[3]

CLUSTER = cluster("primary", "file:///tmp/falcon-airflow-tests/primary",
                  locations={"staging": "/falcon/staging", "working": "/falcon/working"})

FEED = """\
<?xml version="1.0" encoding="UTF-8"?>
<feed name="{name}" xmlns="uri:falcon:feed:0.1">
    <frequency>hours(1)</frequency>{timezone}
    <clusters>
        <cluster name="{cluster}" type="source">
            <validity start="2026-01-01T00:00Z" end="2099-12-31T00:00Z"/>
            <retention limit="days(7)" action="delete"/>
        </cluster>
    </clusters>
    <locations>
        <location type="data" path="/data/{name}/${{YEAR}}-${{MONTH}}-${{DAY}}/${{HOUR}}"/>
    </locations>
    <ACL owner="falcon" group="users" permission="0755"/>
    <schema location="/schemas/{name}.csv" provider="csv"/>
</feed>
"""

PROCESS = """\
<?xml version="1.0" encoding="UTF-8"?>
<process name="count-clicks" xmlns="uri:falcon:process:0.1">
    <clusters>
        <cluster name="primary">
            <validity start="2026-01-01T00:00Z" end="2099-12-31T00:00Z"/>
        </cluster>
    </clusters>
    <parallel>1</parallel>
    <order>FIFO</order>
    <frequency>hours(1)</frequency>
    <inputs>
        <input name="clicks" feed="raw-clicks" start="now(0,0)" end="now(0,0)"/>
    </inputs>
    <outputs>
        <output name="counts" feed="click-counts" instance="now(0,0)"/>
    </outputs>
    <workflow engine="spark" path="apps"/>
    <spark-attributes>
        <name>count-clicks</name>
        <jar>apps/count_clicks.py</jar>
    </spark-attributes>
</process>
"""


def feed(name: str, *, cluster: str = "primary", timezone: str | None = None) -> str:
    zone = f"\n    <timezone>{timezone}</timezone>" if timezone else ""
    return FEED.format(name=name, cluster=cluster, timezone=zone)


VALID_FILES = {
    "clusters/primary.xml": CLUSTER,
    "feeds/click-counts.xml": feed("click-counts"),
    "feeds/raw-clicks.xml": feed("raw-clicks"),
    "processes/count-clicks.xml": PROCESS,
}

# what makes the invalid workspace invalid: a schema error, a reference to an undefined cluster, broken XML
INVALID_FILES = {
    **VALID_FILES,
    "feeds/bad-frequency.xml": feed("bad-frequency").replace("<frequency>hours(1)", "<frequency>hours(0)"),
    "feeds/orphan.xml": feed("orphan", cluster="nowhere"),
    "processes/broken.xml": "<process name='broken' xmlns='uri:falcon:process:0.1'>\n  <clusters>\n</process>\n",
}
INVALID_PATHS = frozenset({"feeds/bad-frequency.xml", "feeds/orphan.xml", "processes/broken.xml"})


class Kit:
    """What the tests need to know about the workspaces above (test modules cannot import a conftest)."""

    repository = REPOSITORY
    valid_files = VALID_FILES
    invalid_files = INVALID_FILES
    invalid_paths = INVALID_PATHS

    @staticmethod
    def feed(name: str, *, cluster: str = "primary", timezone: str | None = None) -> str:
        return feed(name, cluster=cluster, timezone=timezone)


@pytest.fixture
def kit() -> Kit:
    return Kit()


def write_files(folder: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


@pytest.fixture
def valid_workspace(tmp_path: Path) -> Path:
    return write_files(tmp_path / "valid", VALID_FILES)


@pytest.fixture
def invalid_workspace(tmp_path: Path) -> Path:
    return write_files(tmp_path / "invalid", INVALID_FILES)


@pytest.fixture
def make_workspace(tmp_path: Path) -> Callable[[str, dict[str, str]], Path]:
    """``make_workspace(name, {relative path: xml})``: a folder of entity files under tmp_path."""
    return lambda name, files: write_files(tmp_path / name, files)


@pytest.fixture(scope="session")
def console_script() -> Path:
    """The installed ``falcon-airflow`` script, next to the interpreter running the tests."""
    script = Path(sys.executable).parent / "falcon-airflow"
    if not script.exists():
        pytest.skip(f"falcon-airflow is not installed next to {sys.executable}")
    return script


RunScript = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_script(console_script: Path) -> RunScript:
    """Run the real console script; returns the completed process (never raises on a non-zero exit)."""

    def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(console_script), *args], capture_output=True, text=True, cwd=cwd, timeout=60,
                              check=False)

    return run
