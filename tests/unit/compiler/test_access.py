"""Entity ACLs to DAG ownership and DAG-level access (issue: operate it, access)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import cluster, feed, process, workspace

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.common import group_access_of
from falcon_airflow.compiler.specs import GroupAccess, ProcessDagSpec
from falcon_airflow.entities.base import ACL


@pytest.mark.parametrize(("permission", "read", "edit"), [
    ("*", True, True), ("0755", True, False), ("0x755", True, False), ("0775", True, True), ("770", True, True),
    ("0705", False, False), ("0735", False, True), ("rwxr-x---", True, False), ("rwxrwx---", True, True),
    ("rwx------", False, False), ("anything", True, False)])
def test_group_rights_follow_the_permission(permission: str, read: bool, edit: bool) -> None:
    assert group_access_of(ACL(owner="o", group="analysts", permission=permission)) == GroupAccess(
        group="analysts", can_read=read, can_edit=edit)


def test_no_group_no_access_mapping() -> None:
    assert group_access_of(None) is None
    assert group_access_of(ACL(owner="o", permission="*")) is None


def test_owner_and_group_reach_every_dag_and_the_roles_map_when_enabled(tmp_path: Path) -> None:
    from falcon_airflow.dags.builder import access_control, build_dag

    acl = '<ACL owner="ann" group="analysts" permission="0x770"/>'
    xml = process(start="2011-01-01T00:00Z", inputs=(("a", "in", "now(-1,0)", "now(0,0)"),))
    xml = xml.replace("</process>", f"  {acl}\n</process>")
    compilation = compile_workspace(workspace(tmp_path, cluster(), feed("in"), xml), entities_dir=tmp_path)
    assert compilation.report.valid, compilation.report.issues
    specs = {spec.source.type: spec for spec in compilation.specs}
    workflow = specs["process"]
    assert isinstance(workflow, ProcessDagSpec)
    assert (workflow.owner, workflow.group_access) == ("ann", GroupAccess(group="analysts", can_read=True,
                                                                          can_edit=True))
    assert specs["feed"].owner == "o" and specs["feed"].group_access == GroupAccess(group="g", can_read=True,
                                                                                     can_edit=True)
    assert access_control(workflow, enabled=True) == {
        "analysts": {"DAGs": {"can_read", "can_edit"}, "DAG Runs": {"can_read", "can_create", "can_delete"}}}
    # only actions FAB accepts in a DAG's access_control (it refuses the whole map otherwise)
    fab = pytest.importorskip("airflow.providers.fab.www.security.permissions")
    for resource, actions in access_control(workflow, enabled=True)["analysts"].items():
        assert actions <= set(fab.RESOURCE_DETAILS_MAP[resource]["actions"]), resource
    reader = workflow.model_copy(update={"group_access": GroupAccess(group="viewers", can_read=True,
                                                                     can_edit=False)})
    assert access_control(reader, enabled=True) == {"viewers": {"DAGs": {"can_read"}, "DAG Runs": {"can_read"}}}
    assert access_control(workflow, enabled=False) is None
    # Not enabled here (no [falcon] dag_access_control, simple auth manager): the DAG names no role.
    dag = build_dag(workflow)
    assert dag.owner == "ann" and not dag.access_control
