"""Apache ActiveMQ from Debian's ``activemq`` package, started for a test: a private configuration and data folder,
OpenWire and STOMP on free ports of 127.0.0.1, no JMX, no persistence; stopped (and waited for) at the end.

ActiveMQ converts a STOMP frame sent with ``transformation: jms-map-json`` into a JMS MapMessage with XStream and
Jettison, which Debian's package leaves out: Debian's ``libxstream-java`` and ``libjettison-java`` go on the
broker's classpath through the private instance's ``lib/`` folder."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ACTIVEMQ_HOME = Path(os.environ.get("FALCON_ACTIVEMQ_HOME", "/usr/share/activemq"))
JAVA_LIBRARIES = Path("/usr/share/java")
MAP_CONVERSION_JARS = ("xstream.jar", "jettison.jar", "xpp3.jar")
"""What the broker needs to turn a JSON map into a JMS MapMessage (Debian: libxstream-java, libjettison-java)."""
PACKAGES = "activemq libxstream-java libjettison-java"
START_TIMEOUT = 90.0
CONFIG = """\
<beans xmlns="http://www.springframework.org/schema/beans" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.springframework.org/schema/beans
  http://www.springframework.org/schema/beans/spring-beans.xsd
  http://activemq.apache.org/schema/core http://activemq.apache.org/schema/core/activemq-core.xsd">
  <broker xmlns="http://activemq.apache.org/schema/core" brokerName="falcon-test" useJmx="false"
          persistent="false" dataDirectory="{data}">
    <transportConnectors>
      <transportConnector name="openwire" uri="tcp://127.0.0.1:{openwire}"/>
      <transportConnector name="stomp" uri="stomp://127.0.0.1:{stomp}"/>
    </transportConnectors>
  </broker>
</beans>
"""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def answers(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


@dataclass
class Broker:
    openwire: int
    stomp: int
    log: Path

    @property
    def url(self) -> str:
        """The cluster's ``messaging`` endpoint as Falcon users write it (OpenWire)."""
        return f"tcp://127.0.0.1:{self.openwire}"


def missing() -> str | None:
    if not (ACTIVEMQ_HOME / "bin" / "activemq.jar").is_file() or not all(
            (JAVA_LIBRARIES / jar).is_file() for jar in MAP_CONVERSION_JARS):
        return (f"Apache ActiveMQ with its map conversion is not installed: `sudo apt-get install -y "
                f"--no-install-recommends {PACKAGES}`")
    if shutil.which("java") is None:
        return "java is not installed"
    return None


@contextlib.contextmanager
def running_broker(folder: Path) -> Iterator[Broker]:
    (folder / "conf").mkdir(parents=True, exist_ok=True)
    (folder / "data").mkdir(exist_ok=True)
    (folder / "lib").mkdir(exist_ok=True)
    for jar in MAP_CONVERSION_JARS:
        link = folder / "lib" / jar
        if not link.exists():
            link.symlink_to(JAVA_LIBRARIES / jar)
    broker = Broker(openwire=free_port(), stomp=free_port(), log=folder / "activemq.log")
    config = folder / "conf" / "activemq.xml"
    config.write_text(CONFIG.format(data=folder / "data", openwire=broker.openwire, stomp=broker.stomp),
                      encoding="utf-8")
    command = ["java", "-Xms64m", "-Xmx256m", f"-Dactivemq.home={ACTIVEMQ_HOME}", f"-Dactivemq.base={folder}",
               f"-Dactivemq.conf={folder / 'conf'}", f"-Dactivemq.data={folder / 'data'}",
               "-jar", str(ACTIVEMQ_HOME / "bin" / "activemq.jar"), "start", f"xbean:file:{config}"]
    with broker.log.open("wb") as log:
        process = subprocess.Popen(command, cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not answers(broker.stomp):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ActiveMQ did not start:\n{broker.log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        yield broker
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


CONSUMER = Path(__file__).resolve().parent / "MapConsumer.java"
CLIENT_JARS = ("activemq-client.jar", "geronimo-jms_1.1_spec.jar", "geronimo-j2ee-management-1.1-spec.jar",
               "hawtbuf.jar", "slf4j-api.jar")


class JmsConsumer:
    """A JMS consumer (Java, ActiveMQ's client, OpenWire) subscribed to ``topics`` until it has ``count`` messages.

    It writes to a file, not a pipe: processes forked by the test (a task runner) would inherit a pipe and keep it
    open after the consumer ends."""

    def __init__(self, broker: Broker, topics: list[str], count: int, seconds: int = 240) -> None:
        classpath = ":".join(str(ACTIVEMQ_HOME / "lib" / jar) for jar in CLIENT_JARS)
        self.output = broker.log.parent / f"consumer-{time.monotonic_ns()}.jsonl"
        with self.output.open("w") as out:
            self.process = subprocess.Popen(
                ["java", "-Xmx128m", "-cp", classpath, str(CONSUMER), broker.url, str(count), str(seconds), *topics],
                stdout=out, stderr=subprocess.DEVNULL, start_new_session=True)
        self.seconds = seconds
        deadline = time.monotonic() + 120  # the JVM compiles the consumer first: a few seconds
        while "READY" not in self.output.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"the JMS consumer did not start: {self.output.read_text()!r}")
            time.sleep(0.2)

    def messages(self) -> list[dict[str, object]]:
        """Every message received, once the consumer has them all or its time is up."""
        import json

        self.process.wait(timeout=self.seconds + 30)
        return [json.loads(line) for line in self.output.read_text().splitlines() if line.startswith("{")]

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
