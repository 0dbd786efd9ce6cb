"""FA011: an imported or exported feed's datasource can be used here (a driver falcon-airflow ships, a JDBC URL
that driver takes, the interface the direction needs). Falcon checked the connection itself when it could (D3,
an environment check); without this rule an unusable datasource would compile to no DAG and the data would stop
flowing unnoticed."""

from __future__ import annotations

from collections.abc import Iterator

from falcon_airflow.core.databases.drivers import driver_problem
from falcon_airflow.entities import DatasourceInterfaceType, EntityType, Feed
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule


@rule("FA011", EntityType.FEED, "an import or export uses a datasource this deployment can reach")
def usable_datasource(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        sides = []
        if cluster.import_policy is not None:
            sides.append(("import", cluster.import_policy.source, DatasourceInterfaceType.READONLY))
        if cluster.export_policy is not None:
            sides.append(("export", cluster.export_policy.target, DatasourceInterfaceType.WRITE))
        for what, reference, kind in sides:
            datasource = context.workspace.datasources.get(reference.name)
            if datasource is None:
                continue  # F10 / F13 report it
            where = f"{what} of feed '{feed.name}' on cluster '{cluster.name}'"
            interface = datasource.interface(kind)
            if interface is None:
                yield error(f"{where} needs the {kind.value} interface of datasource '{datasource.name}', which "
                            "declares none", reference.line)
                continue
            driver = interface.driver or datasource.driver
            problem = driver_problem(driver.clazz, datasource.type.value, interface.endpoint)
            if problem is not None:
                yield error(f"{where} cannot use datasource '{datasource.name}' ({datasource.source.file}:"
                            f"{interface.line or datasource.source.line}): {problem}", reference.line)
