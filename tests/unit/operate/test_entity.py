"""Entity operations against an in-memory Airflow: Falcon's semantics, messages and idempotency, and atomic
multi-step actions that survive a crash half-way."""

from __future__ import annotations

import contextlib
import io
import os
import pwd
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ops_cluster, ops_feed, ops_process

from falcon_airflow.cli import build_parser
from falcon_airflow.cli.registry import load
from falcon_airflow.entities import EntityType
from falcon_airflow.operate import entity_actions as entity
from falcon_airflow.operate.config_store import Store
from falcon_airflow.operate.dag_control import _parsed_since
from falcon_airflow.operate.journal import Journal

from .helpers import Kit

PROCESS_DAG = "falcon.process.count.east"


def paused(kit: Kit, dag_id: str) -> bool:
    return bool(kit.airflow.dags_by_id[dag_id]["is_paused"])


# -- submit and validate -------------------------------------------------------------------------------------------

def test_submit_validates_with_the_store_and_writes_the_definition(pipeline: Kit) -> None:
    draft = pipeline.draft("clicks.xml", ops_feed("clicks"))
    code, out, err = pipeline.run("entity", "-submit", "-type", "feed", "-file", str(draft))

    assert (code, out.strip()) == (0, "Submit successful (feed) clicks"), err
    assert (pipeline.root / "feeds" / "clicks.xml").read_text() == draft.read_text()
    assert pipeline.airflow.reparse_requests == 1
    assert not list((Store(pipeline.root).meta / "journal").glob("*.json"))


def test_submitting_the_same_definition_again_changes_nothing(pipeline: Kit) -> None:
    draft = pipeline.draft("logs.xml", "<!-- reformatted -->\n" + ops_feed("logs"))
    before = (pipeline.root / "feeds" / "logs.xml").read_bytes()

    code, out, _ = pipeline.run("entity", "-submit", "-type", "feed", "-file", str(draft))

    assert (code, out.strip()) == (0, "Submit successful (feed) logs")
    assert (pipeline.root / "feeds" / "logs.xml").read_bytes() == before
    assert not (pipeline.root / "feeds" / "logs-2.xml").exists()


def test_a_different_definition_under_a_taken_name_is_refused(pipeline: Kit) -> None:
    draft = pipeline.draft("logs.xml", ops_feed("logs", days=9))
    code, _, err = pipeline.run("entity", "-submit", "-type", "feed", "-file", str(draft))
    assert code == 1
    assert err.strip() == ("ERROR: (feed) logs already registered with configuration store. Can't be submitted "
                           "again. Try removing before submitting.")


def test_an_invalid_definition_is_refused_with_the_rule_and_nothing_is_written(kit: Kit) -> None:
    draft = kit.draft("logs.xml", ops_feed("logs"))  # its cluster 'east' is not in the store
    code, _, err = kit.run("entity", "-submit", "-type", "feed", "-file", str(draft))
    assert code == 1
    assert "east" in err.splitlines()[0] and "[F" in err
    assert not (kit.root / "feeds").exists()


def test_the_file_must_hold_the_given_type(pipeline: Kit) -> None:
    draft = pipeline.draft("east.xml", ops_cluster("north"))
    code, _, err = pipeline.run("entity", "-submit", "-type", "feed", "-file", str(draft))
    assert code == 1
    assert "defines a cluster, not a feed" in err
    code, _, err = pipeline.run("entity", "-submit", "-type", "feed", "-file", str(pipeline.inbox / "none.xml"))
    assert (code, err.strip()) == (1, f"ERROR: File not found: {pipeline.inbox / 'none.xml'}")
    code, _, err = pipeline.run("entity", "-submit", "-type", "feed")
    assert (code, err.strip()) == (2, "ERROR: Missing argument : file")


