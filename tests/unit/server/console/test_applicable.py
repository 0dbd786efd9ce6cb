"""Which buttons a state and a permission give: the instance actions by Falcon's instance status, the entity
actions by the entity's schedule state, each only when the user may take it."""

from __future__ import annotations

import pytest

from falcon_airflow.server.console.applicable import entity_actions, instance_actions, refusal

EVERY_INSTANCE_ACTION = ("kill", "rerun", "suspend", "resume")


@pytest.mark.parametrize(("status", "buttons"), [
    ("RUNNING", ["kill", "suspend"]), ("WAITING", ["kill", "suspend"]), ("READY", ["kill", "suspend"]),
    ("SUSPENDED", ["kill", "resume"]), ("SUCCEEDED", ["rerun"]), ("FAILED", ["rerun"]), ("KILLED", ["rerun"]),
    ("TIMEDOUT", ["rerun"]), ("SKIPPED", ["rerun"]), ("UNDEFINED", []), ("ERROR", [])])
def test_an_instance_s_buttons_follow_its_status(status: str, buttons: list[str]) -> None:
    assert instance_actions(status, EVERY_INSTANCE_ACTION) == buttons


def test_an_instance_button_needs_the_permission_too() -> None:
    assert instance_actions("RUNNING", ("rerun", "resume")) == []
    assert instance_actions("RUNNING", ("suspend",)) == ["suspend"]
    assert instance_actions("FAILED", ()) == []


@pytest.mark.parametrize(("state", "buttons"), [
    (None, ["schedule", "delete"]), ("RUNNING", ["suspend", "delete"]), ("SUSPENDED", ["resume", "delete"])])
def test_an_entity_s_buttons_follow_its_state(state: str | None, buttons: list[str]) -> None:
    assert entity_actions(state, ("schedule", "suspend", "resume", "delete")) == buttons


def test_an_entity_button_needs_the_permission_too() -> None:
    assert entity_actions("RUNNING", ("schedule", "resume")) == []
    assert entity_actions(None, ("delete",)) == ["delete"]  # a cluster: only delete


def test_the_refusal_names_the_status_and_what_the_action_takes() -> None:
    assert refusal("kill", "RUNNING") is None
    assert refusal("resume", "RUNNING") == "resume does not apply to a RUNNING instance (only SUSPENDED)"
    assert refusal("rerun", "waiting") is not None and "WAITING" in str(refusal("rerun", "waiting"))
