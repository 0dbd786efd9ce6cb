"""Kerberos on a cluster entity (FA090, FA091) and the Airflow service login (FA092, with ``--check-environment``).

Falcon's cluster entity carried the service principals of a Kerberized cluster as properties and Falcon refused a
secure cluster without them: the namenode's (``dfs.namenode.kerberos.principal``) for its storage, the metastore's
(``hive.metastore.kerberos.principal``) for its registry. Falcon knew the cluster was secure from its own Hadoop
login; here the entity says so: ``hadoop.security.authentication=kerberos``, or any of the Kerberos properties
Falcon's clusters carried (a principal, ``hive.metastore.sasl.enabled=true``).

FA092 checks, for a Kerberized cluster, what the Airflow side needs to log in: the service principal and keytab of
Airflow's ``[kerberos]`` settings (``AIRFLOW__KERBEROS__PRINCIPAL``, ``AIRFLOW__KERBEROS__KEYTAB``), a keytab that
can be read, and a ticket the KDC gives for them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from falcon_airflow.entities import Cluster, EntityType, InterfaceType
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule, warning

AUTHENTICATION = "hadoop.security.authentication"
NAMENODE_PRINCIPAL = "dfs.namenode.kerberos.principal"
METASTORE_PRINCIPAL = "hive.metastore.kerberos.principal"
METASTORE_SASL = "hive.metastore.sasl.enabled"
RESOURCE_MANAGER_PRINCIPAL = "yarn.resourcemanager.principal"
_PRINCIPALS = (NAMENODE_PRINCIPAL, METASTORE_PRINCIPAL, RESOURCE_MANAGER_PRINCIPAL)
# service/host@REALM, service@REALM or a short name; _HOST stands for the server's host name
_PRINCIPAL = re.compile(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)?(@[A-Za-z0-9._-]+)?")


def _line(cluster: Cluster, name: str) -> int | None:
    found = next((item for item in cluster.properties if item.name.strip() == name), None)
    return found.line if found is not None else None


def kerberos_reasons(cluster: Cluster) -> list[str]:
    """Why the cluster entity is Kerberized (empty: it is not): the properties that say so."""
    settings = {key.strip(): value.strip() for key, value in cluster.property_map.items()}
    reasons = [f"{AUTHENTICATION}=kerberos"] if settings.get(AUTHENTICATION, "").lower() == "kerberos" else []
    reasons += [name for name in _PRINCIPALS if settings.get(name)]
    if settings.get(METASTORE_SASL, "").lower() == "true":
        reasons.append(f"{METASTORE_SASL}=true")
    return reasons


@rule("FA090", EntityType.CLUSTER, "a Kerberized cluster names its namenode's principal, and every principal is one")
def namenode_principal(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    reasons = kerberos_reasons(cluster)
    if not reasons:
        return
    settings = {key.strip(): value.strip() for key, value in cluster.property_map.items()}
    if not settings.get(NAMENODE_PRINCIPAL):
        yield error(f"cluster '{cluster.name}' is Kerberized ({', '.join(reasons)}) but has no property "
                    f"{NAMENODE_PRINCIPAL} (the namenodes' service principal, e.g. nn/_HOST@REALM)",
                    None)
    for name in _PRINCIPALS:
        value = settings.get(name)
        if value and not _PRINCIPAL.fullmatch(value):
            yield error(f"property {name} of cluster '{cluster.name}' is not a Kerberos principal "
                        f"(service/host@REALM): {value!r}", _line(cluster, name))


@rule("FA091", EntityType.CLUSTER, "a Kerberized cluster's metastore: SASL and its principal go together")
def metastore_principal(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    reasons = kerberos_reasons(cluster)
    if not reasons:
        return
    settings = {key.strip(): value.strip() for key, value in cluster.property_map.items()}
    principal, sasl = settings.get(METASTORE_PRINCIPAL), settings.get(METASTORE_SASL, "").lower()
    registry = cluster.interface(InterfaceType.REGISTRY)
    if sasl == "true" and not principal:
        yield error(f"cluster '{cluster.name}' says {METASTORE_SASL}=true but has no property {METASTORE_PRINCIPAL} "
                    "(the metastore's service principal, e.g. hive/_HOST@REALM)", _line(cluster, METASTORE_SASL))
    elif registry is not None and not principal:
        yield error(f"cluster '{cluster.name}' is Kerberized ({', '.join(reasons)}) and has a registry interface, "
                    f"but no property {METASTORE_PRINCIPAL} (the metastore's service principal, e.g. "
                    "hive/_HOST@REALM)", registry.line)
    if principal and sasl != "true":
        yield warning(f"cluster '{cluster.name}' names {METASTORE_PRINCIPAL} but not {METASTORE_SASL}=true: a "
                      "Kerberized metastore takes SASL connections only", _line(cluster, METASTORE_PRINCIPAL))


@rule("FA092", EntityType.CLUSTER, "the Airflow service principal's keytab gives a Kerberos ticket", environment=True)
def service_login_works(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    reasons = kerberos_reasons(cluster)
    if not reasons:
        return
    from falcon_airflow.kerberos_login import (
        KerberosLoginError,
        obtain_ticket_cache,
        remove_ticket_cache,
        service_keytab_login,
    )

    try:
        login = service_keytab_login()
        remove_ticket_cache(obtain_ticket_cache(login))
    except KerberosLoginError as problem:
        yield error(f"cluster '{cluster.name}' is Kerberized ({', '.join(reasons)}), and this machine cannot log "
                    f"in to it: {problem.message}", None)