def test_validate_checks_without_writing(pipeline: Kit) -> None:
    draft = pipeline.draft("clicks.xml", ops_feed("clicks"))
    code, out, _ = pipeline.run("entity", "-validate", "-type", "feed", "-file", str(draft))
    assert (code, out.strip()) == (0, "Validated successfully (FEED) clicks")
    assert not (pipeline.root / "feeds" / "clicks.xml").exists()
    changed = pipeline.draft("logs.xml", ops_feed("logs", days=9))  # as a replacement of the stored one
    assert pipeline.run("entity", "-validate", "-type", "feed", "-file", str(changed))[0] == 0


def test_submit_records_doas_as_the_proxy_user(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    account = pwd.getpwuid(os.getuid()).pw_name.upper()  # -doAs follows the proxy-user rules (docs/security.md)
    monkeypatch.setenv(f"AIRFLOW__FALCON__PROXYUSER.{account}.HOSTS", "*")
    monkeypatch.setenv(f"AIRFLOW__FALCON__PROXYUSER.{account}.GROUPS", "*")
    draft = pipeline.draft("other.xml", ops_process("other", output="logs"))
    assert pipeline.run("entity", "-submit", "-type", "process", "-file", str(draft), "-doAs", "alice")[0] == 0
    assert Store(pipeline.root).proxy_user(EntityType.PROCESS, "other") == "alice"


# -- schedule, suspend, resume, status ---------------------------------------------------------------------------

def test_schedule_suspend_resume_and_status(pipeline: Kit) -> None:
    def status() -> str:
        return pipeline.run("entity", "-status", "-type", "process", "-name", "count")[1].strip()

    assert status() == "SUBMITTED"
    code, out, _ = pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")
    assert (code, out.strip()) == (0, "count(process) scheduled successfully")
    assert not paused(pipeline, PROCESS_DAG)
    assert status() == "RUNNING"
    assert pipeline.run("entity", "-status", "-type", "process", "-name", "count", "-showScheduler")[1].strip() \
        == "RUNNING (scheduled on airflow)"

    code, out, _ = pipeline.run("entity", "-suspend", "-type", "process", "-name", "count")
    assert (code, out.strip()) == (0, "count(process) suspended successfully")
    assert paused(pipeline, PROCESS_DAG)
    assert status() == "SUSPENDED"

    code, out, _ = pipeline.run("entity", "-resume", "-type", "process", "-name", "count")
    assert (code, out.strip()) == (0, "count(process) resumed successfully")
    assert status() == "RUNNING"


def test_schedule_suspend_resume_are_idempotent(pipeline: Kit) -> None:
    for action, expected in (("-schedule", "scheduled"), ("-suspend", "suspended"), ("-resume", "resumed")):
        first = pipeline.run("entity", action, "-type", "feed", "-name", "counts")
        calls = len(pipeline.airflow.calls)
        second = pipeline.run("entity", action, "-type", "feed", "-name", "counts")
        assert first[:2] == second[:2] == (0, f"counts(feed) {expected} successfully\n")
        assert not [call for call in pipeline.airflow.calls[calls:] if call.startswith("set_paused")]
    assert {dag_id for dag_id in pipeline.airflow.dags_by_id if not paused(pipeline, dag_id)} == {
        "falcon.feed.counts.replication.east.west", "falcon.feed.counts.retention.east",
        "falcon.feed.counts.retention.west"}


def test_suspend_and_resume_need_a_scheduled_entity(pipeline: Kit) -> None:
    code, _, err = pipeline.run("entity", "-suspend", "-type", "process", "-name", "count")
    assert (code, err.strip()) == (1, "ERROR: count(process) is not scheduled")
    code, _, err = pipeline.run("entity", "-resume", "-type", "process", "-name", "count")
    assert (code, err.strip()) == (1, "ERROR: count(process) is not scheduled")


def test_clusters_cannot_be_scheduled(pipeline: Kit) -> None:
    code, _, err = pipeline.run("entity", "-schedule", "-type", "cluster", "-name", "east")
    assert (code, err.strip()) == (1, "ERROR: Entity type (cluster)  cannot be Scheduled/Suspended/Resumed")
    code, _, err = pipeline.run("entity", "-schedule", "-type", "process", "-name", "nothing")
    assert (code, err.strip()) == (1, "ERROR: nothing (process) not found")


def test_schedule_before_airflow_parsed_the_entity_finishes_with_the_next_command(pipeline: Kit) -> None:
    del pipeline.airflow.dags_by_id[PROCESS_DAG]
    code, out, _ = pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")
    assert code == 1
    assert "Airflow has not registered DAG(s) falcon.process.count.east yet" in out
    assert len(list((Store(pipeline.root).meta / "journal").glob("*.json"))) == 1

    pipeline.airflow.add_dag(PROCESS_DAG)  # the dag-processor parsed the store (paused at creation)
    code, out, err = pipeline.run("entity", "-status", "-type", "process", "-name", "count")

    assert "completed the interrupted schedule of (process) count" in err
    assert (code, out.strip()) == (0, "RUNNING")
    assert not paused(pipeline, PROCESS_DAG)


def test_a_dag_unpaused_by_hand_makes_the_entity_running(pipeline: Kit) -> None:
    pipeline.airflow.dags_by_id[PROCESS_DAG]["is_paused"] = False
    assert pipeline.run("entity", "-status", "-type", "process", "-name", "count")[1].strip() == "RUNNING"
    assert pipeline.run("entity", "-suspend", "-type", "process", "-name", "count")[0] == 0


def test_submit_and_schedule(pipeline: Kit) -> None:
    pipeline.airflow.on_reparse = lambda: pipeline.airflow.add_dag("falcon.process.other.east")
    draft = pipeline.draft("other.xml", ops_process("other", output="logs"))
    code, out, _ = pipeline.run("entity", "-submitAndSchedule", "-type", "process", "-file", str(draft))
    assert (code, out.strip()) == (0, "other(process) scheduled successfully")
    assert not paused(pipeline, "falcon.process.other.east")
    again = pipeline.run("entity", "-submitAndSchedule", "-type", "process", "-file", str(draft))
    assert again[:2] == (0, "other(process) scheduled successfully\n")


def test_properties_given_to_a_schedule_are_answered_as_not_applied(pipeline: Kit) -> None:
    pipeline.airflow.on_reparse = lambda: pipeline.airflow.add_dag("falcon.process.other.east")
    draft = pipeline.draft("other.xml", ops_process("other", output="logs"))
    code, out, err = pipeline.run("entity", "-submitAndSchedule", "-type", "process", "-file", str(draft),
                                  "-properties", "falcon.scheduler:native,queueName:etl")
    assert (code, out.strip()) == (0, "other(process) scheduled successfully")
    assert "-properties falcon.scheduler, queueName not applied" in err and "<properties>" in err
    code, out, err = pipeline.run("entity", "-schedule", "-type", "process", "-name", "other", "-properties",
                                  "queueName:etl")
    assert code == 0 and "-properties queueName not applied" in err
    code, _, err = pipeline.run("entity", "-schedule", "-type", "process", "-name", "other", "-properties", "x")
    assert code != 0 and "Found invalid property x" in err


# -- delete --------------------------------------------------------------------------------------------------------

def test_delete_is_refused_while_other_entities_refer_to_it(pipeline: Kit) -> None:
    code, _, err = pipeline.run("entity", "-delete", "-type", "feed", "-name", "logs")
    assert code == 1
    assert err.strip() == "ERROR: logs(FEED) cant be removed as it is referred by (count,PROCESS)"
    code, _, err = pipeline.run("entity", "-delete", "-type", "cluster", "-name", "east")
    assert err.splitlines()[0] == "ERROR: east(CLUSTER) cant be removed as it is referred by (counts,FEED)"
    assert err.splitlines()[1:] == ["(logs,FEED)", "(count,PROCESS)"]


def test_delete_kills_running_instances_drops_the_dags_and_archives_the_definition(pipeline: Kit) -> None:
    from datetime import UTC, datetime

    assert pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")[0] == 0
    run = pipeline.airflow.add_run(PROCESS_DAG, datetime(2026, 5, 1, 3, tzinfo=UTC))
    pipeline.airflow.set_tis(run, wait_for_input="success", clear_outputs="success", workflow="running")
    definition = (pipeline.root / "processes" / "count.xml").read_bytes()

    code, out, _ = pipeline.run("entity", "-delete", "-type", "process", "-name", "count")

    assert (code, out.strip()) == (0, "count(process) removed successfully (KILLED in WF_ENGINE)")
    assert PROCESS_DAG not in pipeline.airflow.dags_by_id
    assert any(call.startswith(f"patch_run {run.run_id} failed") for call in pipeline.airflow.calls)
    assert not (pipeline.root / "processes" / "count.xml").exists()
    (archived,) = Store(pipeline.root).history(EntityType.PROCESS, "count")
    assert archived.read_bytes() == definition
    assert Store(pipeline.root).schedule_state(EntityType.PROCESS, "count") is None

    code, out, _ = pipeline.run("entity", "-delete", "-type", "process", "-name", "count")
    assert (code, out.strip()) == (0, "count(process) doesn't exist. Nothing to do")


def test_delete_of_a_cluster_nothing_uses(kit: Kit) -> None:
    kit.write("clusters/east.xml", ops_cluster())
    code, out, _ = kit.run("entity", "-delete", "-type", "cluster", "-name", "east")
    assert (code, out.strip()) == (0, "east(cluster) removed successfully")
    assert len(Store(kit.root).history(EntityType.CLUSTER, "east")) == 1


def add_west_dags(kit: Kit) -> None:
    """What the dag-processor registers once logs is also on west (paused at creation)."""
    kit.airflow.add_dag("falcon.feed.logs.retention.west", ("retention",))
    kit.airflow.add_dag("falcon.feed.logs.replication.east.west", ("wait_for_source", "replicate"))


# -- update --------------------------------------------------------------------------------------------------------

def test_update_keeps_name_and_type(pipeline: Kit) -> None:
    renamed = pipeline.draft("logs.xml", ops_feed("blogs"))
    code, _, err = pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file", str(renamed))
    assert (code, err.strip()) == (1, "ERROR: (feed) logs can't be updated with (feed) blogs")
    code, _, err = pipeline.run("entity", "-update", "-type", "feed", "-name", "nothing", "-file",
                                str(pipeline.draft("nothing.xml", ops_feed("nothing"))))
    assert (code, err.strip()) == (1, "ERROR: nothing (feed) not found")


def test_update_archives_the_old_definition_and_writes_the_new_one(pipeline: Kit) -> None:
    old = (pipeline.root / "feeds" / "logs.xml").read_bytes()
    draft = pipeline.draft("logs.xml", ops_feed("logs", days=5))

    code, out, _ = pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file", str(draft))

    assert code == 0
    assert out.splitlines()[0] == "Updated successfully"
    assert "re-parsed with it: falcon.process.count.east" in out
    assert (pipeline.root / "feeds" / "logs.xml").read_bytes() == draft.read_bytes()
    (archived,) = Store(pipeline.root).history(EntityType.FEED, "logs")
    assert archived.read_bytes() == old
    assert pipeline.airflow.reparse_requests == 1

    code, out, _ = pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file", str(draft))
    assert (code, out.strip()) == (0, "Updated successfully: (feed) logs is unchanged")
    assert len(Store(pipeline.root).history(EntityType.FEED, "logs")) == 1


def test_a_feed_update_that_breaks_a_dependent_process_is_refused(pipeline: Kit) -> None:
    west_only = ops_feed("logs", west=True).replace('<cluster name="east" type="source">', '<cluster name="x">', 1)
    west_only = west_only.replace('<cluster name="x">', '<cluster name="west" type="source">')
    west_only = west_only.replace('<cluster name="west" type="target">', '<cluster name="north" type="target">')
    pipeline.write("clusters/north.xml", ops_cluster("north"))
    draft = pipeline.draft("logs.xml", west_only)

    code, _, err = pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file", str(draft))

    assert code == 1
    assert err.startswith("ERROR: Process count is not compatible with changes to feed logs: ")
    assert (pipeline.root / "feeds" / "logs.xml").read_text() == ops_feed("logs")


def test_update_drops_dags_of_removed_clusters_and_unpauses_new_ones_of_a_running_entity(pipeline: Kit) -> None:
    assert pipeline.run("entity", "-schedule", "-type", "feed", "-name", "logs")[0] == 0
    pipeline.airflow.on_reparse = lambda: add_west_dags(pipeline)
    grown = pipeline.draft("logs.xml", ops_feed("logs", west=True))
    code, out, _ = pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file", str(grown))
    assert code == 0, out
    assert "new DAG(s): falcon.feed.logs.replication.east.west, falcon.feed.logs.retention.west" in out
    assert not paused(pipeline, "falcon.feed.logs.retention.west")
    assert not paused(pipeline, "falcon.feed.logs.replication.east.west")

    shrunk = pipeline.draft("logs2.xml", ops_feed("logs"))
    code, out, _ = pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file", str(shrunk))
    assert code == 0, out
    assert "falcon.feed.logs.retention.west" not in pipeline.airflow.dags_by_id
    assert "falcon.feed.logs.replication.east.west" not in pipeline.airflow.dags_by_id
    assert "falcon.feed.logs.retention.east" in pipeline.airflow.dags_by_id
    assert "deleted DAG(s) of removed clusters: falcon.feed.logs.replication.east.west, " \
           "falcon.feed.logs.retention.west" in out


def test_the_update_of_a_running_process_answers_once_airflow_has_parsed_it(pipeline: Kit) -> None:
    assert pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")[0] == 0
    draft = pipeline.draft("count.xml", ops_process("count", order="LIFO"))
    code, out, err = pipeline.run("entity", "-update", "-type", "process", "-name", "count", "-file", str(draft))
    assert code == 0, err
    assert "not parsed" not in out + err
    assert pipeline.airflow.dags_by_id[PROCESS_DAG]["last_parsed_time"]


def test_an_update_airflow_has_not_parsed_yet_says_so(pipeline: Kit) -> None:
    assert pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")[0] == 0
    pipeline.airflow.parse_on_request = False
    draft = pipeline.draft("count.xml", ops_process("count", order="LIFO"))
    code, out, err = pipeline.run("entity", "-update", "-type", "process", "-name", "count", "-file", str(draft))
    assert code == 0, err
    assert (f"Airflow has not parsed the new definition into DAG(s) {PROCESS_DAG} yet: runs it creates before it "
            "does use the previous one") in out + err


def test_a_dag_counts_as_parsed_from_the_bundle_revision_else_from_its_parse_time() -> None:
    since = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    before, after = "2026-06-01T11:59:59+00:00", "2026-06-01T12:00:01Z"
    assert not _parsed_since({"bundle_version": "7", "last_parsed_time": after}, since, 8)
    assert _parsed_since({"bundle_version": "8", "last_parsed_time": before}, since, 8)
    assert _parsed_since({"bundle_version": "9"}, since, 8)
    assert _parsed_since({"bundle_version": None, "last_parsed_time": after}, since, 8)
    assert not _parsed_since({"bundle_version": None, "last_parsed_time": before}, since, None)
    assert not _parsed_since({"last_parsed_time": None}, since, None)


# -- touch, definition, dependency, list, summary -------------------------------------------------------------------

def test_touch_asks_airflow_to_reparse(pipeline: Kit) -> None:
    code, out, _ = pipeline.run("entity", "-touch", "-type", "process", "-name", "count")
    assert code == 0 and "touched" in out
    assert pipeline.airflow.reparse_requests == 1


def test_definition_prints_the_stored_xml(pipeline: Kit) -> None:
    code, out, _ = pipeline.run("entity", "-definition", "-type", "process", "-name", "count")
    assert (code, out) == (0, ops_process("count").rstrip("\n") + "\n")
    code, _, err = pipeline.run("entity", "-definition", "-type", "process", "-name", "nothing")
    assert (code, err.strip()) == (1, "ERROR: nothing (process) not found")


def test_dependency_lists_both_directions_with_input_output_tags(pipeline: Kit) -> None:
    code, out, _ = pipeline.run("entity", "-dependency", "-type", "process", "-name", "count")
    assert (code, out.splitlines()) == (0, ["(cluster) east", "(feed) logs - [Input]", "(feed) counts - [Output]"])
    code, out, _ = pipeline.run("entity", "-dependency", "-type", "feed", "-name", "logs")
    assert out.splitlines() == ["(cluster) east", "(process) count - [Input]"]


def test_list_with_fields_filters_order_and_paging(pipeline: Kit) -> None:
    assert pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")[0] == 0
    code, out, _ = pipeline.run("entity", "-list")
    assert out.splitlines() == ["Total Results: 5", "(cluster) east", "(cluster) west", "(feed) counts",
                                "(feed) logs", "(process) count"]
    code, out, _ = pipeline.run("entity", "-list", "-type", "feed,process", "-fields", "status,clusters",
                                "-orderBy", "name", "-sortOrder", "desc")
    assert out.splitlines() == ["Total Results: 3", "(feed) logs(SUBMITTED) - [east]",
                                "(feed) counts(SUBMITTED) - [east, west]", "(process) count(RUNNING) - [east]"]
    code, document = pipeline.json("entity", "-list", "-filterBy", "STATUS:running")
    assert document["entity"] == [{"type": "process", "name": "count"}]
    code, document = pipeline.json("entity", "-list", "-nameseq", "cnt", "-offset", "0", "-numResults", "1")
    assert (document["totalResults"], document["entity"]) == (2, [{"type": "feed", "name": "counts"}])
    code, out, _ = pipeline.run("entity", "-list", "-type", "datasource")
    assert (code, out.strip()) == (0, "No entity of type (datasource) found.")
    code, _, err = pipeline.run("entity", "-list", "-numResults", "0")
    assert code == 1
    assert err.strip() == "ERROR: Value for param numResults should be > than 0  : 0"


def test_summary_needs_a_schedulable_type_and_a_cluster(pipeline: Kit) -> None:
    code, _, err = pipeline.run("entity", "-summary", "-type", "cluster", "-cluster", "east")
    assert err.strip() == "ERROR: Invalid entity type CLUSTER for EntitySummary API. Valid options are feed or process"
    code, _, err = pipeline.run("entity", "-summary", "-type", "feed")
    assert (code, err.strip()) == (2, "ERROR: Missing argument : cluster")
    code, document = pipeline.json("entity", "-summary", "-type", "feed", "-cluster", "west")
    assert [item["name"] for item in document["entitySummary"]] == ["counts"]


# -- crashes half-way ----------------------------------------------------------------------------------------------

@contextlib.contextmanager
def crash_at(action: str, step: str, error: type[BaseException] = KeyboardInterrupt) -> Iterator[None]:
    """Run the block with step ``step`` of ``action`` crashing (the process dies there); the block must raise."""

    def boom(context: Any, journal: Journal) -> None:
        raise error(f"crash before {step}")

    with pytest.MonkeyPatch.context() as patch, pytest.raises(error):
        patch.setitem(entity.ACTIONS[action].do, step, boom)  # type: ignore[arg-type]
        yield


def test_a_delete_interrupted_after_its_commit_point_is_completed(pipeline: Kit) -> None:
    with crash_at("delete", "drop"):
        pipeline.run("entity", "-delete", "-type", "process", "-name", "count")
    assert not (pipeline.root / "processes" / "count.xml").exists()  # committed: archived
    assert PROCESS_DAG in pipeline.airflow.dags_by_id

    _code, out, err = pipeline.run("entity", "-list", "-type", "process")

    assert "completed the interrupted delete of (process) count" in err
    assert PROCESS_DAG not in pipeline.airflow.dags_by_id
    assert out.strip() == "No entity of type (process) found."
    assert not list((Store(pipeline.root).meta / "journal").glob("*.json"))


def test_a_delete_interrupted_before_its_commit_point_is_undone(pipeline: Kit) -> None:
    assert pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")[0] == 0
    with crash_at("delete", "archive", SystemExit):
        pipeline.run("entity", "-delete", "-type", "process", "-name", "count")
    assert paused(pipeline, PROCESS_DAG)  # the first step had paused it

    code, out, err = pipeline.run("entity", "-status", "-type", "process", "-name", "count")

    assert "undid the interrupted delete of (process) count" in err
    assert (code, out.strip()) == (0, "RUNNING")
    assert not paused(pipeline, PROCESS_DAG)
    assert (pipeline.root / "processes" / "count.xml").exists()


def test_an_update_interrupted_after_writing_is_completed(pipeline: Kit) -> None:
    assert pipeline.run("entity", "-schedule", "-type", "feed", "-name", "logs")[0] == 0
    pipeline.airflow.on_reparse = lambda: add_west_dags(pipeline)
    grown = pipeline.draft("logs.xml", ops_feed("logs", west=True))
    with crash_at("update", "sync"):
        pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file", str(grown))
    assert (pipeline.root / "feeds" / "logs.xml").read_bytes() == grown.read_bytes()

    _, _, err = pipeline.run("instance", "-status", "-type", "feed", "-name", "logs")

    assert "completed the interrupted update of (feed) logs" in err
    assert not paused(pipeline, "falcon.feed.logs.retention.west")


def test_an_update_interrupted_before_writing_is_undone(pipeline: Kit) -> None:
    old = (pipeline.root / "feeds" / "logs.xml").read_bytes()
    with crash_at("update", "write"):
        pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file",
                     str(pipeline.draft("logs.xml", ops_feed("logs", days=7))))
    assert len(Store(pipeline.root).history(EntityType.FEED, "logs")) == 1

    _, _, err = pipeline.run("entity", "-definition", "-type", "feed", "-name", "logs")

    assert "undid the interrupted update of (feed) logs" in err
    assert (pipeline.root / "feeds" / "logs.xml").read_bytes() == old
    assert Store(pipeline.root).history(EntityType.FEED, "logs") == []


