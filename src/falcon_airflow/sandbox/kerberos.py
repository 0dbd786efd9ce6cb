"""The secure sandbox's Kerberos realm as its clients see it: the principals and keytabs, the ``krb5.conf`` and the
Hadoop client settings (``core-site.xml``, ``hdfs-site.xml``) that reach its Kerberized HDFS clusters.

Pure: these build text and records; ``secure.py`` starts the KDC and the clusters and writes the files.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

# Short names, so each is its principal's Hadoop user (the default auth_to_local rule strips the realm).
AIRFLOW_USER = "airflow"
OWNER_USER = "owner"
OUTSIDER_USER = "outsider"
USERS = (AIRFLOW_USER, OWNER_USER, OUTSIDER_USER)
# The namenodes' and datanodes' principal. Its host part is "localhost": a Hadoop client turns "_HOST" into the
# canonical name of the namenode's address, and 127.0.0.1's is "localhost".
HDFS_SERVICE = "hdfs/localhost"
HDFS_KEYTAB = "hdfs.keytab"
# The secure YARN's ResourceManager and NodeManager (one JVM, so one login); the renewer of the jobs' HDFS tokens.
YARN_SERVICE = "yarn/localhost"
YARN_KEYTAB = "yarn.keytab"
# The secure Hive metastore. Hive's clients turn hive/_HOST@REALM into the host of the metastore URI as written (no
# name lookup, unlike HDFS's), so for thrift://127.0.0.1:port the principal is this.
HIVE_SERVICE = "hive/127.0.0.1"
HIVE_KEYTAB = "hive.keytab"

_KDC_LINE = re.compile(r"^KDC (\S+) (\S+):(\d+)$", re.MULTILINE)


@dataclass(frozen=True)
class Principal:
    principal: str
    keytab: str


@dataclass(frozen=True)
class Realm:
    """What a client needs to authenticate to the secure sandbox."""

    realm: str
    kdc: str
    """``127.0.0.1:port`` (TCP)."""
    krb5_conf: str
    hdfs_principal: str
    keytabs: dict[str, Principal]
    """By user: ``airflow`` (the Airflow service), ``owner`` (an entity's owner), ``outsider`` (anyone else)."""

    def as_json(self) -> dict[str, Any]:
        return {"realm": self.realm, "kdc": self.kdc, "krb5_conf": self.krb5_conf,
                "hdfs_principal": self.hdfs_principal,
                "keytabs": {user: asdict(item) for user, item in self.keytabs.items()}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Realm:
        return cls(realm=data["realm"], kdc=data["kdc"], krb5_conf=data["krb5_conf"],
                   hdfs_principal=data["hdfs_principal"],
                   keytabs={user: Principal(**item) for user, item in data["keytabs"].items()})


def parse_kdc_line(log: str) -> tuple[str, int] | None:
    """The realm and port from the KDC JVM's ``KDC REALM HOST:PORT`` line, once it is printed."""
    found = _KDC_LINE.search(log)
    return (found[1], int(found[3])) if found else None


def realm_for(realm: str, kdc_port: int, state_dir: Path) -> Realm:
    keytabs = state_dir / "keytabs"
    return Realm(realm=realm, kdc=f"127.0.0.1:{kdc_port}", krb5_conf=str(state_dir / "krb5.conf"),
                 hdfs_principal=f"{HDFS_SERVICE}@{realm}",
                 keytabs={user: Principal(principal=f"{user}@{realm}", keytab=str(keytabs / f"{user}.keytab"))
                          for user in USERS})


def krb5_conf(realm: str, kdc_port: int) -> str:
    """A krb5.conf for the sandbox's KDC, for JVMs (``-Djava.security.krb5.conf``) and MIT Kerberos (``KRB5_CONFIG``)
    alike. TCP only (the KDC listens on TCP); no DNS: neither the KDC nor the realm is looked up, and host names are
    not reversed, so a client asking for ``HTTP/127.0.0.1`` gets that service's ticket."""
    return (f"[libdefaults]\n"
            f"    default_realm = {realm}\n"
            f"    udp_preference_limit = 1\n"
            f"    dns_lookup_kdc = false\n"
            f"    dns_lookup_realm = false\n"
            f"    rdns = false\n"
            f"    dns_canonicalize_hostname = false\n"
            f"\n[realms]\n"
            f"    {realm} = {{\n"
            f"        kdc = 127.0.0.1:{kdc_port}\n"
            f"    }}\n"
            f"\n[domain_realm]\n"
            f"    localhost = {realm}\n"
            f"    127.0.0.1 = {realm}\n")


def site_xml(properties: dict[str, str]) -> str:
    entries = "".join(f"  <property><name>{escape(name)}</name><value>{escape(value)}</value></property>\n"
                      for name, value in properties.items())
    return f"<?xml version=\"1.0\"?>\n<configuration>\n{entries}</configuration>\n"


def core_site() -> dict[str, str]:
    # The default auth_to_local rule already maps user@REALM and hdfs/localhost@REALM to their short names.
    return {"hadoop.security.authentication": "kerberos"}


def hdfs_site(realm: str, namenodes: dict[str, tuple[int, int]]) -> dict[str, str]:
    """The client side of the clusters' security: the namenode's principal (a client refuses a server whose
    principal it cannot name), SASL on the data transfer protocol (the datanodes accept nothing else) and each
    namenode's RPC and HTTP address, suffixed by cluster name as in the plain sandbox."""
    properties = {"dfs.namenode.kerberos.principal": f"{HDFS_SERVICE}@{realm}",
                  "dfs.data.transfer.protection": "authentication",
                  "dfs.block.access.token.enable": "true"}
    for name, (rpc, http) in namenodes.items():
        properties[f"dfs.namenode.rpc-address.{name}"] = f"127.0.0.1:{rpc}"
        properties[f"dfs.namenode.http-address.{name}"] = f"127.0.0.1:{http}"
    return properties
