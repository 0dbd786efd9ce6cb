"""The Prism and a colo server over TLS with client certificates, for real: the colo's api-server serves https
with ``[api] ssl_cert``/``ssl_key`` and verifies client certificates against ``[api] ssl_ca_file`` (uvicorn's TLS
layer), and its Falcon server takes entity changes only from the Prism (``[falcon] accept_writes_from``). The
Prism trusts the colo through ``[falcon] prism_ca_file`` and presents ``prism_client_cert``. Every certificate is
made here.

The colo asks ``ssl_cert_reqs = required``: no connection without a certificate of its CA gets through the TLS
handshake, so its Falcon server calls its own Airflow REST API with Airflow's ``[api] client_ssl_cert``.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import ssl
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from tests.builders import ops_cluster
from tests.integration.operate.harness import AirflowServer

pytestmark = pytest.mark.xdist_group("airflow-prism-tls")

USER = {"user.name": "admin"}
SECRET = "prism-and-colo-shared-secret-5b"


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificate(subject: str, key: ec.EllipticCurvePrivateKey, issuer: tuple[str, ec.EllipticCurvePrivateKey] | None,
                 *, ca: bool = False, server: bool = False) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    signer_name, signer_key = issuer if issuer is not None else (subject, key)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(signer_name))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(
            "127.0.0.1"))]), critical=False)
    return builder.sign(signer_key, hashes.SHA256())


def _write(folder: Path, name: str, certificate: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> None:
    (folder / f"{name}.crt").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (folder / f"{name}.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                           serialization.PrivateFormat.PKCS8,
                                                           serialization.NoEncryption()))


def certificates(folder: Path) -> Path:
    """A CA; the colo's server certificate (127.0.0.1) and the Prism's client certificate from it; an outsider's
    client certificate from another CA."""
    folder.mkdir()
    ca_key, rogue_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("falcon test CA", ca_key, None, ca=True)
    _write(folder, "ca", ca, ca_key)
    for name, server in (("colo", True), ("prism", False), ("colo-client", False)):
        key = ec.generate_private_key(ec.SECP256R1())
        _write(folder, name, _certificate(name, key, ("falcon test CA", ca_key), server=server), key)
    outsider_key = ec.generate_private_key(ec.SECP256R1())
    _write(folder, "outsider", _certificate("outsider", outsider_key, ("another CA", rogue_key)), outsider_key)
    return folder


class HttpsServer(AirflowServer):
    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"


@dataclass
class Deployment:
    colo: AirflowServer
    prism: AirflowServer
    certs: Path

    def tls(self, client: str | None) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.certs / "ca.crt"))
        if client is not None:
            context.load_cert_chain(self.certs / f"{client}.crt", self.certs / f"{client}.key")
        return context


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("falcon-prism-tls")
    certs = certificates(root / "certs")
    prepared = AirflowServer.prepare(root / "east")
    colo = HttpsServer(**{item.name: getattr(prepared, item.name) for item in fields(prepared)})
    colo.env.update({
        "AIRFLOW__FALCON__AUTHENTICATION": "simple", "AIRFLOW__FALCON__AIRFLOW_USER": "admin",
        "AIRFLOW__FALCON__COLO": "east", "AIRFLOW__FALCON__ACCEPT_WRITES_FROM": "prism",
        "AIRFLOW__FALCON__PRISM_SECRET": SECRET,
        "AIRFLOW__API__SSL_CERT": str(certs / "colo.crt"), "AIRFLOW__API__SSL_KEY": str(certs / "colo.key"),
        "AIRFLOW__API__SSL_CA_FILE": str(certs / "ca.crt"), "AIRFLOW__API__SSL_CERT_REQS": "required",
        "AIRFLOW__API__CLIENT_SSL_CERT": str(certs / "colo-client.crt"),
        "AIRFLOW__API__CLIENT_SSL_KEY": str(certs / "colo-client.key"),
        "AIRFLOW__API__BASE_URL": colo.url, "SSL_CERT_FILE": str(certs / "ca.crt"),
    })
    prism = AirflowServer.prepare(root / "prism")
    prism.env.update({
        "AIRFLOW__FALCON__AUTHENTICATION": "simple", "AIRFLOW__FALCON__MODE": "prism",
        "AIRFLOW__FALCON__PRISM_COLOS": f"east={colo.url}/falcon", "AIRFLOW__FALCON__PRISM_SECRET": SECRET,
        "AIRFLOW__FALCON__PRISM_CA_FILE": str(certs / "ca.crt"),
        "AIRFLOW__FALCON__PRISM_CLIENT_CERT": str(certs / "prism.crt"),
        "AIRFLOW__FALCON__PRISM_CLIENT_KEY": str(certs / "prism.key"),
    })
    colo.airflow("db", "migrate")
    shutil.copy(colo.home / "airflow.db", prism.home / "airflow.db")
    saved = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = str(certs / "ca.crt")  # the harness waits for the colo over https
    waiting = ssl.create_default_context(cafile=str(certs / "ca.crt"))  # ... with a certificate, as it must
    waiting.load_cert_chain(certs / "colo-client.crt", certs / "colo-client.key")
    urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPSHandler(context=waiting)))
    try:
        colo.start(migrate=False)
        prism.start(migrate=False)
        yield Deployment(colo, prism, certs)
    finally:
        prism.stop()
        colo.stop()
        urllib.request.install_opener(urllib.request.build_opener())
        if saved is None:
            os.environ.pop("SSL_CERT_FILE", None)
        else:
            os.environ["SSL_CERT_FILE"] = saved


def test_changes_reach_the_colo_through_the_prism_only(deployment: Deployment, tmp_path: Path) -> None:
    cluster = ops_cluster("east", colo="east", storage=tmp_path / "storage")
    headers = {"Accept": "application/json", "Content-Type": "text/xml"}
    answer = httpx.post(f"{deployment.prism.url}/falcon/api/entities/submit/cluster", params=USER, content=cluster,
                        headers=headers, timeout=120)
    assert answer.json()["status"] == "SUCCEEDED", answer.text
    assert answer.json()["message"].startswith("east/falcon/default/Submit successful (cluster) east"), answer.text

    colo = f"{deployment.colo.url}/falcon/api/entities"
    # directly on the colo, with a certificate of its CA but not through the Prism: refused, saying why
    with httpx.Client(verify=deployment.tls("prism"), timeout=60) as direct:
        refused = direct.delete(f"{colo}/delete/cluster/east", params=USER, headers=headers)
        assert refused.status_code == 403, refused.text
        assert "accepted on this colo only from the Prism 'prism' ([falcon] accept_writes_from)" in refused.text
        assert "no X-Falcon-Prism header" in refused.text
        listed = direct.get(f"{colo}/list/cluster", params=USER, headers=headers)  # reading stays open
        assert listed.status_code == 200 and "east" in listed.text, listed.text
    # a certificate of another CA does not get through the TLS handshake
    with httpx.Client(verify=deployment.tls("outsider"), timeout=60) as outsider, pytest.raises(httpx.HTTPError):
        outsider.get(f"{colo}/list/cluster", params=USER, headers=headers)
    # nor does a connection without a certificate
    with httpx.Client(verify=deployment.tls(None), timeout=60) as anonymous, pytest.raises(httpx.HTTPError):
        anonymous.get(f"{colo}/list/cluster", params=USER, headers=headers)
    # plain http to the colo's https port is no way round
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{deployment.colo.port}/falcon/api/entities/list/cluster", params=USER,
                  timeout=30)
