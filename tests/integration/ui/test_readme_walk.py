"""Every command README.md shows runs as printed against a fresh ``make run``.

The README's code blocks are read, not copied: a new command in the README is walked the next time the suite runs.
Blocks that set up a machine or a cluster (``make``, ``docker``/``helm``, the sandbox's output) are named in
``NOT_RUN`` and skipped on purpose; any other block is run line by line in one bash shell, in the folder ``make
run`` was started from (its ``entities/`` and ``airflow-home/``), so ``export``s and variables carry over as they do
for a reader. Two things differ from a developer's machine, both substituted in the text before it runs: the
example's storage (/tmp/falcon-airflow) lives in the test's folder, and Airflow answers on a free port instead of
8080. The two files the README names as the reader's own (``my-process.xml``, ``feeds/new-feed.xml``) are written
from the example first.

Each command must exit as its comment says (``refused`` -> 1, else 0) and print no traceback; where the README
shows output after ``$ command``, the output must be exactly that.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from .make_run import REPOSITORY, RunningAirflow, api_get, make_run, wait_for

pytestmark = pytest.mark.xdist_group("airflow-ui")

README = REPOSITORY / "README.md"
# The first words of the blocks that are not commands against make run, and why.
NOT_RUN = {
    "make run": "the quickstart: what started this Airflow",
    "docker build": "the Helm deployment needs a registry and a Kubernetes cluster",
    '{"hdfs"': "the sandbox's status output, not a command",
    "make test": "the development targets: the suite itself",
}
FIRST_INSTANCE_TIMEOUT = 900  # count-clicks' instance: generate-clicks' Spark job, then its own (maybe next hour's)
COMMAND_TIMEOUT = 180
CONSUMER = "example.click-counts-consumer"
CONSUMER_TIMEOUT = 180  # the scheduler turns the asset event into a run, the run's one task ends
ACTIVE = {"WAITING", "READY", "RUNNING"}
WALK_MARGIN = timedelta(minutes=5)  # the walk takes about a minute; its $HOUR must still be the instance waited for


@dataclass(frozen=True)
class Command:
    line: str  # as printed (continuations joined)
    expected_exit: int
    expected_output: tuple[str, ...] | None  # the lines shown after ``$ command``, when the README shows them


def readme_blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current.append(line)
    assert current is None, "README.md has an unclosed code block"
    return blocks


def commands_of(block: list[str]) -> list[Command]:
    """A block's commands: ``$``-prefixed ones with the output lines that follow, or every line as a command."""
    commands: list[Command] = []
    if any(line.startswith("$ ") for line in block):
        for index, line in enumerate(block):
            if line.startswith("$ "):
                output = []
                for following in block[index + 1:]:
                    if following.startswith("$ "):
                        break
                    output.append(following)
                commands.append(Command(line[2:], expected_exit(line), tuple(output)))
        return commands
    pending = ""
    for line in block:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        line = pending + line
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            commands.append(Command(line, expected_exit(line), None))
    return commands


def expected_exit(line: str) -> int:
    comment = line.split(" # ", 1)[1] if " # " in line else ""
    return 1 if "refused" in comment else 0


def runnable_blocks(text: str) -> list[list[Command]]:
    blocks = readme_blocks(text)
    skipped = [block for block in blocks if any(block and block[0].startswith(words) for words in NOT_RUN)]
    assert len(skipped) == len(NOT_RUN), (
        "every block NOT_RUN names must still be in README.md (or leave NOT_RUN): "
        f"{[block[0] for block in skipped]}")
    return [commands_of(block) for block in blocks if block not in skipped]


def test_readme_parsing_sees_every_command_and_its_expected_exit() -> None:
    """The walk's reading of the README itself: no command is lost, refusals are expected as such."""
    walked = [command for block in runnable_blocks(README.read_text(encoding="utf-8")) for command in block]
    lines = [command.line.split()[0] for command in walked]
    # java: the stock Apache Falcon CLI against make run's api-server (docs/server.md)
    assert set(lines) <= {"falcon-airflow", "export", "HOUR=$(date", "java"}, lines
    assert any("org.apache.falcon.cli.FalconCLI admin -version" in command.line for command in walked)
    assert any(command.expected_exit == 1 and "-delete" in command.line for command in walked)
    el = [command for command in walked if command.line.startswith("falcon-airflow el ")]
    assert el and all(command.expected_output for command in el)


@dataclass(frozen=True)
class Outcome:
    command: Command
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def airflow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningAirflow]:
    with make_run(tmp_path_factory.mktemp("readme-walk")) as running:
        yield running


