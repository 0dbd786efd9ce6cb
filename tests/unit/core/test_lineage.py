"""OpenLineage's merge of two transformation steps (``falcon_airflow.core.lineage``), used by the plan walker in the
jobs and by the declared field operations: an INDIRECT step wins, the nearer one first; otherwise the lowest of
AGGREGATION < TRANSFORMATION < IDENTITY."""

from __future__ import annotations

import pytest

from falcon_airflow.core.lineage import merge_kind, outer_wins

IDENTITY = ("DIRECT", "IDENTITY")
TRANSFORMATION = ("DIRECT", "TRANSFORMATION")
AGGREGATION = ("DIRECT", "AGGREGATION")
FILTER = ("INDIRECT", "FILTER")
JOIN = ("INDIRECT", "JOIN")


@pytest.mark.parametrize(("outer", "inner", "merged"), [
    (IDENTITY, IDENTITY, IDENTITY),
    (IDENTITY, TRANSFORMATION, TRANSFORMATION),
    (TRANSFORMATION, IDENTITY, TRANSFORMATION),
    (AGGREGATION, TRANSFORMATION, AGGREGATION),
    (IDENTITY, AGGREGATION, AGGREGATION),
    (IDENTITY, FILTER, FILTER),
    (FILTER, AGGREGATION, FILTER),
    (JOIN, FILTER, JOIN),  # both INDIRECT: the one nearer the output
    (FILTER, JOIN, FILTER),
])
def test_merge(outer: tuple[str, str], inner: tuple[str, str], merged: tuple[str, str]) -> None:
    assert merge_kind(outer, inner) == merged


def test_equal_direct_kinds_keep_the_outer_step() -> None:
    assert outer_wins(TRANSFORMATION, TRANSFORMATION)
    assert not outer_wins(TRANSFORMATION, FILTER)
