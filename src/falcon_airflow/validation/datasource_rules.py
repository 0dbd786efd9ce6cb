"""Datasource rules (Falcon's D-rules that can be judged from the files)."""

from __future__ import annotations

from collections.abc import Iterator

from falcon_airflow.entities import Credential, CredentialType, Datasource, EntityType
from falcon_airflow.validation.helpers import property_findings
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule

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
