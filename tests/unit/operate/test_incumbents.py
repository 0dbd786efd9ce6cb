"""A file dropped into the store that collides with a running entity makes only itself INVALID: ``entity -status``
and ``-list`` judge as the DAG loader does, and the running entity stays schedulable."""

from __future__ import annotations

import pytest
from tests.builders import ops_feed

from falcon_airflow.compiler.store_state import record_first_built

from .helpers import Kit

# A feed at the folder of 'logs' (/logs/${YEAR}/...) kept for another number of days: FA009 with 'logs'.
INTRUDER = ops_feed("logs", days=5).replace('name="logs"', 'name="intruder"', 1)


def built_first(kit: Kit) -> None:
    """What the loader records after building the pipeline's DAGs."""
    keys = {("feed", "logs"), ("feed", "counts"), ("process", "count")}
    record_first_built(kit.root, kit.context().store.meta, keys, keys, {})


def scheduled_first(kit: Kit) -> None:
    for kind, name in (("feed", "logs"), ("process", "count")):
        assert kit.run("entity", "-schedule", "-type", kind, "-name", name)[0] == 0


@pytest.mark.parametrize("running", [built_first, scheduled_first], ids=["built first", "scheduled first"])
def test_the_newcomer_alone_is_invalid_and_the_incumbent_stays_schedulable(pipeline: Kit, running) -> None:
    running(pipeline)
    pipeline.write("feeds/intruder.xml", INTRUDER)

    code, out, _ = pipeline.run("entity", "-status", "-type", "feed", "-name", "intruder")
    assert (code, out.strip()) == (0, "INVALID (FA009; falcon-airflow validate says why)")
    for kind, name in (("feed", "logs"), ("process", "count")):
        code, out, _ = pipeline.run("entity", "-status", "-type", kind, "-name", name)
        assert code == 0 and "INVALID" not in out, (name, out)
    code, out, _ = pipeline.run("entity", "-list", "-type", "feed,process", "-fields", "status")
    assert [line for line in out.splitlines() if "INVALID" in line] == ["(feed) intruder(INVALID: FA009)"]
    code, out, err = pipeline.run("entity", "-schedule", "-type", "feed", "-name", "logs")
    assert code == 0, err


def test_without_a_record_both_are_invalid(pipeline: Kit) -> None:
    """Nothing is known to run yet: neither came first, as ``falcon-airflow validate`` says."""
    pipeline.write("feeds/intruder.xml", INTRUDER)
    code, out, _ = pipeline.run("entity", "-list", "-type", "feed", "-fields", "status")
    assert code == 0
    assert {line for line in out.splitlines() if "INVALID" in line} == {"(feed) intruder(INVALID: FA009)",
                                                                          "(feed) logs(INVALID: FA009)"}