def test_submit_and_schedule_interrupted_after_submitting_is_scheduled_by_the_next_command(pipeline: Kit) -> None:
    pipeline.airflow.add_dag("falcon.process.other.east")
    draft = pipeline.draft("other.xml", ops_process("other", output="logs"))
    with crash_at("submitAndSchedule", "unpause"):
        pipeline.run("entity", "-submitAndSchedule", "-type", "process", "-file", str(draft))

    code, out, err = pipeline.run("entity", "-status", "-type", "process", "-name", "other")

    assert "completed the interrupted submitAndSchedule of (process) other" in err
    assert (code, out.strip()) == (0, "RUNNING")


def test_changes_to_an_entity_wait_while_its_interrupted_action_cannot_finish(pipeline: Kit) -> None:
    with crash_at("delete", "drop"):
        pipeline.run("entity", "-delete", "-type", "process", "-name", "count")
    pipeline.airflow.reachable = False

    code, _, err = pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")

    assert code == 1
    assert "the interrupted delete of (process) count could not be finished now (cannot reach Airflow" in err
    assert "ERROR: an interrupted delete of (process) count is not finished yet" in err
    pipeline.airflow.reachable = True
    assert "completed the interrupted delete" in pipeline.run("entity", "-list")[2]


def test_an_invalid_entity_is_invalid_with_its_rules_not_submitted(pipeline: Kit) -> None:
    # retention shorter than the late-arrival cut-off (F9) is a rule only the whole definition breaks
    broken = ops_feed("logs").replace("<frequency>hours(1)</frequency>",
                                      '<frequency>hours(1)</frequency>\n  <late-arrival cut-off="days(9)"/>')
    pipeline.write("feeds/logs.xml", broken)
    code, out, _ = pipeline.run("entity", "-status", "-type", "feed", "-name", "logs")
    assert (code, out.strip()) == (0, "INVALID (F9; falcon-airflow validate says why)")
    code, document = pipeline.json("entity", "-status", "-type", "process", "-name", "count")
    assert (code, document["entityStatus"], document["rules"]) == (0, "INVALID", ["FA101"])

    code, out, _ = pipeline.run("entity", "-list", "-type", "feed,process", "-fields", "status")
    assert "(feed) logs(INVALID: F9)" in out.splitlines()
    assert "(process) count(INVALID: FA101)" in out.splitlines()
    assert "(feed) counts(SUBMITTED)" in out.splitlines()
    code, document = pipeline.json("entity", "-list", "-type", "feed", "-fields", "status", "-filterBy",
                                   "STATUS:INVALID")
    assert [(item["name"], item["rules"]) for item in document["entity"]] == [("logs", ["F9"])]


