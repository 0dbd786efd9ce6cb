"""One declaration per action: the parsers, the supported list, dispatch, locking, the authorization right and the
audit line all come from it, and a new read-only action is one declaration plus its handler."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from dataclasses import replace

import pytest

from falcon_airflow.cli import build_parser
from falcon_airflow.cli.airflow import airflow_cli_commands
from falcon_airflow.operate import declarations, execution
from falcon_airflow.operate.authorization import is_read
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.declarations import Action, Route
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, succeeded

from .helpers import Kit


def subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    choices = next(item for item in parser._actions if isinstance(item, argparse._SubParsersAction)).choices
    found: argparse.ArgumentParser = choices[name]
    return found


@pytest.mark.parametrize("command", ["entity", "instance", "admin", "metadata", "extension"])
def test_every_declared_action_and_option_is_on_both_command_lines(command: str) -> None:
    declared = declarations.command(command)
    parser = subparser(build_parser(), command)
    flags = {flag: item.dest for item in parser._actions for flag in item.option_strings}
    for action in declared.actions:
        assert flags[action.flag] == action.dest
        for dest in action.options:
            option = declared.option_by_dest(dest)
            assert flags[option.flag] == dest, (action.key, option.flag)
    [group] = airflow_cli_commands()
    [airflow_command] = [item for item in group.subcommands if item.name == command]
    airflow_flags = {flag for arg in airflow_command.args for flag in arg.flags}
    assert airflow_flags == set(flags) - {"-h", "--help"}


@pytest.mark.parametrize("action", list(declarations.actions()), ids=lambda action: action.key)
def test_every_declared_action_has_its_handler_and_its_routes_read_declared_options(action: Action) -> None:
    assert callable(action.load())
    declared = declarations.command(action.command)
    for route in action.routes:
        assert route.path.startswith("/api/")
        for key in (*route.path_keys(), *([route.body] if route.body else [])):
            assert key in action.options and declared.option_by_dest(key)
    if action.lock:  # only an action that changes something takes the store's lock
        assert action.right == "change"
    assert is_read(action.command, action.name) is (action.right == "read")


def test_the_rights_are_falcons_get_and_post_calls() -> None:
    reads = {action.key for action in declarations.actions() if action.right == "read"}
    assert {"entity.status", "entity.definition", "entity.list", "entity.summary", "entity.dependency",
            "entity.lookup", "entity.slaAlert", "entity.validate", "instance.logs", "instance.search",
            "admin.audit", "metadata.lineage", "extension.instances"} <= reads
    assert not {"entity.submit", "entity.updateClusterDependents", "entity.touch", "instance.kill",
                "instance.rerun", "admin.setsafemode", "extension.delete"} & reads
    # every entity call Falcon's client makes with GET only reads; every POST and DELETE changes (but validate)
    for action in declarations.command("entity").actions:
        methods = {route.method for route in action.routes}
        assert methods == ({"GET"} if action.right == "read" and action.name != "validate"
                           else {"POST"} if action.name != "delete" else {"DELETE"}), action.key


def test_the_supported_list_and_the_one_action_rule_come_from_the_declarations() -> None:
    names = [action.name for action in declarations.command("instance").actions]
    with pytest.raises(Refused) as caught:
        Options("instance", {}).action()
    assert caught.value.usage
    assert caught.value.message == ("Invalid/missing instance command. Supported commands include "
                                    f"{', '.join(names)}. Please refer to Falcon CLI twiki for more details.")
    assert Options("admin", {"setsafemode": "true"}).action() == "setsafemode"
    assert Options("entity", {}, action="summary").action() == "summary"
    with pytest.raises(KeyError):
        Options("entity", {}, action="explode").action()


def test_a_declaration_naming_an_option_its_command_lacks_is_refused() -> None:
    entity = declarations.command("entity")
    with pytest.raises(ValueError, match="names options entity does not have: pipeline"):
        replace(entity, actions=(*entity.actions, Action("entity", "odd", "?", "x:y", "read",
                                                           required=("pipeline",))))
    with pytest.raises(ValueError, match=re.escape("route /api/entities/odd/{cluster} reads options")):
        replace(entity, actions=(*entity.actions, Action("entity", "odd", "?", "x:y", "read", required=("type",),
                                                           routes=(Route("GET", "/api/entities/odd/{cluster}"),))))


def test_locking_follows_the_declaration(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    held: list[str] = []
    original = execution._locked

    def watching(context: Context, needed: bool) -> object:
        held.append("locked" if needed else "free")
        return original(context, needed)

    monkeypatch.setattr(execution, "_locked", watching)
    assert pipeline.run("entity", "-type", "feed", "-name", "logs", "-status")[0] == 0
    assert pipeline.run("entity", "-type", "feed", "-name", "logs", "-schedule")[0] == 0
    assert pipeline.run("admin", "-setsafemode", "false")[0] == 0
    assert held == ["free", "locked", "locked"]


# -- a new read-only action: one declaration plus its handler --------------------------------------------------------

def echo(context: Context, options: Options) -> Outcome:
    """The throwaway action's handler: says what it was asked about, and by whom."""
    name = options.required("name", "name")
    kind = options.required("type", "type")
    return succeeded(f"echo of ({kind}) {name}", text=f"{kind} {name} by {context.user}")


ECHO = Action("entity", "echo", "say what the entity is called (-type, -name)", f"{__name__}:echo", "read",
              required=("type", "name"), routes=(Route("GET", "/api/entities/echo/{type}/{name}"),))


@pytest.fixture
def with_echo(monkeypatch: pytest.MonkeyPatch) -> Iterator[Action]:
    entity = declarations.command("entity")
    monkeypatch.setitem(declarations.commands(), "entity", replace(entity, actions=(*entity.actions, ECHO)))
    yield ECHO


def test_a_new_read_only_action_is_one_declaration_plus_its_handler(with_echo: Action, pipeline: Kit) -> None:
    # the parser and the help
    parser = subparser(build_parser(), "entity")
    assert "-echo" in parser.format_help() and "say what the entity is called" in parser.format_help()
    # dispatch, through the whole command: exactly one action, the audit trail, the output
    code, out, err = pipeline.run("entity", "-type", "feed", "-name", "logs", "-echo")
    assert (code, out.strip(), err) == (0, f"feed logs by {pipeline.context().user}", "")
    lines = [json.loads(line) for line in (pipeline.context().store.meta / "audit.log").read_text().splitlines()]
    assert [(line["action"], line["result"], line["type"], line["name"]) for line in lines] == [
        ("echo", "STARTED", "feed", "logs"), ("echo", "SUCCEEDED", "feed", "logs")]
    code, _, err = pipeline.run("entity", "-type", "feed", "-name", "logs", "-echo", "-status")
    assert code == 2 and "only one entity action may be given; found -status, -echo" in err
    # the supported list and the right
    assert "echo" in declarations.command("entity").supported()
    assert is_read("entity", "echo")
    # it does not take the lock: a command holding the store's lock does not stop it
    store = pipeline.context().store
    with store.lock():
        assert pipeline.run("entity", "-type", "feed", "-name", "logs", "-echo")[0] == 0
