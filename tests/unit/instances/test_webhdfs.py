"""hdfs:// from Airflow workers: a namenode's WebHDFS address from the Hadoop configuration."""

from __future__ import annotations

from pathlib import Path

import pendulum
import pytest

from falcon_airflow.instances.storage import StorageError
from falcon_airflow.instances.webhdfs import hadoop_settings, http_address


def write_conf(folder: Path, **settings: str) -> Path:
    entries = "".join(f"<property><name>{key}</name><value>{value}</value></property>"
                      for key, value in settings.items())
    (folder / "hdfs-site.xml").write_text(f"<configuration>{entries}</configuration>", encoding="utf-8")
    return folder


def test_each_namenode_maps_to_its_own_http_address(tmp_path: Path) -> None:
    settings = hadoop_settings(str(write_conf(tmp_path, **{
        "dfs.namenode.rpc-address.a": "127.0.0.1:9000", "dfs.namenode.http-address.a": "127.0.0.1:9001",
        "dfs.namenode.rpc-address.prod.nn1": "nn1.example:8020",
        "dfs.namenode.http-address.prod.nn1": "0.0.0.0:9870"})))
    assert http_address("127.0.0.1:9000", settings) == ("127.0.0.1", 9001)
    assert http_address("nn1.example:8020", settings) == ("nn1.example", 9870)  # bind-all: the namenode's host
    assert http_address("other.example:8020", settings) == ("other.example", 9870)  # Hadoop 3's default


def test_without_a_configuration_the_default_port_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HADOOP_CONF_DIR", raising=False)
    assert http_address("nn:8020") == ("nn", 9870)


def test_a_broken_configuration_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "hdfs-site.xml").write_text("<configuration><property>", encoding="utf-8")
    with pytest.raises(StorageError, match=r"hdfs-site\.xml: not a Hadoop configuration file"):
        hadoop_settings(str(tmp_path))


def closed_port() -> int:
    import socket

    with socket.socket() as probe:  # bound, never listening: a connection to it is refused
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_namenode_that_cannot_be_reached_is_an_error_never_a_missing_instance(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.instances.storage import clear_instance, exists

    port = closed_port()
    monkeypatch.setenv("HADOOP_CONF_DIR", str(write_conf(tmp_path, **{
        "dfs.namenode.rpc-address": "127.0.0.1:8020", "dfs.namenode.http-address": f"127.0.0.1:{port}"})))
    expected = (rf"cannot tell whether hdfs://127\.0\.0\.1:8020/data/x/_SUCCESS exists through WebHDFS "
                rf"http://127\.0\.0\.1:{port} \(dfs\.namenode\.http-address")
    with pytest.raises(StorageError, match=expected):
        exists("hdfs://127.0.0.1:8020/data/x/_SUCCESS")
    moment = pendulum.datetime(2026, 3, 1, tz="UTC")
    with pytest.raises(StorageError, match="cannot tell whether"):  # an output is never taken for cleared
        clear_instance("hdfs://127.0.0.1:8020/data/2026", "hdfs://127.0.0.1:8020/data/${YEAR}", moment,
                       pendulum.timezone("UTC"))

    monkeypatch.delenv("HADOOP_CONF_DIR")  # the default port, and the message says how to configure it
    with pytest.raises(StorageError, match=r"Hadoop's default port, as \$HADOOP_CONF_DIR is not set; point "
                                           r"HADOOP_CONF_DIR"):
        exists("hdfs://127.0.0.1:8020/data/x")
