"""``hdfs://`` from the Airflow side: the namenode's WebHDFS address, found the way Hadoop clients find it.

Sensors, output clean-up and availability flags run in Airflow workers, which have no Hadoop client; they reach
HDFS over WebHDFS (fsspec's ``webhdfs``). A namenode ``hdfs://host:port`` maps to its HTTP address through the
Hadoop configuration in ``$HADOOP_CONF_DIR`` (``hdfs-site.xml``, ``core-site.xml``): the
``dfs.namenode.http-address[.SUFFIX]`` whose ``dfs.namenode.rpc-address[.SUFFIX]`` is ``host:port`` (a
nameservice or ``nameservice.namenode`` suffix, as for federated or HA namenodes); without one, ``host:9870``,
Hadoop 3's default. ``HADOOP_USER_NAME`` is the user WebHDFS acts as (else the login name), as for Hadoop's
own clients without Kerberos.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from xml.etree import ElementTree

from falcon_airflow.instances.storage import StorageError

DEFAULT_HTTP_PORT = 9870
_RPC = "dfs.namenode.rpc-address"
_HTTP = "dfs.namenode.http-address"


def hadoop_settings(conf_dir: str | None = None) -> dict[str, str]:
    """The name/value pairs of core-site.xml and hdfs-site.xml in ``conf_dir`` (default ``$HADOOP_CONF_DIR``)."""
    folder = conf_dir if conf_dir is not None else os.environ.get("HADOOP_CONF_DIR")
    settings: dict[str, str] = {}
    if not folder:
        return settings
    for name in ("core-site.xml", "hdfs-site.xml"):
        path = Path(folder) / name
        if not path.is_file():
            continue
        try:  # operator-written local files; expat resolves no external entities
            root = ElementTree.parse(path).getroot()
        except ElementTree.ParseError as problem:
            raise StorageError(f"{path}: not a Hadoop configuration file: {problem}") from None
        for item in root.iter("property"):
            key, value = item.findtext("name"), item.findtext("value")
            if key and value is not None:
                settings[key.strip()] = value.strip()
    return settings


def http_address(authority: str, settings: dict[str, str] | None = None) -> tuple[str, int]:
    """The WebHDFS ``(host, port)`` of the namenode at ``authority`` (``host:port`` of an ``hdfs://`` URI)."""
    known = hadoop_settings() if settings is None else settings
    host = authority.rsplit(":", 1)[0] if ":" in authority else authority
    for key, value in known.items():
        if (key == _RPC or key.startswith(f"{_RPC}.")) and value == authority:
            http = known.get(_HTTP + key[len(_RPC):])
            if http:
                http_host, _, port = http.rpartition(":")
                reachable = host if http_host in ("", "0.0.0.0") else http_host  # a bind-all address
                return reachable, int(port)
    return host, DEFAULT_HTTP_PORT


def describe_address(authority: str) -> str:
    """Which WebHDFS address the namenode at ``authority`` maps to, and why (for error messages)."""
    host, port = http_address(authority)
    folder = os.environ.get("HADOOP_CONF_DIR")
    named = any((key == _RPC or key.startswith(f"{_RPC}.")) and value == authority
                for key, value in hadoop_settings().items())
    if named:
        return f"WebHDFS http://{host}:{port} (dfs.namenode.http-address in $HADOOP_CONF_DIR={folder})"
    why = (f"$HADOOP_CONF_DIR={folder} names no dfs.namenode.rpc-address {authority}" if folder
           else "$HADOOP_CONF_DIR is not set")
    return (f"WebHDFS http://{host}:{port}, Hadoop's default port, as {why}; point HADOOP_CONF_DIR where Airflow "
            "runs at a folder whose hdfs-site.xml gives this namenode's dfs.namenode.rpc-address and "
            "dfs.namenode.http-address")


def webhdfs_user() -> str:
    return os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
