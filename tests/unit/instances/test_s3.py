"""S3 on the Airflow side: which of a cluster's S3A settings reach it, and what s3fs is told."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import cluster, feed, workspace

import falcon_airflow.instances.storage as storage
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.instances.s3 import client_settings, s3fs_options
from falcon_airflow.instances.storage import remote_location
from falcon_airflow.operate.triage import storage_check

S3A = {"fs.s3a.endpoint": "127.0.0.1:9000", "fs.s3a.path.style.access": "true",
       "fs.s3a.endpoint.region": "eu-west-1", "fs.s3a.connection.ssl.enabled": "false",
       "fs.s3a.access.key": "AKIAEXAMPLE", "fs.s3a.secret.key": "hush", "fs.s3a.session.token": "t",
       "fs.s3a.bucket.archive.endpoint": "https://archive.example:9443", "fs.s3a.bucket.archive.secret.key": "x",
       "fs.s3a.fast.upload": "true", "dfs.replication": "2", "queueName": "default"}


def test_only_client_settings_reach_the_airflow_side_never_a_credential() -> None:
    assert client_settings(S3A) == {
        "fs.s3a.bucket.archive.endpoint": "https://archive.example:9443",
        "fs.s3a.connection.ssl.enabled": "false",
        "fs.s3a.endpoint": "127.0.0.1:9000",
        "fs.s3a.endpoint.region": "eu-west-1",
        "fs.s3a.path.style.access": "true",
    }


def test_s3a_settings_become_s3fs_options_with_per_bucket_overrides() -> None:
    settings = client_settings(S3A)
    assert s3fs_options(settings, "landing") == {
        "endpoint_url": "http://127.0.0.1:9000",  # no scheme, SSL off: plain HTTP, as S3A connects
        "client_kwargs": {"region_name": "eu-west-1"},
        "config_kwargs": {"s3": {"addressing_style": "path"}},
    }
    assert s3fs_options(settings, "archive")["endpoint_url"] == "https://archive.example:9443"
    assert s3fs_options({"fs.s3a.endpoint": "s3.example.com"}, "b") == {"endpoint_url": "https://s3.example.com"}
    anonymous = {"fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider"}
    assert s3fs_options(anonymous, "public") == {"anon": True}
    assert s3fs_options({}, "b") == {}


def test_a_feed_on_s3_carries_its_cluster_s_client_settings_and_one_on_hdfs_none(tmp_path: Path) -> None:
    loaded = workspace(tmp_path, cluster("lake", "s3a://landing", properties=S3A),
                       cluster("c1", "hdfs://nn:8020"),
                       feed("clicks", clusters=(("lake", "source"), ("c1", "target"))))
    clicks = loaded.feeds["clicks"]
    on_lake = FeedOnCluster(clicks, clicks.clusters[0], loaded.clusters["lake"]).binding()
    on_hdfs = FeedOnCluster(clicks, clicks.clusters[1], loaded.clusters["c1"]).binding()
    assert on_lake.storage_settings == client_settings(S3A)
    assert "storage_settings" in on_lake.model_dump(mode="json")
    assert on_hdfs.storage_settings is None and "storage_settings" not in on_hdfs.model_dump(mode="json")
    assert "hush" not in on_lake.model_dump_json()


def test_an_s3a_location_is_reached_through_s3fs_at_the_cluster_s_endpoint() -> None:
    fs, remote = remote_location("s3a://landing/data/2026/03/01/_DONE", client_settings(S3A))
    assert type(fs).__name__ == "S3FileSystem" and remote == "landing/data/2026/03/01/_DONE"
    assert fs.client_kwargs == {"region_name": "eu-west-1"} and fs.endpoint_url == "http://127.0.0.1:9000"
    assert fs.dircache.use_listings_cache is False  # a sensor asks again and again: never a cached "no"


def test_triage_asks_each_bucket_with_its_cluster_s_settings(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = workspace(tmp_path, cluster("lake", "s3a://landing", properties=S3A), cluster("c1", "file:///srv/c1"))
    asked: list[tuple[str, object]] = []

    def exists(location: str, settings: object = None) -> bool:
        asked.append((location, settings))
        return True

    monkeypatch.setattr(storage, "exists", exists)
    check = storage_check(loaded)
    assert check("s3a://landing/data/x") and check("file:///srv/c1/data/x") and check("s3a://other/y")
    assert asked == [("s3a://landing/data/x", client_settings(S3A)), ("file:///srv/c1/data/x", None),
                     ("s3a://other/y", None)]


def test_an_oozie_action_s_file_system_reaches_s3_at_the_cluster_s_endpoint() -> None:
    from falcon_airflow.provider.operators.oozie_runtime import OozieFileSystem

    fs, remote = OozieFileSystem(storage_settings=client_settings(S3A))._fs("s3a://landing/apps/x")
    assert fs.endpoint_url == "http://127.0.0.1:9000" and remote == "landing/apps/x"
