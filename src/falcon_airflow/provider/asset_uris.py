"""The ``falcon`` asset URI scheme: what Airflow calls (provider info ``asset-uris``) on every ``falcon://`` URI an
:class:`~airflow.sdk.Asset` is given.

A feed on a cluster is one Airflow asset, ``falcon://<cluster>/<feed>``
(:func:`falcon_airflow.core.naming.feed_dataset`, :mod:`falcon_airflow.notifications.assets`): its identity is the
two entity names and nothing else, so that it never moves when the data does. The handler keeps it that way:
Airflow has already lowered the scheme and dropped a password, a trailing slash and the fragment; :func:`sanitize_uri`
reads the cluster and the feed back (percent-escapes decoded, doubled slashes ignored), refuses what names no feed -
no feed, a longer path, user information, a port, a query, a name Falcon would refuse - and answers the URI as the
project writes it. Names keep their case: Falcon's entity names are case-sensitive.

No Airflow import here (checked by the layer contract): Airflow imports this module wherever it builds an asset.
"""

from __future__ import annotations

import re
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from falcon_airflow.core.naming import FALCON_SCHEME, feed_dataset

ENTITY_NAME = re.compile(r"[a-zA-Z][\-a-zA-Z0-9]*")
"""An entity name, as the ``IDENTIFIER`` type of ``parsing/schemas/common-types.xsd`` spells it."""


def sanitize_uri(uri: SplitResult) -> SplitResult:
    """The normal form of a ``falcon://<cluster>/<feed>`` asset URI; ``ValueError`` for anything else."""

    def refuse(reason: str) -> ValueError:
        return ValueError(f"{urlunsplit(uri)!r} is not a Falcon feed asset URI (falcon://<cluster>/<feed>): "
                          f"{reason}")

    if uri.scheme.lower() != FALCON_SCHEME:
        raise refuse(f"the scheme is not {FALCON_SCHEME!r}")
    if "@" in uri.netloc:
        raise refuse("it carries user information")
    cluster = unquote(uri.netloc)
    if ":" in cluster:
        raise refuse("it has a port")
    if not ENTITY_NAME.fullmatch(cluster):
        raise refuse(f"{cluster!r} is no cluster name (a letter, then letters, digits or '-')")
    segments = [segment for segment in unquote(uri.path).split("/") if segment]
    if len(segments) != 1:
        raise refuse("the path must be one feed name" if segments else "it names no feed")
    feed = segments[0]
    if not ENTITY_NAME.fullmatch(feed):
        raise refuse(f"{feed!r} is no feed name (a letter, then letters, digits or '-')")
    if uri.query:
        raise refuse("a feed asset has no query")
    return urlsplit(feed_dataset(cluster, feed).uri)
