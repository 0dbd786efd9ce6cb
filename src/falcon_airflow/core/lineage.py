"""OpenLineage's column-lineage vocabulary and its merge rule, for the plan walker in the jobs and the declared
field operations on the Airflow side.

Along one path from an input field to an output, each step has a kind: DIRECT (IDENTITY, TRANSFORMATION,
AGGREGATION) or INDIRECT (JOIN, GROUP_BY, FILTER, SORT, WINDOW, CONDITIONAL). Two steps merge as OpenLineage's
``TransformationInfo.merge`` does: an INDIRECT step wins (the one nearer the output first), otherwise the lower of
AGGREGATION < TRANSFORMATION < IDENTITY; ``masking`` is or-ed by the callers.
"""

from __future__ import annotations

from falcon_airflow import __version__

PRODUCER = f"https://pypi.org/project/falcon-airflow/{__version__}/"
"""The ``_producer`` of every facet and event we write."""
COLUMN_LINEAGE_SCHEMA_URL = (
    "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet")
SCHEMA_SCHEMA_URL = "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
SYMLINKS_SCHEMA_URL = "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json#/$defs/SymlinksDatasetFacet"

DIRECT = "DIRECT"
INDIRECT = "INDIRECT"
IDENTITY = "IDENTITY"
TRANSFORMATION = "TRANSFORMATION"
AGGREGATION = "AGGREGATION"
JOIN = "JOIN"
GROUP_BY = "GROUP_BY"
FILTER = "FILTER"
SORT = "SORT"
WINDOW = "WINDOW"
CONDITIONAL = "CONDITIONAL"
DIRECT_KINDS = (IDENTITY, TRANSFORMATION, AGGREGATION)
INDIRECT_KINDS = (JOIN, GROUP_BY, FILTER, SORT, WINDOW, CONDITIONAL)
SUBTYPES = {DIRECT: DIRECT_KINDS, INDIRECT: INDIRECT_KINDS}

_DIRECT_RANK = {AGGREGATION: 0, TRANSFORMATION: 1, IDENTITY: 2}


def outer_wins(outer: tuple[str, str], inner: tuple[str, str]) -> bool:
    """Whether the (type, subtype) of the step nearer the output is the kind of the merged path."""
    if outer[0] == INDIRECT:
        return True
    if inner[0] == INDIRECT:
        return False
    return _DIRECT_RANK.get(outer[1], 1) <= _DIRECT_RANK.get(inner[1], 1)


def merge_kind(outer: tuple[str, str], inner: tuple[str, str]) -> tuple[str, str]:
    """The (type, subtype) of two steps of one path, ``outer`` nearer the output."""
    return outer if outer_wins(outer, inner) else inner
