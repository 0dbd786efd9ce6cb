"""The sandbox's services, started together and described by their endpoints.

* ``hdfs``: two MiniDFS clusters (``a`` and ``b``) in one JVM, each its own namenode, datanode and WebHDFS;
* ``s3``: moto's S3-compatible server, with one bucket;
* ``metastore``: a Hive 2.3 metastore thrift service on Derby, its warehouse on cluster ``a``;
* ``spark-master``, ``spark-worker-1``, ``spark-worker-2``: a Spark standalone cluster from the pyspark wheel
  (one core and 1 GB for executors per worker);
* ``yarn``: a MiniYARNCluster (a ResourceManager and one NodeManager of 4 GB and 4 vcores: two small Spark jobs at
  once), its ``yarn-site.xml`` in the sandbox's Hadoop configuration folder, so ``spark-submit --master yarn``
  with ``HADOOP_CONF_DIR`` set to it runs there.

Everything listens on 127.0.0.1 at ports chosen free. The state folder keeps the data, the logs and
``sandbox.json`` (process ids and endpoints), so ``down`` and ``status`` find a sandbox another process started.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from falcon_airflow.jvm import jar_cache, jar_group
from falcon_airflow.sandbox.services import SandboxError, Service, alive, free_port, launch, port_open, stop

STATE_FILE = "sandbox.json"
JAVA_SOURCES = Path(__file__).resolve().parent / "java"
HDFS_CLUSTERS = ("a", "b")
BUCKET = "falcon"
# moto checks no signature; any key pair works, these are what the entities are given.
ACCESS_KEY = "sandbox"
SECRET_KEY = "sandbox-secret"
WORKER_MEMORY = "1g"
YARN_NODE_MEMORY_MB, YARN_NODE_VCORES = 4096, 4
START_TIMEOUT = 240.0


@dataclass(frozen=True)
class HdfsEndpoint:
    name: str
    namenode: str
    webhdfs: str


@dataclass(frozen=True)
class S3Endpoint:
    endpoint: str
    bucket: str
    access_key: str
    secret_key: str

    def hadoop_properties(self) -> dict[str, str]:
        """The S3A client settings a cluster entity carries as properties to reach this store."""
        return {"fs.s3a.endpoint": self.endpoint, "fs.s3a.access.key": self.access_key,
                "fs.s3a.secret.key": self.secret_key, "fs.s3a.path.style.access": "true",
                "fs.s3a.endpoint.region": "us-east-1", "fs.s3a.connection.ssl.enabled": "false"}


@dataclass(frozen=True)
class Endpoints:
    hdfs: tuple[HdfsEndpoint, ...]
    s3: S3Endpoint
    metastore: str
    spark_master: str
    hadoop_conf_dir: str
    """A HADOOP_CONF_DIR naming both namenodes' RPC and HTTP addresses (for WebHDFS from Airflow workers) and the
    YARN ResourceManager's addresses (for spark-submit --master yarn)."""
    yarn: str
    """The YARN ResourceManager (``127.0.0.1:port``): a cluster entity's ``execute`` interface."""
    yarn_webapp: str
    """The ResourceManager's web server and REST API (``http://127.0.0.1:port``)."""

    def as_json(self) -> dict[str, Any]:
        return {"hdfs": [asdict(item) for item in self.hdfs], "s3": asdict(self.s3), "metastore": self.metastore,
                "spark_master": self.spark_master, "yarn": self.yarn, "yarn_webapp": self.yarn_webapp,
                "hadoop_conf_dir": self.hadoop_conf_dir}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Endpoints:
        return cls(hdfs=tuple(HdfsEndpoint(**item) for item in data["hdfs"]), s3=S3Endpoint(**data["s3"]),
                   metastore=data["metastore"], spark_master=data["spark_master"],
                   hadoop_conf_dir=data["hadoop_conf_dir"], yarn=data["yarn"], yarn_webapp=data["yarn_webapp"])

    def yarn_spark_properties(self) -> dict[str, str]:
        """The Spark settings a cluster entity carries to run its jobs on this sandbox's YARN (staging files in the
        state folder)."""
        return spark_on_yarn_properties(f"file://{Path(self.hadoop_conf_dir).parent / 'yarn' / 'staging'}")

    def namenode(self, name: str) -> str:
        return next(item.namenode for item in self.hdfs if item.name == name)

    def webhdfs(self, name: str) -> str:
        return next(item.webhdfs for item in self.hdfs if item.name == name)


