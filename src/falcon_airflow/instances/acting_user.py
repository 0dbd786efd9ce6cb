"""Whom the Airflow side's storage calls act for on a Kerberized cluster.

The Airflow service principal authenticates every WebHDFS call; on a Kerberized cluster it acts for the entity's
user (``doas=``, which the namenode allows only as its ``hadoop.proxyuser.*`` settings say), as its Spark jobs do
with ``--proxy-user``: a sensor sees the instances that user may see, and clean-up and flags touch only what that
user may touch. Tasks of an entity run their storage calls inside :func:`acting_for` its ``run_as`` user; outside
one, ``HADOOP_PROXY_USER`` applies, as for Hadoop's own clients.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_ACTING_FOR: ContextVar[str | None] = ContextVar("falcon_acting_for", default=None)


@contextmanager
def acting_for(user: str | None) -> Iterator[None]:
    """Storage calls inside act for ``user`` (``None``: as they would without this)."""
    token = _ACTING_FOR.set(user or _ACTING_FOR.get())
    try:
        yield
    finally:
        _ACTING_FOR.reset(token)


def acting_user() -> str | None:
    return _ACTING_FOR.get() or os.environ.get("HADOOP_PROXY_USER") or None
