"""With Airflow's ``[api] client_ssl_cert``/``client_ssl_key`` the deployment's own calls to its api-server
present that certificate (an api-server with ``ssl_cert_reqs = required`` takes none without one)."""

from __future__ import annotations

from pathlib import Path

from falcon_airflow.operate.airflow_api import AirflowClient
from falcon_airflow.operate.settings import Settings


def test_the_client_certificate_comes_from_airflow_s_api_section(tmp_path: Path) -> None:
    values = {("api", "client_ssl_cert"): "/etc/c.crt", ("api", "client_ssl_key"): "/etc/c.key",
              ("falcon", "colo"): " east "}
    settings = Settings.resolve(entities=str(tmp_path), airflow_config=lambda section, key:
                                values.get((section, key), ""))
    assert settings.client_cert == ("/etc/c.crt", "/etc/c.key") and settings.colo == "east"
    alone = Settings.resolve(entities=str(tmp_path), airflow_config=lambda section, key:
                             "/etc/c.crt" if key == "client_ssl_cert" else "")
    assert alone.client_cert is None and alone.colo is None
    assert AirflowClient(alone)._tls() is None
