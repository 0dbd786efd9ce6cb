"""The secure sandbox (``falcon-airflow sandbox up --secure``): a Kerberos KDC (Hadoop's MiniKdc) and the two HDFS
clusters with Kerberos on, in one JVM on 127.0.0.1.

The clusters authenticate RPC with Kerberos, protect block access with tokens and the datanodes' data transfer with
SASL (``dfs.data.transfer.protection=authentication``, no privileged ports), put SPNEGO in front of WebHDFS and
check HDFS permissions; each user has a private home folder. A YARN with Kerberos on (java/SecureMiniYarn.java, its
own JVM, started as soon as the KDC is up) runs jobs submitted for an entity's owner; its default file system is
cluster a. A Hive metastore with SASL (java/SecureMetastore.java, its own JVM, logged in as ``hive/127.0.0.1``)
keeps its warehouse on cluster a. The S3 store and Spark's standalone master of the plain sandbox are not started
here.

The state folder has the same layout as the plain sandbox's (``sandbox.json``, ``logs/``), so ``sandbox down``
stops either; ``sandbox.json`` says ``"secure": true`` for ``status``.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from falcon_airflow.jvm import jar_group
from falcon_airflow.sandbox.kerberos import (
    AIRFLOW_USER,
    HIVE_KEYTAB,
    HIVE_SERVICE,
    OUTSIDER_USER,
    OWNER_USER,
    YARN_KEYTAB,
    YARN_SERVICE,
    Realm,
    core_site,
    hdfs_site,
    krb5_conf,
    parse_kdc_line,
    realm_for,
    site_xml,
)
from falcon_airflow.sandbox.services import SandboxError, Service, free_port, launch, port_open
from falcon_airflow.sandbox.stack import (
    HDFS_CLUSTERS,
    JAVA_SOURCES,
    START_TIMEOUT,
    STATE_FILE,
    YARN_NODE_MEMORY_MB,
    YARN_NODE_VCORES,
    HdfsEndpoint,
    Sandbox,
    _java,
    _spark_home,
    default_state_dir,
    spark_on_yarn_properties,
)


@dataclass(frozen=True)
class SecureEndpoints:
    hdfs: tuple[HdfsEndpoint, ...]
    hadoop_conf_dir: str
    """core-site.xml (Kerberos) and hdfs-site.xml (the namenodes' principal, SASL data transfer, each namenode's
    RPC and HTTP address) for Hadoop clients of these clusters."""
    kerberos: Realm
    yarn: str = ""
    """The Kerberized YARN ResourceManager (``localhost:port``, the host its principal names; it listens on
    127.0.0.1); its yarn-site.xml is in ``hadoop_conf_dir``."""
    yarn_webapp: str = ""
    metastore: str = ""
    """The Hive metastore's thrift URI; it speaks SASL (Kerberos GSSAPI) only."""
    metastore_principal: str = ""
    """Its service principal (``hive/127.0.0.1@REALM``), as a cluster entity's ``hive.metastore.kerberos.principal``
    names it."""

    def as_json(self) -> dict[str, Any]:
        return {"secure": True, "hdfs": [asdict(item) for item in self.hdfs],
                "hadoop_conf_dir": self.hadoop_conf_dir, "kerberos": self.kerberos.as_json(),
                "yarn": self.yarn, "yarn_webapp": self.yarn_webapp,
                "metastore": self.metastore, "metastore_principal": self.metastore_principal}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SecureEndpoints:
        return cls(hdfs=tuple(HdfsEndpoint(**item) for item in data["hdfs"]),
                   hadoop_conf_dir=data["hadoop_conf_dir"], kerberos=Realm.from_json(data["kerberos"]),
                   yarn=data.get("yarn", ""), yarn_webapp=data.get("yarn_webapp", ""),
                   metastore=data.get("metastore", ""), metastore_principal=data.get("metastore_principal", ""))

    def yarn_spark_properties(self) -> dict[str, str]:
        """The Spark settings a cluster entity carries to run its jobs on this sandbox's YARN: staging files on
        HDFS a, in the submitting user's home folder (Spark adds the user's name), which the NodeManager fetches
        with the application's delegation tokens."""
        return spark_on_yarn_properties(f"{self.namenode('a')}/user")


    def namenode(self, name: str) -> str:
        return next(item.namenode for item in self.hdfs if item.name == name)

    def webhdfs(self, name: str) -> str:
        return next(item.webhdfs for item in self.hdfs if item.name == name)


