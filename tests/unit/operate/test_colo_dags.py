"""A colo's deployment (``[falcon] colo``) acts on and answers for the DAGs its own Airflow runs: the feed
``counts`` on clusters east (colo ``here``, source) and west (colo ``there``, target) has, in colo ``here``, only
its retention on east; its replication into west and west's retention are the other colo's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from .helpers import Kit

HERE = ("falcon.feed.counts.retention.east",)
THERE = ("falcon.feed.counts.retention.west", "falcon.feed.counts.replication.east.west")


@pytest.fixture
def here(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> Kit:
    """The pipeline's deployment as colo ``here``: its Airflow never built the other colo's DAGs."""
    monkeypatch.setenv("AIRFLOW__FALCON__COLO", "here")
    for dag_id in THERE:
        del pipeline.airflow.dags_by_id[dag_id]
    return pipeline


def test_the_context_names_only_the_dags_of_its_colo(here: Kit) -> None:
    context = here.context()
    feed = context.store.workspace().feeds["counts"]
    assert {ref.dag_id for ref in context.entity_dags(feed)} == {*HERE, *THERE}  # no colo: every colo's
    context.settings = replace(context.settings, colo="here")
    assert [ref.dag_id for ref in context.entity_dags(feed)] == list(HERE)
    context.settings = replace(context.settings, colo="there")
    assert {ref.dag_id for ref in context.entity_dags(feed)} == set(THERE)


def test_schedule_status_and_suspend_in_a_colo_cover_its_own_dags(here: Kit) -> None:
    code, out, err = here.run("entity", "-schedule", "-type", "feed", "-name", "counts")
    assert (code, out.strip()) == (0, "counts(feed) scheduled successfully"), err
    assert not here.airflow.dags_by_id[HERE[0]]["is_paused"]
    assert here.run("entity", "-status", "-type", "feed", "-name", "counts")[1].strip() == "RUNNING"

    code, out, _ = here.run("entity", "-suspend", "-type", "feed", "-name", "counts")
    assert (code, out.strip()) == (0, "counts(feed) suspended successfully")
    assert here.airflow.dags_by_id[HERE[0]]["is_paused"]
    assert here.run("entity", "-status", "-type", "feed", "-name", "counts")[1].strip() == "SUSPENDED"
