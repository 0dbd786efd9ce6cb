"""When the Airflow side's WebHDFS calls use Kerberos, and the errors that say what is missing."""

from __future__ import annotations

import pytest

from falcon_airflow.instances.kerberos import KerberosLogin, kerberized, service_login
from falcon_airflow.instances.storage import StorageError


def test_only_a_kerberos_hadoop_configuration_is_kerberized() -> None:
    assert kerberized({"hadoop.security.authentication": "kerberos"})
    assert kerberized({"hadoop.security.authentication": " Kerberos "})
    assert not kerberized({"hadoop.security.authentication": "simple"})
    assert not kerberized({})


def test_the_service_login_is_airflows_kerberos_principal_and_keytab() -> None:
    login = service_login({"AIRFLOW__KERBEROS__PRINCIPAL": "airflow@R", "AIRFLOW__KERBEROS__KEYTAB": "/k/a.keytab"})
    assert login == KerberosLogin(principal="airflow@R", keytab="/k/a.keytab")
    assert login.describe() == "principal airflow@R (keytab /k/a.keytab)"


@pytest.mark.parametrize("environ", [{}, {"AIRFLOW__KERBEROS__PRINCIPAL": "airflow@R"},
                                     {"AIRFLOW__KERBEROS__KEYTAB": "/k/a.keytab"}])
def test_a_missing_principal_or_keytab_says_which_settings_to_give(environ: dict[str, str]) -> None:
    with pytest.raises(StorageError) as refused:
        service_login(environ)
    message = str(refused.value)
    assert "hadoop.security.authentication=kerberos" in message
    assert "AIRFLOW__KERBEROS__PRINCIPAL" in message and "AIRFLOW__KERBEROS__KEYTAB" in message
    assert (environ.get("AIRFLOW__KERBEROS__PRINCIPAL") or "principal unset") in message
