"""The cells of a feed's instance grid from what Falcon's actions report: the storage listing, the replication
runs, the retention runs' reports and the SLA misses."""

from __future__ import annotations

from falcon_airflow.server.console.feed_grid import build_grid, evictions

WINDOW = ("2026-03-01T00:00Z", "2026-03-01T23:00Z")


def listed(instance: str, cluster: str, status: str) -> dict[str, object]:
    return {"instance": instance, "cluster": cluster, "status": status, "uri": f"file:///{cluster}/{instance}",
            "size": 10 if status == "AVAILABLE" else 0}


def replication(instance: str, status: str) -> dict[str, object]:
    return {"instance": instance, "cluster": "west", "sourceCluster": "east", "lifecycle": "REPLICATION",
            "status": status, "dagId": "falcon.feed.counts.replication.east.west", "dagRunId": f"run-{instance}",
            "logFile": "/dags/falcon.feed.counts.replication.east.west/runs/x"}


def cells(grid: dict[str, object]) -> dict[tuple[str, str], dict[str, object]]:
    return {(cell["instance"], cell["cluster"]): cell for cell in grid["cells"]}  # type: ignore[attr-defined]


def test_each_cell_says_what_happened_to_its_instance() -> None:
    report = {"evicted": [{"instance": "2026-03-01T01:00Z", "type": "data", "path": "file:///east/01"},
                          {"instance": "2026-02-01T01:00Z", "path": "file:///east/old"}, {"path": "no instance"}]}
    evicted = evictions("east", "retention-run", "2026-03-09T00:00Z", "/dags/r/runs/retention-run", report)
    assert [item.instance for item in evicted] == ["2026-03-01T01:00Z", "2026-02-01T01:00Z"]
    grid = build_grid(
        ["east", "west"],
        [listed("2026-03-01T02:00Z", "east", "AVAILABLE"), listed("2026-03-01T02:00Z", "west", "AVAILABLE"),
         listed("2026-03-01T03:00Z", "east", "AVAILABLE"), listed("2026-03-01T03:00Z", "west", "MISSING"),
         listed("2026-03-01T04:00Z", "east", "MISSING"), listed("2026-03-01T05:00Z", "east", "MISSING"),
         listed("2026-03-01T06:00Z", "east", "PARTIAL"), {"cluster": "west", "status": "UNKNOWN"}],
        [replication("2026-03-01T02:00Z", "SUCCEEDED"), replication("2026-03-01T03:00Z", "RUNNING")],
        evicted, [("east", "2026-03-01T05:00Z")], WINDOW)
    found = cells(grid)
    states = {key: cell["state"] for key, cell in found.items()}
    assert states == {
        ("2026-03-01T01:00Z", "east"): "evicted",  # the instance from before the window's February is left out
        ("2026-03-01T02:00Z", "east"): "replicated", ("2026-03-01T02:00Z", "west"): "replicated",
        ("2026-03-01T03:00Z", "east"): "available", ("2026-03-01T03:00Z", "west"): "replicating",
        ("2026-03-01T04:00Z", "east"): "missing", ("2026-03-01T05:00Z", "east"): "late",
        ("2026-03-01T06:00Z", "east"): "partial"}
    assert grid["instances"] == ["2026-03-01T06:00Z", "2026-03-01T05:00Z", "2026-03-01T04:00Z", "2026-03-01T03:00Z",
                                 "2026-03-01T02:00Z", "2026-03-01T01:00Z"]
    gone = found[("2026-03-01T01:00Z", "east")]
    assert gone["path"] == "file:///east/01" and gone["evicted"]["by"] == "retention-run"
    assert gone["evicted"]["url"] == "/dags/r/runs/retention-run"
    copied = found[("2026-03-01T02:00Z", "west")]
    assert copied["facts"] == ["available", "replicated"] and copied["runs"][0]["direction"] == "in"
    assert found[("2026-03-01T02:00Z", "east")]["runs"][0]["direction"] == "out"
    assert found[("2026-03-01T03:00Z", "west")]["facts"] == ["missing", "replicating"]
    assert set(grid["states"]) >= {state for state in states.values()}


def test_a_replication_that_failed_and_an_instance_back_after_eviction() -> None:
    evicted = evictions("west", "r1", None, None, {"evicted": [{"instance": "2026-03-01T02:00Z",
                                                                 "partition": "dt=2026-03-01-02"}]})
    grid = build_grid(["east", "west"], [listed("2026-03-01T02:00Z", "west", "AVAILABLE")],
                      [replication("2026-03-01T01:00Z", "FAILED")], evicted, [], WINDOW)
    found = cells(grid)
    assert found[("2026-03-01T01:00Z", "west")]["state"] == "replication failed"
    assert ("2026-03-01T01:00Z", "east") not in found  # a failed copy says nothing of the source's storage
    back = found[("2026-03-01T02:00Z", "west")]
    assert back["state"] == "available" and "evicted" in back["facts"] and back["partition"] == "dt=2026-03-01-02"