def is_secure(state_dir: Path | None) -> bool:
    """Whether the state folder holds a secure sandbox's record."""
    state_file = (state_dir or default_state_dir()).resolve() / STATE_FILE
    try:
        endpoints = json.loads(state_file.read_text(encoding="utf-8")).get("endpoints") or {}
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(endpoints, dict) and endpoints.get("secure") is True


class SecureSandbox:
    """The KDC and the Kerberized clusters of one state folder. ``start()`` brings them up (or stops what started
    and says why); ``stop()`` is the plain sandbox's, which ends the JVM."""

    def __init__(self, state_dir: Path | None = None) -> None:
        self.state_dir = (state_dir or default_state_dir()).resolve()
        self.services: list[Service] = []
        self.endpoints: SecureEndpoints | None = None

    @property
    def state_file(self) -> Path:
        return self.state_dir / STATE_FILE

    def _save(self) -> None:
        data = {"services": [{"name": item.name, "pid": item.pid, "log": str(item.log)} for item in self.services],
                "endpoints": self.endpoints.as_json() if self.endpoints else {"secure": True}}
        self.state_file.write_text(json.dumps(data, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, state_dir: Path | None = None) -> SecureSandbox:
        plain = Sandbox.load(state_dir)  # reads the process records (and fails the same way when there are none)
        sandbox = cls(plain.state_dir)
        sandbox.services = plain.services
        try:
            data = json.loads(sandbox.state_file.read_text(encoding="utf-8"))
            sandbox.endpoints = SecureEndpoints.from_json(data["endpoints"])
        except (KeyError, TypeError, ValueError):
            sandbox.endpoints = None
        return sandbox

    def dead_services(self) -> list[str]:
        return self._plain().dead_services()

    def _plain(self) -> Sandbox:
        plain = Sandbox(self.state_dir)
        plain.services = list(self.services)
        return plain

    def stop(self) -> None:
        self._plain().stop()
        self.services = []

    def start(self) -> SecureEndpoints:
        if self.state_file.exists():
            existing = Sandbox.load(self.state_dir)
            if existing.services and not existing.dead_services():
                raise SandboxError(f"a sandbox already runs in {self.state_dir} (`falcon-airflow sandbox down` "
                                   "stops it)")
            existing.stop()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        for leftover in ("hdfs", "logs", "hadoop-conf", "kdc", "keytabs", "krb5.conf", "yarn", "metastore"):
            target = self.state_dir / leftover
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            else:
                target.unlink(missing_ok=True)
        try:
            self.endpoints = self._start_all()
        except BaseException:
            self.stop()
            raise
        self._save()
        return self.endpoints

    def __enter__(self) -> SecureEndpoints:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start_all(self) -> SecureEndpoints:
        java = _java()
        minicluster = jar_group("minicluster")  # both fail early, saying how to fill the cache
        minikdc = jar_group("minikdc")
        ports = {name: (free_port(), free_port()) for name in HDFS_CLUSTERS}
        classpath = f"{minicluster[0].parent / '*'}:{minikdc[0].parent / '*'}"
        service = launch("hdfs", [
            java, "-Xmx768m", "-cp", classpath, str(JAVA_SOURCES / "SecureMiniDfs.java"), str(self.state_dir),
            AIRFLOW_USER, OWNER_USER, OUTSIDER_USER, *(f"{name}:{rpc}:{http}" for name, (rpc, http) in ports.items()),
        ], log=self.state_dir / "logs" / "hdfs.log", cwd=self.state_dir / "hdfs")
        self.services.append(service)
        self._save()
        # YARN needs the KDC, the keytabs and the client configuration, not the HDFS clusters: it starts while
        # they do.
        service.wait_until(lambda: parse_kdc_line(service.log.read_text(encoding="utf-8", errors="replace"))
                           is not None, START_TIMEOUT, "print its KDC's realm and port")
        kdc = parse_kdc_line(service.log.read_text(encoding="utf-8", errors="replace"))
        if kdc is None:
            raise service.failure("did not print its KDC's realm and port")
        realm = realm_for(kdc[0], kdc[1], self.state_dir)
        Path(realm.krb5_conf).write_text(krb5_conf(kdc[0], kdc[1]), encoding="utf-8")
        # Keytabs are passwords: readable by the sandbox's user only.
        (self.state_dir / "keytabs").chmod(0o700)
        for keytab in (self.state_dir / "keytabs").glob("*.keytab"):
            keytab.chmod(0o600)
        conf_dir = self.state_dir / "hadoop-conf"
        conf_dir.mkdir(parents=True, exist_ok=True)
        (conf_dir / "core-site.xml").write_text(site_xml(core_site()), encoding="utf-8")
        (conf_dir / "hdfs-site.xml").write_text(site_xml(hdfs_site(kdc[0], ports)), encoding="utf-8")
        yarn = self._launch_yarn(java, minicluster[0].parent, realm, f"hdfs://127.0.0.1:{ports['a'][0]}")
        service.wait_for_line("READY", START_TIMEOUT)
        metastore_port = free_port()
        metastore = self._launch_metastore(java, realm, f"hdfs://127.0.0.1:{ports['a'][0]}", metastore_port)
        rm_address, webapp = self._yarn_ready(yarn)
        namenodes = tuple(HdfsEndpoint(name=name, namenode=f"hdfs://127.0.0.1:{rpc}",
                                       webhdfs=f"http://127.0.0.1:{http}/webhdfs/v1")
                          for name, (rpc, http) in ports.items())
        metastore.wait_for_line("READY", START_TIMEOUT)
        metastore.wait_until(lambda: port_open(metastore_port), START_TIMEOUT, "listen on its port")
        return SecureEndpoints(hdfs=namenodes, hadoop_conf_dir=str(conf_dir), kerberos=realm, yarn=rm_address,
                               yarn_webapp=f"http://{webapp}", metastore=f"thrift://127.0.0.1:{metastore_port}",
                               metastore_principal=f"{HIVE_SERVICE}@{realm.realm}")

    def _launch_metastore(self, java: str, realm: Realm, default_fs: str, port: int) -> Service:
        """The Hive metastore with SASL (java/SecureMetastore.java) on Derby, its warehouse the folder
        ``/warehouse`` of cluster a (sticky, as /tmp). It serves each call as its caller, a proxy of its own login,
        and lets the Airflow principal act for other users (a metastore delegation token for an entity's owner)."""
        conf_dir = self.state_dir / "hadoop-conf"
        database = self.state_dir / "metastore" / "db"
        service = launch("metastore", [
            java, "-Xmx512m", f"-Djava.security.krb5.conf={realm.krb5_conf}", "-cp",
            f"{conf_dir}:{_spark_home() / 'jars' / '*'}", str(JAVA_SOURCES / "SecureMetastore.java"), str(port),
            f"{HIVE_SERVICE}@{realm.realm}", str(self.state_dir / "keytabs" / HIVE_KEYTAB),
            f"javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={database};create=true",
            "datanucleus.schema.autoCreateAll=true", "hive.metastore.schema.verification=false",
            f"hive.metastore.warehouse.dir={default_fs}/warehouse",
            f"hadoop.proxyuser.{AIRFLOW_USER}.hosts=*", f"hadoop.proxyuser.{AIRFLOW_USER}.groups=*",
        ], log=self.state_dir / "logs" / "metastore.log", cwd=self.state_dir / "metastore")
        self.services.append(service)
        self._save()
        return service

    def _launch_yarn(self, java: str, minicluster: Path, realm: Realm, default_fs: str) -> Service:
        """The Kerberized YARN (java/SecureMiniYarn.java) in its own JVM, logged in as the ``yarn/localhost``
        principal; the Hadoop configuration folder on its classpath gives it (and the localizers it starts) the
        clients' view of the secure HDFS clusters."""
        keytab = self.state_dir / "keytabs" / YARN_KEYTAB
        conf_dir = self.state_dir / "hadoop-conf"
        service = launch("yarn", [
            java, "-Xmx512m", f"-Djava.security.krb5.conf={realm.krb5_conf}",
            f"-Dtest.build.data={self.state_dir / 'yarn'}", "-cp", f"{conf_dir}:{minicluster / '*'}",
            str(JAVA_SOURCES / "SecureMiniYarn.java"), str(conf_dir), str(free_port()), str(YARN_NODE_MEMORY_MB),
            str(YARN_NODE_VCORES), f"{YARN_SERVICE}@{realm.realm}", str(keytab), AIRFLOW_USER, default_fs,
        ], log=self.state_dir / "logs" / "yarn.log", cwd=self.state_dir / "yarn")
        self.services.append(service)
        self._save()
        return service

    @staticmethod
    def _yarn_ready(service: Service) -> tuple[str, str]:
        """The ResourceManager's RPC and web addresses, once the NodeManager has registered."""
        service.wait_for_line("READY", START_TIMEOUT)
        log = service.log.read_text(encoding="utf-8", errors="replace")
        rm_address, webapp = (re.search(rf"^{key} (\S+)$", log, re.MULTILINE) for key in ("RM", "WEBAPP"))
        if rm_address is None or webapp is None:
            raise service.failure("did not print its addresses")
        return rm_address[1], webapp[1]