def readers_own_files(root: Path) -> None:
    """The files the README's commands name as the reader's: a new feed and a new process, from the example."""
    feed = (root / "entities" / "feeds" / "raw-clicks.xml").read_text(encoding="utf-8")
    (root / "feeds").mkdir(exist_ok=True)
    (root / "feeds" / "new-feed.xml").write_text(
        feed.replace('name="raw-clicks"', 'name="new-feed"').replace("/raw-clicks/", "/new-feed/"), encoding="utf-8")
    # count-clicks renamed, without its output (two writers of one feed are refused, FA008) and with a validity
    # in the past, so that scheduling it adds a DAG that has nothing to run.
    process = (root / "entities" / "processes" / "count-clicks.xml").read_text(encoding="utf-8")
    process = re.sub(r"\s*<outputs>.*?</outputs>|\s*<late-process .*?</late-process>", "", process, flags=re.S)
    process = process.replace('name="count-clicks"', 'name="my-process"').replace(
        'end="2099-12-31T00:00Z"', 'end="2026-01-02T00:00Z"')
    (root / "my-process.xml").write_text(process, encoding="utf-8")


def walk(airflow: RunningAirflow, blocks: list[list[Command]]) -> list[Outcome]:
    """Run every command in one bash shell, in order; each one's exit code, stdout and stderr."""
    root = airflow.root
    results = root / "walk"
    results.mkdir()
    script = ["set +e", f"export PATH={shlex.quote(str(REPOSITORY / '.venv' / 'bin'))}:$PATH"]
    commands = [command for block in blocks for command in block]
    for index, command in enumerate(commands):
        script.append(f"{{ {command.line}\n}} > {results}/{index}.out 2> {results}/{index}.err < /dev/null; "
                      f"echo $? > {results}/{index}.rc")
    env = {"HOME": str(root), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           # the jar cache `make install` filled, which a reader's $HOME holds and this temporary HOME does not
           "FALCON_AIRFLOW_JARS": os.environ.get("FALCON_AIRFLOW_JARS")
           or str(Path.home() / ".cache" / "falcon-airflow" / "jars"),
           # the reader's make run answers on 8080, which the deployment's API defaults to; this one's port differs
           "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{airflow.port}"}
    subprocess.run(["bash", "-c", "\n".join(script)], cwd=root, env=env, check=False,
                   timeout=COMMAND_TIMEOUT * len(commands))
    outcomes = []
    for index, command in enumerate(commands):
        code = (results / f"{index}.rc").read_text().strip() if (results / f"{index}.rc").exists() else "-1"
        outcomes.append(Outcome(command, int(code), (results / f"{index}.out").read_text(errors="replace"),
                                (results / f"{index}.err").read_text(errors="replace")))
    return outcomes


def test_every_readme_command_runs_as_printed(airflow: RunningAirflow) -> None:
    root = airflow.root
    text = README.read_text(encoding="utf-8")
    text = text.replace("/tmp/falcon-airflow/", f"{root / 'storage'}/").replace(
        "127.0.0.1:8080", f"127.0.0.1:{airflow.port}")
    blocks = runnable_blocks(text)
    readers_own_files(root)

    # The lineage and operate commands are about this hour's count-clicks instance: wait until make run has run it
    # (the next hour's, when this one ends before the walk would).
    def this_hours_instance_done() -> dict[str, Any] | None:
        hour = (datetime.now(UTC) + WALK_MARGIN).replace(minute=0, second=0, microsecond=0)
        instance = airflow.instance(hour, process="count-clicks")
        return instance if instance is not None and instance["status"] not in ACTIVE else None

    done = wait_for("this hour's count-clicks instance to end", this_hours_instance_done, FIRST_INSTANCE_TIMEOUT,
                    interval=10)
    assert done["status"] == "SUCCEEDED", f"make run's pipeline failed: {done}\n{airflow.tail()}"
    # The user's DAG on the click-counts asset (dags/example_feed_consumer.py) runs for that instance.
    def consumer_ran() -> list[dict[str, Any]]:
        runs = api_get(airflow, f"dags/{CONSUMER}/dagRuns?limit=50")["dag_runs"]
        return [run for run in runs if run.get("partition_key") == done["instance"] and run["state"] == "success"]

    wait_for(f"{CONSUMER} to run for click-counts {done['instance']}", consumer_ran, CONSUMER_TIMEOUT)

    problems = []
    for outcome in walk(airflow, blocks):
        said = f"$ {outcome.command.line}\n--- exit {outcome.exit_code}\n{outcome.stdout}{outcome.stderr}"
        if outcome.exit_code != outcome.command.expected_exit:
            problems.append(f"expected exit {outcome.command.expected_exit}:\n{said}")
        elif "Traceback" in outcome.stdout + outcome.stderr:
            problems.append(f"a traceback:\n{said}")
        elif outcome.command.expected_output is not None and \
                tuple(outcome.stdout.rstrip("\n").splitlines()) != outcome.command.expected_output:
            problems.append("output differs from the README's:\n" + said + "--- README shows\n"
                            + "\n".join(outcome.command.expected_output))
    assert not problems, "\n\n".join(problems) + f"\n\n--- the last lines of make run ---\n{airflow.tail()}"

    # And what the README promises about the environment check while make run is up.
    check = subprocess.run([str(REPOSITORY / ".venv" / "bin" / "falcon-airflow"), "validate", "--check-environment",
                            "entities/"], cwd=root, capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                           check=False)
    assert check.returncode == 0, check.stdout + check.stderr
