"""Safemode: persisted in the store, blocking what Falcon's safemode blocks, with Falcon's messages."""

from __future__ import annotations

import pytest
from tests.builders import ops_cluster, ops_feed

from falcon_airflow.entities import EntityType
from falcon_airflow.operate.config_store import Store
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.operate.safemode import check_entity_operation, check_instance_operation

from .helpers import Kit


@pytest.mark.parametrize("operation", ["SUBMIT", "SCHEDULE", "SUBMIT_AND_SCHEDULE", "DELETE", "RESUME", "TOUCH"])
def test_changes_are_refused_in_safemode(operation: str) -> None:
    with pytest.raises(Refused, match=f"^Entity operation {operation} not allowed during safemode$"):
        check_entity_operation(True, operation, EntityType.FEED)
    check_entity_operation(False, operation, EntityType.FEED)


def test_update_is_for_clusters_only_in_safemode_and_for_the_others_only_outside() -> None:
    message = "^Entity operation UPDATE is only allowed on cluster entities during safemode$"
    check_entity_operation(True, "UPDATE", EntityType.CLUSTER)
    check_entity_operation(False, "UPDATE", EntityType.PROCESS)
    with pytest.raises(Refused, match=message):
        check_entity_operation(True, "UPDATE", EntityType.PROCESS)
    with pytest.raises(Refused, match=message):
        check_entity_operation(False, "UPDATE", EntityType.CLUSTER)


def test_suspend_stays_allowed_except_on_clusters() -> None:
    check_entity_operation(True, "SUSPEND", EntityType.PROCESS)
    with pytest.raises(Refused, match=r"^Entity operation SUSPEND is not allowed on cluster entity$"):
        check_entity_operation(True, "SUSPEND", EntityType.CLUSTER)


def test_instance_resume_is_refused_in_safemode() -> None:
    with pytest.raises(Refused, match=r"^Instance operation RESUME cannot be performed when server is in safemode$"):
        check_instance_operation(True, "RESUME")
    for operation in ("KILL", "SUSPEND", "RERUN"):
        check_instance_operation(True, operation)
    check_instance_operation(False, "RESUME")


def test_setsafemode_is_persisted_and_enforced_by_the_commands(kit: Kit) -> None:
    kit.write("clusters/east.xml", ops_cluster())
    draft = kit.draft("logs.xml", ops_feed())

    code, out, _ = kit.run("admin", "-setsafemode", "true")
    assert (code, out.strip()) == (0, "Falcon server safemode set to : true")
    assert (Store(kit.root).meta / "safemode.json").exists()
    assert not (kit.root / ".falcon").exists()

    code, _, err = kit.run("entity", "-submit", "-type", "feed", "-file", str(draft))
    assert code == 1
    assert err.strip() == "ERROR: Entity operation SUBMIT not allowed during safemode"
    code, _, _ = kit.run("entity", "-validate", "-type", "feed", "-file", str(draft))
    assert code == 0  # reading and validating stay allowed

    updated = kit.draft("east.xml", ops_cluster(colo="moved"))
    code, out, err = kit.run("entity", "-update", "-type", "cluster", "-name", "east", "-file", str(updated))
    assert code == 0, err
    assert out.strip() == "Updated successfully"

    assert kit.run("admin", "-setsafemode", "FALSE")[0] == 0
    code, _, err = kit.run("entity", "-update", "-type", "cluster", "-name", "east", "-file",
                           str(kit.draft("east2.xml", ops_cluster(colo="again"))))
    assert code == 1
    assert "Entity operation UPDATE is only allowed on cluster entities during safemode" in err
    assert kit.run("entity", "-submit", "-type", "feed", "-file", str(draft))[0] == 0


def test_setsafemode_needs_true_or_false(kit: Kit) -> None:
    code, _, err = kit.run("admin", "-setsafemode", "maybe")
    assert code == 2
    assert "Invalid value for -setsafemode: maybe" in err
