"""Falcon's option names and value rules, with Falcon's messages, on both front ends."""

from __future__ import annotations

import argparse

import pytest
from tests.builders import ops_cluster

from falcon_airflow.entities import EntityType
from falcon_airflow.operate import options as rules
from falcon_airflow.operate.arguments import COMMANDS, add_arguments
from falcon_airflow.operate.lifecycles import Lifecycle
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Refused

from .helpers import Kit


def parse(command: str, *argv: str) -> Options:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    add_arguments(parser, command)
    return Options(command, parser.parse_args(list(argv)))


def test_falcons_option_names_are_accepted() -> None:
    options = parse("instance", "-kill", "-type", "process", "-name", "count", "-start", "2026-01-01T00:00Z",
                    "-end", "2026-01-02T00:00Z", "-lifecycle", "execution", "-clusters", "east", "-colo", "*",
                    "-doAs", "alice", "-json")
    assert options.action() == "kill"
    assert options.text("do_as") == "alice"
    assert options.output == "json"
    entity = parse("entity", "-list", "-type", "feed,process", "-fields", "status,tags", "-filterBy",
                   "STATUS:RUNNING", "-orderBy", "name", "-sortOrder", "desc", "-offset", "1", "-numResults", "5",
                   "--format", "json")
    assert entity.action() == "list" and entity.output == "json"


def test_exactly_one_action() -> None:
    with pytest.raises(Refused, match=r"^Invalid/missing entity command\. Supported commands include submit"):
        parse("entity", "-type", "feed").action()
    with pytest.raises(Refused, match="only one instance action may be given; found -kill, -rerun"):
        parse("instance", "-kill", "-rerun").action()


def test_missing_values_use_falcons_message() -> None:
    with pytest.raises(Refused, match=r"^Missing argument : name$") as caught:
        parse("entity", "-status", "-type", "feed").required("name", "name")
    assert caught.value.usage


@pytest.mark.parametrize(("call", "message"), [
    (lambda: rules.entity_type("table"), "Invalid entity type: table. Expected [feed, process, cluster, datasource]."),
    (lambda: rules.sort_order("up"), 'Value for param sortOrder should be "asc" or "desc". It is  : up'),
    (lambda: rules.order_by("size", "instance"), "Invalid orderBy argument : size"),
    (lambda: rules.order_by("status", "entity"), "Invalid orderBy argument : status"),
    (lambda: rules.filter_by("COLOR:red", "entity"), "Invalid filterBy argument : COLOR in : COLOR:red"),
    (lambda: rules.filter_by("TAGS:x", "instance"), "Invalid filterBy argument : TAGS in : TAGS:x"),
    (lambda: rules.fields("status,size"), "Invalid fields argument : fields"),
    (lambda: rules.properties("key1"), "Found invalid property key1. Supported format: key1:value1,key2:value2"),
    (lambda: rules.properties("key1=value1"), "Found invalid property key1=value1."),
    (lambda: rules.properties(":value"), "Found invalid property :value."),
    (lambda: rules.lifecycles("EXECUTION,retire", EntityType.PROCESS), "Invalid life cycle values: retire"),
    (lambda: rules.lifecycles("eviction", EntityType.PROCESS), "Incorrect lifecycle: EVICTION for given type: process"),
    (lambda: rules.parse_time("2026-02-30T00:00Z"), "Time 2026-02-30T00:00Z is not valid"),
    (lambda: parse("entity", "-list", "-offset", "x").integer("offset", "offset", 0),
     'Input value provided for queryParam "offset" is not a valid Integer'),
])
def test_value_rules(call: object, message: str) -> None:
    with pytest.raises(Refused) as caught:
        call()  # type: ignore[operator]
    assert caught.value.message.startswith(message)


def test_values_that_pass() -> None:
    assert rules.entity_type(" Process ") is EntityType.PROCESS
    assert rules.entity_types("feed, process") == [EntityType.FEED, EntityType.PROCESS]
    assert rules.sort_order("DESC") == "desc"
    assert rules.filter_by("STATUS:RUNNING,status:failed,CLUSTER:", "instance") == {"STATUS": ["RUNNING", "failed"]}
    assert rules.filter_by("TAGS:a=b:c", "entity") == {"TAGS": ["a=b:c"]}
    assert rules.properties(" key1 : value1,key2:a:b") == {"key1": "value1", "key2": "a:b"}
    assert rules.lifecycles("eviction, Replication", EntityType.FEED) == {Lifecycle.EVICTION, Lifecycle.REPLICATION}
    assert rules.lifecycles(None, EntityType.FEED) is None


def test_colo_is_refused_where_falcon_refuses_it(kit: Kit) -> None:
    kit.write("clusters/east.xml", ops_cluster())
    for action in ("-definition", "-dependency", "-delete"):
        code, _, err = kit.run("entity", action, "-type", "cluster", "-name", "east", "-colo", "local")
        assert (code, err.strip()) == (2, "ERROR: Invalid argument : colo"), action
    code, _, err = kit.run("entity", "-list", "-colo", "local")
    assert code == 2


def test_instance_option_combinations(kit: Kit) -> None:
    code, _, err = kit.run("instance", "-status", "-type", "process", "-name", "x", "-clusters", "east")
    assert (code, err.strip()) == (2, "ERROR: Invalid argument: clusters")
    code, _, err = kit.run("instance", "-kill", "-type", "process", "-name", "x", "-sourceClusters", "east")
    assert (code, err.strip()) == (2, "ERROR: Invalid argument: sourceClusters")
    code, _, err = kit.run("instance", "-kill", "-type", "process", "-name", "x", "-force")
    assert (code, err.strip()) == (2, "ERROR: Force option can be used only with instance rerun")
    code, _, err = kit.run("instance", "-status", "-type", "process")
    assert (code, err.strip()) == (2, "ERROR: Missing argument : name")
    kit.write("clusters/east.xml", ops_cluster())
    code, _, err = kit.run("instance", "-status", "-type", "cluster", "-name", "east")
    assert (code, err.strip()) == (1, "ERROR: Instance management functions don't apply to Cluster entities")


def test_errors_in_json_mode_are_json(kit: Kit) -> None:
    code, document = kit.json("entity", "-status", "-type", "feed", "-name", "nothing")
    assert code == 1
    assert document == {"status": "FAILED", "message": "nothing (feed) not found", "details": []}


def test_the_airflow_cli_group_offers_the_same_options() -> None:
    from airflow.cli import cli_parser
    from airflow.cli.cli_config import DefaultHelpParser, GroupCommand

    from falcon_airflow.cli.airflow import airflow_cli_commands

    (group,) = airflow_cli_commands()
    assert isinstance(group, GroupCommand) and group.name == "falcon"
    assert sorted(command.name for command in group.subcommands) == sorted([*COMMANDS, "store"])
    parser = DefaultHelpParser(prog="airflow")
    cli_parser._add_command(parser.add_subparsers(dest="subcommand"), group)
    args = parser.parse_args(["falcon", "instance", "-rerun", "-force", "-type", "process", "-name", "count",
                              "-start", "2026-01-01T00:00Z", "-end", "2026-01-01T01:00Z", "-json"])
    options = Options("instance", args)
    assert options.action() == "rerun" and options.flag("force") and options.output == "json"
    assert callable(args.func)