def test_commands_outside_an_entities_folder_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no entities/ here, and none named
    monkeypatch.delenv("FALCON_ENTITIES_DIR", raising=False)
    for argv in (("entity", "-list"), ("instance", "-status", "-type", "feed", "-name", "logs"),
                 ("metadata", "-dimensions")):
        args = build_parser().parse_args(list(argv))
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = load(args.run)(args)
        assert code == 1, argv
        assert f"no entities folder found at {tmp_path / 'entities'}" in err.getvalue()


@pytest.mark.parametrize(("kind", "name", "broken"), [
    # an element the schema does not know
    ("feed", "logs", lambda: ops_feed("logs").replace("<frequency>", "<frequenzy>x</frequenzy><frequency>", 1)),
    # a required element left out
    ("feed", "logs", lambda: ops_feed("logs").replace("<frequency>hours(1)</frequency>", "")),
    # an attribute value outside its type
    ("process", "count", lambda: ops_process("count").replace("<parallel>1</parallel>", "<parallel>many</parallel>")),
    # a cluster with an interface type Falcon does not have
    ("cluster", "east", lambda: ops_cluster("east").replace('type="write"', 'type="scribble"', 1)),
])
def test_a_definition_the_schema_refuses_is_invalid_not_missing(pipeline: Kit, kind: str, name: str,
                                                                 broken: Any) -> None:
    text = broken()
    assert text != {"feed": ops_feed, "process": ops_process, "cluster": ops_cluster}[kind](name), "not broken"
    folder = {"feed": "feeds", "process": "processes", "cluster": "clusters"}[kind]
    pipeline.write(f"{folder}/{name}.xml", text)

    code, out, err = pipeline.run("entity", "-status", "-type", kind, "-name", name)
    assert code == 0, err
    first, *reasons = out.strip().splitlines()
    assert first == "INVALID (XSD; falcon-airflow validate says why)"
    assert reasons and all(f"{folder}/{name}.xml:" in line and ": XSD: " in line for line in reasons), reasons
    code, document = pipeline.json("entity", "-status", "-type", kind, "-name", name)
    assert (code, document["entityStatus"], document["rules"]) == (0, "INVALID", ["XSD"])

    code, out, _ = pipeline.run("entity", "-list", "-type", kind, "-fields", "status")
    assert f"({kind}) {name}(INVALID: XSD)" in out.splitlines()
    code, document = pipeline.json("entity", "-list", "-type", kind, "-fields", "status", "-filterBy",
                                   "STATUS:INVALID")
    assert (name, ["XSD"]) in [(item["name"], item["rules"]) for item in document["entity"]]
    code, document = pipeline.json("entity", "-list", "-type", kind, "-tags", "owner=nobody")
    assert name not in [item["name"] for item in document.get("entity", [])]

