"""Kerberos for the Airflow side's WebHDFS calls: SPNEGO with a ticket obtained from the service keytab.

A cluster is Kerberized when the Hadoop configuration (``$HADOOP_CONF_DIR``'s core-site.xml) says
``hadoop.security.authentication=kerberos``; its namenodes then refuse ``user.name=...`` (HTTP 401). The Airflow
workers authenticate as the Airflow service principal, named as Airflow's own ``[kerberos]`` section names it
(``AIRFLOW__KERBEROS__PRINCIPAL``, ``AIRFLOW__KERBEROS__KEYTAB``): MIT Kerberos gets the ticket from that keytab into
a credential cache in memory (and a fresh one when it expires), so neither ``kinit`` nor ``airflow kerberos`` is
needed for these calls. A keytab that is missing, unreadable or holds no key of the principal is an error naming
both, before any request.

The GSS-API bindings (``gssapi``, ``requests-gssapi``: the ``kerberos`` extra) are imported only for a Kerberized
cluster.
"""

from __future__ import annotations

import functools
from typing import Any

from falcon_airflow import kerberos_login
from falcon_airflow.instances.storage import StorageError
from falcon_airflow.kerberos_login import AUTHENTICATION, KEYTAB_ENV, PRINCIPAL_ENV, KerberosLogin, KerberosLoginError

__all__ = ["AUTHENTICATION", "KEYTAB_ENV", "PRINCIPAL_ENV", "KerberosLogin", "kerberized", "service_login",
           "spnego_auth"]

def kerberized(settings: dict[str, str]) -> bool:
    return settings.get(AUTHENTICATION, "simple").strip().lower() == "kerberos"


def service_login(environ: dict[str, str] | None = None) -> KerberosLogin:
    """The Airflow service principal and keytab of this worker; a clear error when either is not set."""
    try:
        return kerberos_login.service_login(environ)
    except KerberosLoginError as problem:
        raise StorageError(problem.message) from None


@functools.lru_cache(maxsize=32)
def spnego_auth(login: KerberosLogin, host: str) -> Any:
    """A requests authentication that answers WebHDFS's ``401 Negotiate`` with a ticket of ``login`` for the
    namenode's HTTP service at ``host`` (``HTTP@host``). Both tickets are obtained now, so a bad keytab, an unknown
    principal or a KDC that cannot be reached fails here, naming the principal and the keytab; the credentials are
    kept (per login and host) and renewed from the keytab by MIT Kerberos when they expire."""
    try:
        import gssapi
        import gssapi.raw
        from requests_gssapi import HTTPSPNEGOAuth
    except ImportError:
        raise StorageError(f"WebHDFS on a Kerberized cluster needs the GSS-API bindings: install falcon-airflow"
                           f"[kerberos] (gssapi, requests-gssapi; MIT Kerberos' libkrb5) to authenticate as "
                           f"{login.describe()}") from None
    try:
        credentials = kerberos_login.keytab_credentials(login, f"HTTP@{host}")
    except KerberosLoginError as problem:
        raise StorageError(problem.message) from None
    service = gssapi.Name(f"HTTP@{host}", gssapi.NameType.hostbased_service)
    try:
        gssapi.SecurityContext(name=service, creds=credentials, usage="initiate").step()
    except gssapi.raw.GSSError as problem:
        reason = " ".join(str(problem).split())
        raise StorageError(f"cannot obtain a Kerberos ticket for HTTP@{host} as {login.describe()}: {reason} "
                           f"(`klist -k {login.keytab}` lists the principals the keytab holds; KRB5_CONFIG names "
                           "the krb5.conf that finds the KDC)") from None
    return HTTPSPNEGOAuth(creds=credentials, target_name=service)
