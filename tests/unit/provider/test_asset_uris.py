"""The ``falcon`` asset URI scheme: Airflow runs our handler on every ``falcon://`` URI, which keeps the feed assets
the DAG builder makes as they are and refuses a URI that names no feed."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from airflow.sdk import Asset
from hypothesis import given, settings
from hypothesis import strategies as st

import falcon_airflow.parsing
from falcon_airflow.notifications.assets import feed_asset_id
from falcon_airflow.provider.asset_uris import ENTITY_NAME, sanitize_uri

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
names = st.builds(str.__add__, st.sampled_from(LETTERS), st.text(alphabet=LETTERS + "0123456789-", max_size=39))
"""Entity names: a letter, then letters, digits or '-' (what ENTITY_NAME accepts, checked below)."""


def sanitized(uri: str) -> str:
    return urlunsplit(sanitize_uri(urlsplit(uri)))


def test_entity_names_are_the_schemas() -> None:
    schema = (Path(falcon_airflow.parsing.__file__).parent / "schemas" / "common-types.xsd").read_text()
    identifier = re.search(r'<xs:simpleType name="IDENTIFIER">.*?<xs:pattern value="([^"]+)"', schema, re.S)
    assert identifier is not None and identifier.group(1) == ENTITY_NAME.pattern


@settings(deadline=None)  # the machine may be busy; the property has no timing
@given(cluster=names, feed=names)
def test_every_feed_asset_the_project_makes_is_kept_as_it_is(cluster: str, feed: str) -> None:
    assert ENTITY_NAME.fullmatch(cluster) and ENTITY_NAME.fullmatch(feed)
    identity = feed_asset_id(feed, cluster)
    assert sanitized(identity.uri) == identity.uri


def test_airflow_runs_the_handler_on_falcon_uris() -> None:
    assert Asset(name="falcon://primary/click-counts", uri="falcon://primary/click-counts").uri == (
        "falcon://primary/click-counts")
    assert Asset(uri="FALCON://primary//click-counts/").uri == "falcon://primary/click-counts"
    with pytest.raises(ValueError, match="names no feed"):
        Asset(uri="falcon://primary")


@pytest.mark.parametrize(("given_uri", "normal"), [
    ("falcon://primary/click-counts", "falcon://primary/click-counts"),
    ("falcon://Primary/Clicks", "falcon://Primary/Clicks"),  # Falcon's names are case-sensitive
    ("falcon://primary//clicks", "falcon://primary/clicks"),
    ("falcon://primary/%63licks", "falcon://primary/clicks"),
])
def test_normal_form(given_uri: str, normal: str) -> None:
    assert sanitized(given_uri) == normal


@pytest.mark.parametrize(("given_uri", "reason"), [
    ("falcon://primary/", "names no feed"),
    ("falcon:///clicks", "no cluster name"),
    ("falcon://primary/clicks/2026", "one feed name"),
    ("falcon://primary/a%2Fb", "one feed name"),
    ("falcon://user@primary/clicks", "user information"),
    ("falcon://primary:8020/clicks", "port"),
    ("falcon://pri_mary/clicks", "no cluster name"),
    ("falcon://primary/9clicks", "no feed name"),
    ("falcon://primary/clicks?instance=2026", "no query"),
    ("hdfs://primary/clicks", "scheme"),
])
def test_what_names_no_feed_is_refused(given_uri: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        sanitized(given_uri)
