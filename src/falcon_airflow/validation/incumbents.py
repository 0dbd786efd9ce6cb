"""Which of two entities that break a pairwise rule was there first: a newcomer never takes incumbents down.

Two feeds sharing a folder (FA009) or two processes writing one feed instance (FA008) break a rule together, but
one of them arrived last. Falcon's store refused that one at submit and left the others running; here a file can
be dropped into the entities folder by hand, so the loader decides the same way: the newcomer alone is invalid
(with the processes that use it), its error names the entity it collides with, and the incumbent keeps its DAGs.

Seniority, first rule that tells two entities apart:

1. an entity scheduled in the store (``RUNNING`` or ``SUSPENDED`` in ``schedule.json``, set by ``entity -schedule``
   and ``-submitAndSchedule``) is older than one that is not;
2. an entity whose DAGs the loader has built is older than one never built, and of two built ones the one built
   first is older (``first_built.json`` in the store's state folder, written by the loader after each compilation:
   the first time each entity compiled into DAGs, kept while its file stays in the folder).

Neither rule telling them apart (a fresh folder, or two files that arrived together), both are invalid, as
``falcon-airflow validate`` reports them without a store: nothing was running, so nothing is taken down. The record
is per entity, not per definition: an entity edited by hand into a collision keeps its standing (``entity -update``
refuses such an edit, as Falcon did).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

EntityKey = tuple[str, str]
"""(entity type, name), e.g. ``("feed", "raw-clicks")``."""


@dataclass(frozen=True)
class Incumbents:
    """What the store knows of which entities already run (empty: every entity is new, none outranks another)."""

    scheduled: frozenset[EntityKey] = frozenset()
    """Entities scheduled in the store (RUNNING or SUSPENDED)."""
    first_built: Mapping[EntityKey, str] = field(default_factory=dict)
    """When the loader first built each entity's DAGs (UTC, ``yyyy-MM-ddTHH:mm:ss.ffffffZ``: sorts as it reads)."""

    def _rank(self, key: EntityKey) -> tuple[int, int, str]:
        since = self.first_built.get(key)
        return (0 if key in self.scheduled else 1, 0 if since else 1, since or "")

    def outranks(self, one: EntityKey, other: EntityKey) -> bool:
        """Whether ``one`` was there before ``other`` (rules 1 and 2 above); ``False`` for a tie."""
        return self._rank(one) < self._rank(other)

    def standing(self, key: EntityKey) -> str:
        """Why ``key`` counts as running, for the newcomer's message."""
        since = self.first_built.get(key)
        if key in self.scheduled:
            return "scheduled in the store"
        return f"running since {since}" if since else "submitted first"


NO_INCUMBENTS = Incumbents()