def default_state_dir() -> Path:
    return Path.home() / ".cache" / "falcon-airflow" / "sandbox"


def spark_on_yarn_properties(staging_dir: str) -> dict[str, str]:
    """Spark on a sandbox's YARN: the pyspark wheel's jars as the containers' classpath (instead of uploading them
    per job), the staging files under ``staging_dir`` (Spark adds the submitting user's name), the application
    master and executors on the loopback address, and the wheel's Spark as their SPARK_HOME (where PySpark's
    workers find their Python files)."""
    spark_home = _spark_home()
    return {"spark.yarn.jars": f"local:{spark_home / 'jars'}/*",
            "spark.yarn.stagingDir": staging_dir,
            "spark.yarn.appMasterEnv.SPARK_LOCAL_IP": "127.0.0.1",
            "spark.executorEnv.SPARK_LOCAL_IP": "127.0.0.1",
            "spark.yarn.appMasterEnv.SPARK_HOME": str(spark_home),
            "spark.executorEnv.SPARK_HOME": str(spark_home)}


def _spark_home() -> Path:
    import pyspark  # noqa: TID251  (the location of the wheel's Spark; nothing of pyspark runs here)

    return Path(pyspark.__file__).resolve().parent


def _s3_server() -> str:
    """moto's server: ``$FALCON_AIRFLOW_S3_SERVER``, the checkout's ``.venv-s3`` (``make install``), or PATH."""
    configured = os.environ.get("FALCON_AIRFLOW_S3_SERVER")
    if configured:
        return configured
    for root in Path(__file__).resolve().parents:
        candidate = root / ".venv-s3" / "bin" / "moto_server"
        if candidate.exists():
            return str(candidate)
    found = shutil.which("moto_server")
    if found is None:
        raise SandboxError("sandbox service 's3' cannot start: moto_server is not installed (`make install` puts "
                           "it in .venv-s3; or set FALCON_AIRFLOW_S3_SERVER to its path)")
    return found


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not java:
        raise SandboxError("the sandbox needs Java 17 (java on PATH or JAVA_HOME)")
    return java


