"""The Airflow service principal's Kerberos login: who it is and a ticket from its keytab.

The principal and keytab are Airflow's own ``[kerberos]`` settings (``AIRFLOW__KERBEROS__PRINCIPAL``,
``AIRFLOW__KERBEROS__KEYTAB``). This module sits low in the layers so that both the Airflow side (WebHDFS,
spark-submit: :mod:`falcon_airflow.instances.kerberos`, :mod:`falcon_airflow.provider.hooks.spark_kerberos`) and
``validate --check-environment`` (rule FA092) log in the same way; its failures are :class:`KerberosLoginError`,
which the storage and Spark layers carry on as their own errors with the same message.

The GSS-API bindings (``gssapi``: the ``kerberos`` extra) are imported only when a ticket is asked for.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from falcon_airflow.errors import FalconAirflowError

AUTHENTICATION = "hadoop.security.authentication"
PRINCIPAL_ENV = "AIRFLOW__KERBEROS__PRINCIPAL"
KEYTAB_ENV = "AIRFLOW__KERBEROS__KEYTAB"


class KerberosLoginError(FalconAirflowError):
    """The service principal cannot log in: not configured, an unreadable keytab, or no ticket from the KDC."""


@dataclass(frozen=True)
class KerberosLogin:
    principal: str
    keytab: str

    def describe(self) -> str:
        return f"principal {self.principal} (keytab {self.keytab})"


def service_login(environ: Mapping[str, str] | None = None) -> KerberosLogin:
    """The Airflow service principal and keytab of this worker; a clear error when either is not set."""
    env = os.environ if environ is None else environ
    principal, keytab = env.get(PRINCIPAL_ENV, "").strip(), env.get(KEYTAB_ENV, "").strip()
    if not principal or not keytab:
        raise KerberosLoginError(
            f"the Hadoop configuration says {AUTHENTICATION}=kerberos, so WebHDFS needs a Kerberos "
            f"ticket: set {PRINCIPAL_ENV} (the Airflow service principal, e.g. airflow@REALM) and "
            f"{KEYTAB_ENV} (its keytab) where Airflow's workers run "
            f"(now: principal {principal or 'unset'}, keytab {keytab or 'unset'})")
    return KerberosLogin(principal=principal, keytab=keytab)


def service_keytab_login(purpose: str = "log in to the Kerberized cluster") -> KerberosLogin:
    """The Airflow service principal and keytab, the keytab readable; else an error naming both."""
    login = service_login()
    if not os.access(login.keytab, os.R_OK):
        raise KerberosLoginError(f"cannot {purpose} as {login.describe()}: the keytab is missing or unreadable")
    return login


def _credentials_from_keytab(login: KerberosLogin, purpose: str, ccache: str) -> Any:
    """``gssapi.Credentials`` of ``login`` whose ticket is got from its keytab now into ``ccache``; a principal the
    keytab does not hold, or a KDC that cannot be reached, is an error naming the principal and the keytab."""
    try:
        import gssapi
        import gssapi.raw
    except ImportError:
        raise KerberosLoginError(f"{purpose} on a Kerberized cluster needs the GSS-API bindings to log in as "
                                 f"{login.describe()}: install falcon-airflow[kerberos] (gssapi; MIT Kerberos' "
                                 "libkrb5)") from None
    try:
        principal = gssapi.Name(login.principal, gssapi.NameType.kerberos_principal)
        credentials = gssapi.Credentials(name=principal, usage="initiate",
                                         store={"client_keytab": login.keytab, "ccache": ccache})
        credentials.lifetime  # noqa: B018  (asking for it gets the ticket from the keytab into the cache)
    except gssapi.raw.GSSError as problem:
        reason = " ".join(str(problem).split())
        raise KerberosLoginError(f"cannot obtain a Kerberos ticket for {purpose} as {login.describe()}: {reason} "
                                 f"(`klist -k {login.keytab}` lists the principals the keytab holds; KRB5_CONFIG "
                                 "names the krb5.conf that finds the KDC)") from None
    return credentials


@functools.lru_cache(maxsize=32)
def keytab_credentials(login: KerberosLogin, purpose: str) -> Any:
    """``gssapi.Credentials`` of ``login`` for this process's own calls to ``purpose`` (``HTTP@namenode``, ``the
    metastore thrift://...``), kept per login and purpose: the ticket is got from the keytab now (so a missing
    keytab, a principal it does not hold or a KDC that cannot be reached is an error here naming principal and
    keytab) into a cache in this process's memory, and MIT Kerberos gets a new one from the keytab when it expires.
    The machine's default cache is never read or written, and a ticket got with another keytab never stands in for
    this one."""
    if not os.access(login.keytab, os.R_OK):
        raise KerberosLoginError(f"cannot obtain a Kerberos ticket for {purpose} as {login.describe()}: the keytab is "
                                 "missing or unreadable")
    return _credentials_from_keytab(login, purpose, f"MEMORY:falcon-airflow-{uuid.uuid4().hex}")


def obtain_ticket_cache(login: KerberosLogin, purpose: str = "spark-submit") -> Path:
    """A new ticket cache file (in a folder of mode 0700) holding the service principal's ticket, got from its keytab
    now. A principal the keytab does not hold, or a KDC that cannot be reached, is an error naming the principal and
    the keytab (the file is then removed)."""
    # A folder only this user can enter (a ticket is as good as a password), the cache made by MIT Kerberos in it.
    cache = Path(tempfile.mkdtemp(prefix="falcon-krb5cc-")) / "ccache"
    try:
        _credentials_from_keytab(login, purpose, f"FILE:{cache}")
    except KerberosLoginError:
        remove_ticket_cache(cache)
        raise
    if not cache.is_file():
        remove_ticket_cache(cache)
        raise KerberosLoginError(f"cannot obtain a Kerberos ticket for {purpose} as {login.describe()}: no "
                                 "ticket was written")
    return cache


def remove_ticket_cache(cache: Path) -> None:
    cache.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # the folder was made for this cache alone; anything else in it stays
        cache.parent.rmdir()
