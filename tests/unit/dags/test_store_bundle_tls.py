"""The store's DAG bundle presents Airflow's ``[api] client_ssl_cert`` to an api-server that demands one."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from falcon_airflow.dags.store_bundle import client_tls


def test_the_bundle_presents_the_configured_client_certificate(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dag-processor")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
                   .sign(key, hashes.SHA256()))
    (tmp_path / "c.crt").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "c.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    monkeypatch.delenv("AIRFLOW__API__CLIENT_SSL_CERT", raising=False)
    monkeypatch.delenv("AIRFLOW__API__CLIENT_SSL_KEY", raising=False)
    assert client_tls() is None
    monkeypatch.setenv("AIRFLOW__API__CLIENT_SSL_CERT", str(tmp_path / "c.crt"))
    monkeypatch.setenv("AIRFLOW__API__CLIENT_SSL_KEY", str(tmp_path / "c.key"))
    assert client_tls() is not None