class Sandbox:
    """The services of one state folder. ``start()`` brings them all up (or none: a failure stops what started
    and says which service failed and why); ``stop()`` ends them."""

    def __init__(self, state_dir: Path | None = None) -> None:
        self.state_dir = (state_dir or default_state_dir()).resolve()
        self.services: list[Service] = []
        self.endpoints: Endpoints | None = None

    # -- state -------------------------------------------------------------------------------------------------

    @property
    def state_file(self) -> Path:
        return self.state_dir / STATE_FILE

    def _save(self) -> None:
        data = {"services": [{"name": item.name, "pid": item.pid, "log": str(item.log)} for item in self.services],
                "endpoints": self.endpoints.as_json() if self.endpoints else None}
        self.state_file.write_text(json.dumps(data, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, state_dir: Path | None = None) -> Sandbox:
        sandbox = cls(state_dir)
        if not sandbox.state_file.exists():
            raise SandboxError(f"no sandbox in {sandbox.state_dir} (start one with `falcon-airflow sandbox up`)")
        try:
            data = json.loads(sandbox.state_file.read_text(encoding="utf-8"))
            sandbox.services = [Service(name=item["name"], pid=int(item["pid"]), log=Path(item["log"]))
                                for item in data["services"]]
        except (ValueError, KeyError, TypeError) as problem:
            raise SandboxError(f"{sandbox.state_file} cannot be read ({problem!r}); stop its processes by hand "
                               "and remove it") from None
        try:  # a state file of another version still lets `down` stop the processes
            sandbox.endpoints = Endpoints.from_json(data["endpoints"])
        except (KeyError, TypeError):
            sandbox.endpoints = None
        return sandbox

    def dead_services(self) -> list[str]:
        return [item.name for item in self.services if not alive(item.pid)]

    # -- start and stop ----------------------------------------------------------------------------------------

    def start(self) -> Endpoints:
        if self.state_file.exists():
            existing = Sandbox.load(self.state_dir)
            if existing.services and not existing.dead_services():
                raise SandboxError(f"a sandbox already runs in {self.state_dir} (`falcon-airflow sandbox down` "
                                   "stops it)")
            existing.stop()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        for leftover in ("hdfs", "metastore", "spark", "logs", "hadoop-conf"):
            shutil.rmtree(self.state_dir / leftover, ignore_errors=True)
        try:
            self.endpoints = self._start_all()
        except BaseException:
            self.stop()
            raise
        self._save()
        return self.endpoints

    def stop(self) -> None:
        for service in reversed(self.services):
            if _is_ours(service):
                stop(service.pid)
        self.services = []
        self.state_file.unlink(missing_ok=True)

    def __enter__(self) -> Endpoints:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the services ------------------------------------------------------------------------------------------

    def _launch(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> Service:
        service = launch(name, argv, log=self.state_dir / "logs" / f"{name}.log", cwd=self.state_dir / name,
                         env=env)
        self.services.append(service)
        self._save()
        return service

    def _start_all(self) -> Endpoints:
        java = _java()
        minicluster = jar_group("minicluster")  # fails early, saying how to fill the cache
        spark_home = _spark_home()
        # Launched together, checked one by one: the JVMs start in parallel.
        hdfs_ports = {name: (free_port(), free_port()) for name in HDFS_CLUSTERS}
        hdfs = self._launch("hdfs", [
            java, "-Xmx768m", "-cp", str(minicluster[0].parent / "*"), str(JAVA_SOURCES / "MiniDfs.java"),
            *(f"{name}:{rpc}:{http}:{self.state_dir / 'hdfs' / name}" for name, (rpc, http) in hdfs_ports.items()),
        ])
        s3_port = free_port()
        s3 = self._launch("s3", [_s3_server(), "-H", "127.0.0.1", "-p", str(s3_port)])
        spark_env = {"SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_DAEMON_MEMORY": "256m",
                     "SPARK_LOG_DIR": str(self.state_dir / "logs"), "PYSPARK_PYTHON": sys.executable,
                     "SPARK_NO_DAEMONIZE": "1"}
        spark_class = str(spark_home / "bin" / "spark-class")
        master_port, master_ui = free_port(), free_port()
        master = self._launch("spark-master", [
            spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(master_port),
            "--webui-port", str(master_ui)], spark_env)
        master_url = f"spark://127.0.0.1:{master_port}"
        yarn_port = free_port()
        yarn = self._launch("yarn", [
            java, "-Xmx512m", f"-Dtest.build.data={self.state_dir / 'yarn'}", "-cp", str(minicluster[0].parent / "*"),
            str(JAVA_SOURCES / "MiniYarn.java"), str(self.state_dir / "hadoop-conf"), str(yarn_port),
            str(YARN_NODE_MEMORY_MB), str(YARN_NODE_VCORES)])
        workers = [self._launch(f"spark-worker-{index}", [
            spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--webui-port",
            str(free_port()), "--cores", "1", "--memory", WORKER_MEMORY,
            "--work-dir", str(self.state_dir / "spark" / f"worker-{index}"), master_url], spark_env)
            for index in (1, 2)]

        hdfs.wait_for_line("READY", START_TIMEOUT)
        namenodes = tuple(HdfsEndpoint(name=name, namenode=f"hdfs://127.0.0.1:{rpc}",
                                       webhdfs=f"http://127.0.0.1:{http}/webhdfs/v1")
                          for name, (rpc, http) in hdfs_ports.items())
        metastore_port = free_port()
        database = self.state_dir / "metastore" / "db"
        metastore = self._launch("metastore", [
            java, "-Xmx512m", "-cp", str(spark_home / "jars" / "*"), str(JAVA_SOURCES / "Metastore.java"),
            str(metastore_port),
            f"javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={database};create=true",
            "datanucleus.schema.autoCreateAll=true", "hive.metastore.schema.verification=false",
            f"hive.metastore.warehouse.dir={namenodes[0].namenode}/warehouse"])

        s3.wait_until(lambda: port_open(s3_port), START_TIMEOUT, "listen on its port")
        s3_endpoint = f"http://127.0.0.1:{s3_port}"
        _create_bucket(s3, s3_endpoint, BUCKET)
        master.wait_until(lambda: port_open(master_port), START_TIMEOUT, "listen on its port")
        for worker in workers:
            worker.wait_for_line("Successfully registered with master", START_TIMEOUT)
        metastore.wait_for_line("READY", START_TIMEOUT)
        metastore.wait_until(lambda: port_open(metastore_port), START_TIMEOUT, "listen on its port")
        yarn.wait_for_line("READY", START_TIMEOUT)
        webapp = re.search(r"^WEBAPP (\S+)$", yarn.log.read_text(encoding="utf-8", errors="replace"), re.MULTILINE)
        if webapp is None:
            raise yarn.failure("did not print its web address")
        return Endpoints(hdfs=namenodes, s3=S3Endpoint(endpoint=s3_endpoint, bucket=BUCKET, access_key=ACCESS_KEY,
                                                       secret_key=SECRET_KEY),
                         metastore=f"thrift://127.0.0.1:{metastore_port}", spark_master=master_url,
                         hadoop_conf_dir=str(self._write_hadoop_conf(hdfs_ports)), yarn=f"127.0.0.1:{yarn_port}",
                         yarn_webapp=f"http://{webapp[1]}")

    def _write_hadoop_conf(self, ports: dict[str, tuple[int, int]]) -> Path:
        """hdfs-site.xml with ``dfs.namenode.{rpc,http}-address.<cluster>`` for each namenode. The suffixes name
        no nameservice (``dfs.nameservices`` is unset), so Hadoop's own clients ignore them."""
        folder = self.state_dir / "hadoop-conf"
        folder.mkdir(parents=True, exist_ok=True)
        entries = "".join(
            f"  <property><name>dfs.namenode.rpc-address.{name}</name><value>127.0.0.1:{rpc}</value></property>\n"
            f"  <property><name>dfs.namenode.http-address.{name}</name><value>127.0.0.1:{http}</value></property>\n"
            for name, (rpc, http) in ports.items())
        (folder / "hdfs-site.xml").write_text(f"<?xml version=\"1.0\"?>\n<configuration>\n{entries}</configuration>\n",
                                              encoding="utf-8")
        return folder


def _create_bucket(service: Service, endpoint: str, bucket: str) -> None:
    request = urllib.request.Request(f"{endpoint}/{bucket}", method="PUT")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
    except OSError as problem:
        raise service.failure(f"did not create bucket {bucket}: {problem}") from None


def _is_ours(service: Service) -> bool:
    """Whether the recorded process id is still the sandbox's process (not a recycled id)."""
    try:
        command = Path(f"/proc/{service.pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return alive(service.pid)
    markers = {"hdfs": "MiniDfs", "metastore": "Metastore", "s3": "moto_server", "yarn": "MiniYarn"}
    return markers.get(service.name, "org.apache.spark.deploy") in command


__all__ = ["Endpoints", "HdfsEndpoint", "S3Endpoint", "Sandbox", "jar_cache"]
