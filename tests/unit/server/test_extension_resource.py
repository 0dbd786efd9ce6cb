"""Falcon 0.10's extension resource on the server (``api/extension/...``): the catalogue, a job's life through the
API with its properties as the request body, its instances, and the job's ACL decided on the server."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from datetime import UTC, datetime
from pathlib import Path

import pytest

from .served import JSON, TEXT, XML, Served, denied, refused, serve

JOB = """\
jobName=sales-dr
jobClusterName=west
jobValidityStart=2026-05-01T00:00Z
jobValidityEnd=2026-05-03T00:00Z
jobFrequency=hours(1)
sourceCluster=east
sourceDir=/data/sales
targetCluster=west
targetDir=/backup/sales
jobAclOwner=ops
jobAclGroup=users
jobAclPermission=*
"""
DAG = "falcon.extension.sales-dr"


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    return serve(tmp_path, monkeypatch)


def result(answer: object) -> tuple[str | None, str | None]:
    root = ElementTree.fromstring(answer.content)  # type: ignore[attr-defined]
    return root.findtext("status"), root.findtext("message")


def test_the_catalogue(served: Served) -> None:
    enumerated = served.call("GET", "/api/extension/enumerate").json()
    assert {row["name"] for row in enumerated["extensions"]} == {"hdfs-mirroring", "hdfs-snapshot-mirroring",
                                                                   "hive-mirroring"}
    assert enumerated["totalResults"] == 3
    described = served.call("GET", "/api/extension/describe/hdfs-mirroring", accept=TEXT)
    assert described.status_code == 200 and described.headers["content-type"].startswith(TEXT)
    assert "sourceDir" in described.text
    definition = served.call("GET", "/api/extension/definition/hdfs-mirroring").json()
    assert "jobName" in {item["propertyName"] for item in definition["properties"]}
    assert "unknown extension 'nothing'" in refused(served.call("GET", "/api/extension/describe/nothing",
                                                                accept=TEXT))


def test_a_job_through_the_api(served: Served) -> None:
    validated = served.call("POST", "/api/extension/validate/hdfs-mirroring", body=JOB, accept=XML)
    assert validated.status_code == 200, validated.text
    assert result(validated) == ("SUCCEEDED", "Validated successfully (hdfs-mirroring job sales-dr)")

    submitted = served.call("POST", "/api/extension/submit/hdfs-mirroring", body=JOB, accept=XML)
    assert submitted.status_code == 200, submitted.text
    assert result(submitted)[0] == "SUCCEEDED"
    stored = served.kit.root / "extensions" / "hdfs-mirroring" / "sales-dr.properties"
    assert stored.read_text(encoding="utf-8") == JOB
    assert "already submitted" in refused(served.call("POST", "/api/extension/submit/hdfs-mirroring", body=JOB,
                                                      accept=XML))

    listed = served.call("GET", "/api/extension/list/hdfs-mirroring", accept=XML)
    assert listed.status_code == 200 and listed.headers["content-type"].startswith(XML)
    root = ElementTree.fromstring(listed.content)
    assert (root.tag, root.findtext("numJobs"), root.findtext("jobs/job/jobName")) == (
        "extensionJobList", "1", "sales-dr")
    assert served.call("GET", "/api/extension/list", accept=JSON).json()["numJobs"] == "1"

    served.airflow.add_dag(DAG, ("mirror",))
    assert result(served.call("POST", "/api/extension/schedule/sales-dr", accept=XML))[0] == "SUCCEEDED"
    assert served.airflow.dag(DAG)["is_paused"] is False  # type: ignore[index]
    detail = served.call("GET", "/api/extension/extensionJobDetails/sales-dr").json()
    assert (detail["jobName"], detail["status"], detail["dagId"]) == ("sales-dr", "RUNNING", DAG)
    assert result(served.call("POST", "/api/extension/suspend/sales-dr", accept=XML))[0] == "SUCCEEDED"
    assert served.airflow.dag(DAG)["is_paused"] is True  # type: ignore[index]

    run = served.airflow.add_run(DAG, datetime(2026, 5, 1, 3, tzinfo=UTC), state="success")
    served.airflow.set_tis(run, mirror="success")
    instances = served.call("GET", "/api/extension/instances/sales-dr",
                            params={"start": "2026-05-01T00:00Z", "end": "2026-05-01T10:00Z"}).json()
    summary = instances["entitiesSummary"]["entitySummary"]  # mapped JSON: one summary is an object
    assert summary["entityProfile"]["name"] == "sales-dr"
    assert (summary["instances"]["instance"], summary["instances"]["status"]) == ("2026-05-01T03:00Z", "SUCCEEDED")

    deleted = served.call("POST", "/api/extension/delete/sales-dr", accept=XML)
    assert result(deleted)[0] == "SUCCEEDED" and not stored.exists()
    assert "not submitted" in refused(served.call("POST", "/api/extension/schedule/sales-dr", accept=XML))
    actions = [(line["action"], line["result"]) for line in served.audit() if line["command"] == "extension"]
    assert ("submit", "SUCCEEDED") in actions and ("delete", "SUCCEEDED") in actions


def test_the_jobs_acl_is_decided_on_the_server(served: Served) -> None:
    on = {"authorization_enabled": "true"}
    # a submitted job's ACL is checked too: its owner must be in its group (ops has the role users)
    assert served.call("POST", "/api/extension/submit/hdfs-mirroring", body=JOB, accept=XML, user="ops:users",
                       settings=on).status_code == 200
    served.airflow.add_dag(DAG, ("mirror",))
    message = denied(served.call("POST", "/api/extension/schedule/sales-dr", user="mallory", accept=XML,
                                 settings=on))
    assert "mallory" in message
    assert served.airflow.dag(DAG)["is_paused"] is True  # type: ignore[index]
    assert served.call("POST", "/api/extension/schedule/sales-dr", user="bob:users", accept=XML,
                       settings=on).status_code == 200
    assert ("mallory", "schedule", "DENIED") in [(line["user"], line["action"], line["result"])
                                                 for line in served.audit()]
