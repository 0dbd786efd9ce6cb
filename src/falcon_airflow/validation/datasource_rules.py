"""Datasource rules (Falcon's D-rules that can be judged from the files) and the deployment's limits on which
secrets a datasource may name (FA040-FA042, see :mod:`falcon_airflow.core.databases.credentials`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from falcon_airflow.core.databases.credentials import (
    ALIAS_RULE,
    ENDPOINT_RULE,
    FILE_RULE,
    CredentialPolicy,
    configured_policy,
)
from falcon_airflow.core.databases.drivers import DRIVERS
from falcon_airflow.core.secrets import redact_url, url_secrets
from falcon_airflow.entities import Credential, CredentialType, Datasource, Driver, EntityType
from falcon_airflow.validation.coverage import UNUSED_RULE
from falcon_airflow.validation.helpers import property_findings
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule, warning

_NEEDS = {
    CredentialType.PASSWORD_TEXT: "userName and passwordText",
    CredentialType.PASSWORD_FILE: "userName and passwordFile",
    CredentialType.PASSWORD_ALIAS: "userName and passwordAlias (alias, providerPath)",
}


def _credential_complete(credential: Credential) -> bool:
    """The secret element named by ``type`` is present (the XSD accepts any of the three with any type)."""
    if credential.type is CredentialType.PASSWORD_TEXT:
        return credential.password_text is not None
    if credential.type is CredentialType.PASSWORD_FILE:
        return credential.password_file is not None
    return credential.password_alias is not None


@rule("D2", EntityType.DATASOURCE, "each credential is complete for its type")
def credentials(context: RuleContext, datasource: Datasource) -> Iterator[Finding]:
    found = [("default credential", datasource.default_credential)]
    found += [(f"credential of the {item.type.value} interface", item.credential) for item in datasource.interfaces]
    for where, credential in found:
        if credential is not None and not _credential_complete(credential):
            yield error(f"{where} of datasource '{datasource.name}' has type '{credential.type.value}', which "
                        f"needs {_NEEDS[credential.type]}", credential.line)


@rule("FA007", EntityType.DATASOURCE, "properties have names and values, each name once")
def datasource_properties(context: RuleContext, datasource: Datasource) -> Iterator[Finding]:
    yield from property_findings(datasource.properties, f"datasource '{datasource.name}'")
    for interface in datasource.interfaces:
        yield from property_findings(interface.properties,
                                     f"the {interface.type.value} interface of datasource '{datasource.name}'")


def _credentials(datasource: Datasource) -> list[tuple[str, Credential]]:
    found = [("default credential", datasource.default_credential)]
    found += [(f"credential of the {item.type.value} interface", item.credential) for item in datasource.interfaces]
    return [(where, credential) for where, credential in found if credential is not None]


# The policy of the run being validated: reading it means reading airflow.cfg (about 10 ms for Airflow's own
# file), so it is read once per run (one RuleContext) and only when a datasource names a file or an alias.
_policy_of_run: list[tuple[RuleContext, CredentialPolicy]] = []


def _policy(context: RuleContext) -> CredentialPolicy:
    if not _policy_of_run or _policy_of_run[0][0] is not context:
        _policy_of_run[:] = [(context, configured_policy())]
    return _policy_of_run[0][1]


def _owner(datasource: Datasource) -> str | None:
    return ((datasource.acl.owner if datasource.acl else None) or "").strip() or None


@rule(ALIAS_RULE, EntityType.DATASOURCE, "a password-alias resolves only what the deployment allows "
      "([falcon] datasource_connections, datasource_credential_roots)")
def allowed_alias(context: RuleContext, datasource: Datasource) -> Iterator[Finding]:
    owner = _owner(datasource)
    for where, credential in _credentials(datasource):
        alias = credential.password_alias
        if credential.type is not CredentialType.PASSWORD_ALIAS or alias is None:
            continue
        policy = _policy(context)
        if policy.connection_allowed(alias.alias, owner):
            continue  # an Airflow connection it may use: whether it exists is known when the job runs
        problem = policy.provider_problem(alias.provider_path, owner)
        if problem is not None:
            yield error(f"password-alias '{alias.alias.strip()}' of the {where} of datasource '{datasource.name}' "
                        f"can resolve nothing this deployment allows: it is not an Airflow connection "
                        f"{policy.describe_connections()} allows (for owner '{owner or 'none'}'), and {problem}",
                        alias.line or credential.line)


@rule(FILE_RULE, EntityType.DATASOURCE, "a password-file lies under a folder the deployment allows "
      "([falcon] datasource_credential_roots)")
def allowed_password_file(context: RuleContext, datasource: Datasource) -> Iterator[Finding]:
    owner = _owner(datasource)
    for where, credential in _credentials(datasource):
        if credential.type is not CredentialType.PASSWORD_FILE or credential.password_file is None:
            continue
        policy = _policy(context)
        problem = policy.file_problem(credential.password_file, owner)
        if problem is not None:
            yield error(f"the {where} of datasource '{datasource.name}' may not be read: {problem}", credential.line)


@rule(ENDPOINT_RULE, EntityType.DATASOURCE, "an endpoint carries no password (it would be on the job's command "
      "line); the password goes in a <credential>")
def endpoint_without_password(context: RuleContext, datasource: Datasource) -> Iterator[Finding]:
    for interface in datasource.interfaces:
        secrets = url_secrets(interface.endpoint)
        if secrets:
            yield error(f"the {interface.type.value} endpoint of datasource '{datasource.name}' "
                        f"('{redact_url(interface.endpoint.strip())}') carries {', '.join(secrets)}: the URL reaches "
                        "the job's command line, the DAG and lineage, so give the password in a <credential>",
                        interface.line)


@rule(UNUSED_RULE, EntityType.DATASOURCE, "an element falcon-airflow accepts but does not apply is named (warning)")
def datasource_elements_not_applied(context: RuleContext, datasource: Datasource) -> Iterator[Finding]:
    drivers: list[tuple[str, Driver | None]] = [("<driver>", datasource.driver)]
    drivers += [(f"<driver> of the {item.type.value} interface", item.driver) for item in datasource.interfaces]
    for where, driver in drivers:
        known = DRIVERS.get(driver.clazz.strip()) if driver is not None else None
        if driver is None or known is None:
            continue  # an unknown driver class is FA011's, where a feed uses the datasource
        # the class is loaded from the artifact the deployment pins; a jar that names another build is not used
        runs = known.artifact.file_name if known.artifact is not None else "Spark's own jars"
        name = known.artifact.name if known.artifact is not None else "derby"
        for jar in driver.jars:
            if name not in PurePosixPath(jar.strip()).name.lower():
                yield warning(f"<jar> '{jar.strip()}' of its {where} is not applied: {known.clazz} is loaded from "
                              f"{runs}, the driver this deployment pins and ships (docs/import-export.md)",
                              driver.line)
    if datasource.properties:
        yield warning("<properties> are not applied: imports and exports connect with the endpoint's JDBC URL and "
                      "the credential only; put connection options in the URL", datasource.properties[0].line)
    for item in datasource.interfaces:
        if item.properties:
            yield warning(f"<properties> of the {item.type.value} interface are not applied: imports and exports "
                          "connect with the endpoint's JDBC URL and the credential only; put connection options in "
                          "the URL", item.properties[0].line)
