"""A colo's deployment builds only the DAGs that run in its colo, as Falcon's colo servers scheduled them: a feed's
retention in each cluster's colo, a replication in its target's colo, a process in its cluster's colo."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import cluster, interface, process

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.workspace import Workspace

FEED = """<feed name="f" xmlns="uri:falcon:feed:0.1">
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="a" type="source">
      <validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/><retention limit="days(10)" action="delete"/>
    </cluster>
    <cluster name="b" type="target">
      <validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/><retention limit="days(20)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/f/${YEAR}/${MONTH}/${DAY}/${HOUR}"/></locations>
  <ACL owner="etl" group="g" permission="*"/>
  <schema location="/s" provider="csv"/>
</feed>
"""



def workspace(tmp_path: Path) -> Workspace:
    for name, colo in (("a", "east"), ("b", "west")):
        (tmp_path / f"{name}.xml").write_text(
            cluster(name, f"hdfs://{name}:8020", colo=colo, readonly=f"hftp://{name}:50070", spark=None,
                    interfaces=(interface("execute", f"{name}:8032"),)))
    (tmp_path / "f.xml").write_text(FEED)
    (tmp_path / "p.xml").write_text(process(cluster_name="b", start="2026-02-01T00:00Z", end="2026-12-01T00:00Z",
                                            inputs=(("i", "f", "now(0,0)", "now(0,0)"),)))
    return Workspace.load([str(tmp_path)])


def dag_ids(tmp_path: Path, colo: str | None) -> set[str]:
    compilation = compile_workspace(workspace(tmp_path), colo=colo)
    assert compilation.report.valid, compilation.report.issues
    return {spec.dag_id for spec in compilation.specs}


def test_east_builds_the_retention_of_its_own_cluster_only(tmp_path: Path) -> None:
    assert dag_ids(tmp_path, "east") == {"falcon.feed.f.retention.a"}


def test_west_builds_its_retention_the_replication_into_it_and_its_process(tmp_path: Path) -> None:
    assert dag_ids(tmp_path, "west") == {"falcon.feed.f.retention.b", "falcon.feed.f.replication.a.b",
                                         "falcon.process.p.b"}


@pytest.mark.parametrize("colo", [None, "", "  "])
def test_no_colo_builds_every_dag(tmp_path: Path, colo: str | None) -> None:
    assert dag_ids(tmp_path, colo) == {"falcon.feed.f.retention.a", "falcon.feed.f.retention.b",
                                       "falcon.feed.f.replication.a.b", "falcon.process.p.b"}


def test_a_colo_of_no_cluster_builds_nothing_but_validates_everything(tmp_path: Path) -> None:
    compilation = compile_workspace(workspace(tmp_path), colo="north")
    assert compilation.specs == ()
    assert compilation.report.valid and len(compilation.report.files) == 4


def test_the_loader_reads_the_colo_and_caches_each_colo_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.dags.loader import content_key, deployment_colo

    workspace(tmp_path)
    monkeypatch.delenv("AIRFLOW__FALCON__COLO", raising=False)
    assert deployment_colo() is None
    everywhere = content_key(tmp_path, [], True)
    monkeypatch.setenv("AIRFLOW__FALCON__COLO", " west ")
    assert deployment_colo() == "west"
    assert content_key(tmp_path, [], True) != everywhere


def test_what_compiled_is_known_in_every_colo_for_the_incumbents(tmp_path: Path) -> None:
    """A colo that builds none of an entity's DAGs still counts it as running (rules FA008, FA009)."""
    compilation = compile_workspace(workspace(tmp_path), colo="east")
    assert compilation.compiled == {("feed", "f"), ("process", "p")}
