"""Feed rules (Falcon's F-rules that can be judged from the files, plus the project's FA004 and FA005)."""

from __future__ import annotations

from collections.abc import Iterator

from falcon_airflow.core.partitions import evaluate_cluster_expression, normalize_partition
from falcon_airflow.entities import (
    AGE_BASED_DELETE_LIMIT,
    DEFAULT_LIFECYCLE_POLICY,
    EntityType,
    ExtractType,
    Feed,
    FeedCluster,
    InterfaceType,
    LocationType,
    MergePolicy,
    NotificationLevel,
    StorageKind,
)
from falcon_airflow.errors import CatalogUriError, FrequencyError
from falcon_airflow.timekeeping import Frequency, TimeUnit, format_falcon_date
from falcon_airflow.timekeeping.folders import folder_unit, unit_holds_several
from falcon_airflow.validation.coverage import UNUSED_RULE
from falcon_airflow.validation.helpers import (
    PATH_VARIABLE,
    date_pattern,
    nonempty_parts,
    property_findings,
)
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule, warning

_EXPORT_ARGUMENTS = ("--num-mappers", "--update-key", "--input-null-string", "--input-null-non-string")
_KNOWN_LIFECYCLE_POLICIES = (DEFAULT_LIFECYCLE_POLICY,)


def _where(feed: Feed, cluster: FeedCluster) -> str:
    return f"feed '{feed.name}' on cluster '{cluster.name}'"


# -- lifecycle (F1-F3) ----------------------------------------------------------------------------------------------


@rule("F1", EntityType.FEED, "a feed cluster with a lifecycle has a retention stage")
def lifecycle_has_retention_stage(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        if feed.lifecycle_enabled(cluster) and feed.retention_stage_for(cluster) is None:
            lifecycle = cluster.lifecycle or feed.lifecycle
            line = lifecycle.line if lifecycle else None
            yield error(f"{_where(feed, cluster)} has a lifecycle without a retention-stage; retention is a "
                        "mandatory stage", line)


@rule("F2", EntityType.FEED, "lifecycle retention runs no more often than the feed's frequency")
def retention_stage_frequency(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        stage = feed.retention_stage_for(cluster)
        frequency = feed.lifecycle_retention_frequency(cluster)
        if stage is not None and frequency is not None and frequency.millis < feed.frequency.millis:
            yield error(f"retention of {_where(feed, cluster)} runs every {frequency}, more often than the data "
                        f"arrives ({feed.frequency}); retention can not be more frequent than data availability",
                        stage.line)


@rule("F3", EntityType.FEED, "lifecycle policies are known and their settings are consistent")
def lifecycle_policies(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        stage = feed.retention_stage_for(cluster)
        if stage is None:
            continue
        policy = stage.effective_policy
        if policy not in _KNOWN_LIFECYCLE_POLICIES:
            yield error(f"lifecycle policy '{policy}' of {_where(feed, cluster)} is unknown; known policies: "
                        f"{', '.join(_KNOWN_LIFECYCLE_POLICIES)}", stage.line)
            continue
        limit_text = next((p.value for p in stage.properties if p.name == AGE_BASED_DELETE_LIMIT), None)
        if limit_text is None:
            yield error(f"property {AGE_BASED_DELETE_LIMIT} is required by the {policy} policy of "
                        f"{_where(feed, cluster)}", stage.line)
            continue
        try:
            limit = Frequency.parse(limit_text)
        except FrequencyError:
            yield error(f"property {AGE_BASED_DELETE_LIMIT} of {_where(feed, cluster)} is '{limit_text}'; it "
                        "must be a frequency such as hours(2)", stage.line)
            continue
        sla = feed.sla_for(cluster)
        if sla is not None and sla.sla_high.millis > limit.millis:
            yield error(f"slaHigh {sla.sla_high} of {_where(feed, cluster)} is longer than its lifecycle "
                        f"retention limit {limit}", stage.line)
        if feed.late_arrival is not None and feed.late_arrival.cut_off.millis > limit.millis:
            yield error(f"lifecycle retention limit {limit} of {_where(feed, cluster)} is shorter than the "
                        f"late-arrival cut-off {feed.late_arrival.cut_off}", stage.line)
        frequency = feed.lifecycle_retention_frequency(cluster)
        if frequency is not None and frequency.unit is TimeUnit.MINUTES and frequency.count < 60:
            yield error(f"lifecycle retention of {_where(feed, cluster)} runs every {frequency}; it can not be "
                        "more frequent than hours(1)", stage.line)


# -- references and validity (F5-F9) --------------------------------------------------------------------------------


@rule("F5", EntityType.FEED, "every cluster the feed names is defined")
def clusters_defined(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        if cluster.name not in context.workspace.clusters:
            yield error(f"feed '{feed.name}' refers to cluster '{cluster.name}', which is not defined in the "
                        "workspace", cluster.line)


@rule("F6", EntityType.FEED, "a feed does not name a cluster version that does not exist")
def cluster_versions(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        defined = context.workspace.clusters.get(cluster.name)
        if defined is not None and cluster.version > defined.version:
            yield error(f"feed '{feed.name}' asks for version {cluster.version} of cluster '{cluster.name}', "
                        f"which is at version {defined.version}", cluster.line)


@rule("F7", EntityType.FEED, "validity start is not after validity end")
def validity_order(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        validity = cluster.validity
        if validity.start > validity.end:
            yield error(f"validity of {_where(feed, cluster)} starts at {format_falcon_date(validity.start)}, "
                        f"after it ends at {format_falcon_date(validity.end)}", validity.line)


@rule("F8", EntityType.FEED, "a cluster holding a table feed has a registry interface")
def table_needs_registry(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        defined = context.workspace.clusters.get(cluster.name)
        if feed.storage_for(cluster) is StorageKind.TABLE and defined is not None \
                and defined.interface(InterfaceType.REGISTRY) is None:
            yield error(f"feed '{feed.name}' is stored in a catalog table, so cluster '{cluster.name}' needs a "
                        "registry interface (the metastore)", cluster.line)


@rule("F9", EntityType.FEED, "retention limit is not shorter than the late-arrival cut-off")
def retention_covers_cut_off(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    if feed.late_arrival is None:
        return
    cut_off = feed.late_arrival.cut_off
    for cluster in feed.clusters:
        limit = cluster.retention.limit
        if limit.millis < cut_off.millis:
            yield error(f"retention limit {limit} of {_where(feed, cluster)} is shorter than the late-arrival "
                        f"cut-off {cut_off}: late data would arrive for instances already deleted",
                        cluster.retention.line)


# -- import and export (F10-F14, F20) -------------------------------------------------------------------------------


@rule("F10", EntityType.FEED, "an import reads from a defined datasource with a full snapshot extract")
def import_source(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        policy = cluster.import_policy
        if policy is None:
            continue
        source = policy.source
        if source.name not in context.workspace.datasources:
            yield error(f"import of {_where(feed, cluster)} refers to datasource '{source.name}', which is not "
                        "defined in the workspace", source.line)
        extract = source.extract
        if extract is None:
            given = " (it has a <load>, which only an export's target takes)" if source.load is not None else ""
            yield error(f"import source of {_where(feed, cluster)} must declare an <extract>{given}", source.line)
        elif extract.type is ExtractType.INCREMENTAL:
            yield error(f"import of {_where(feed, cluster)} uses the incremental extract method, which is not "
                        "supported; use type=\"full\" with mergepolicy snapshot", extract.line)
        elif extract.merge_policy is not MergePolicy.SNAPSHOT or extract.delta_column is not None:
            found = [f"deltacolumn '{extract.delta_column}'"] if extract.delta_column is not None else []
            if extract.merge_policy is not MergePolicy.SNAPSHOT:
                found.append(f"mergepolicy {extract.merge_policy.value}")
            yield error(f"import of {_where(feed, cluster)} uses the full extract method, which takes no "
                        f"deltacolumn and only the snapshot mergepolicy (it has {' and '.join(found)})",
                        extract.line)


@rule("F11", EntityType.FEED, "an import with more than one mapper names a split-by column")
def import_split_by(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        policy = cluster.import_policy
        if policy is None:
            continue
        arguments = {argument.name: argument for argument in policy.arguments}
        mappers = arguments.get("--num-mappers")
        if mappers is None:
            continue
        try:
            count = int(mappers.value.strip())
        except ValueError:
            yield error(f"--num-mappers of the import of {_where(feed, cluster)} is '{mappers.value}', not a "
                        "number", mappers.line)
            continue
        if count > 1 and "--split-by" not in arguments:
            yield error(f"import of {_where(feed, cluster)} runs {count} mappers, so it needs a --split-by "
                        "column", mappers.line)


@rule("F12", EntityType.FEED, "an import does not exclude fields")
def import_fields(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        policy = cluster.import_policy
        if policy is not None and policy.source.fields is not None and policy.source.fields.mode == "excludes":
            yield error(f"import of {_where(feed, cluster)} excludes fields; only <includes> is supported",
                        policy.source.fields.line)


@rule("F13", EntityType.FEED, "an export writes to a defined datasource with supported arguments")
def export_target(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        policy = cluster.export_policy
        if policy is None:
            continue
        if policy.target.name not in context.workspace.datasources:
            yield error(f"export of {_where(feed, cluster)} refers to datasource '{policy.target.name}', which "
                        "is not defined in the workspace", policy.target.line)
        for argument in policy.arguments:
            if argument.name not in _EXPORT_ARGUMENTS:
                yield error(f"export argument '{argument.name}' of {_where(feed, cluster)} is not supported; "
                            f"allowed: {', '.join(_EXPORT_ARGUMENTS)}", argument.line)


@rule("F14", EntityType.FEED, "an export does not select fields")
def export_fields(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        policy = cluster.export_policy
        if policy is not None and policy.target.fields is not None:
            yield error(f"export of {_where(feed, cluster)} declares <fields>; exports take none",
                        policy.target.fields.line)


@rule("F20", EntityType.FEED, "an imported or exported file feed has a dated data path")
def import_export_needs_dated_path(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        if cluster.import_policy is None and cluster.export_policy is None:
            continue
        if feed.storage_for(cluster) is not StorageKind.FILESYSTEM:
            continue
        data = feed.location_for(cluster, LocationType.DATA)
        if data is not None and not PATH_VARIABLE.search(data.path):
            yield error(f"data path '{data.path}' of {_where(feed, cluster)} has no time variable; a feed with "
                        "import or export needs one of ${YEAR}, ${MONTH}, ${DAY}, ${HOUR}, ${MINUTE} in it",
                        data.line)


# -- storage (F15-F17, F19, FA004) ----------------------------------------------------------------------------------


@rule("F15", EntityType.FEED, "a table feed has at most one source cluster")
def table_single_source(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    if feed.default_storage is StorageKind.TABLE and len(feed.sources) > 1:
        yield error(f"feed '{feed.name}' is stored in a catalog table and has {len(feed.sources)} source "
                    "clusters; table feeds support one source", feed.sources[1].line)


@rule("F16", EntityType.FEED, "every cluster stores the feed the same way (files or table)")
def uniform_storage(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    # An empty <locations/> is no storage either (the XSD forces one of the two elements, not any content).
    if not feed.locations and feed.table is None and \
            not any(cluster.locations or cluster.table is not None for cluster in feed.clusters):
        yield error(f"feed '{feed.name}' defines neither locations nor a table", feed.source.line)
        return
    for cluster in feed.clusters:
        kind = feed.storage_for(cluster)
        if kind is not feed.default_storage:
            yield error(f"cluster '{cluster.name}' stores feed '{feed.name}' as {kind.value} while the feed "
                        f"is stored as {feed.default_storage.value}; the storage type must be uniform",
                        cluster.line)


@rule("F17", EntityType.FEED, "a table feed declares no feed partitions")
def table_without_partitions(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    if feed.default_storage is StorageKind.TABLE and feed.partitions:
        yield error(f"feed '{feed.name}' is stored in a catalog table, so its partitions belong in the table URI, "
                    "not in <partitions>", feed.partitions[0].line)


@rule("F19", EntityType.FEED, "a file feed has a data location on every cluster")
def data_location(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        if feed.storage_for(cluster) is StorageKind.FILESYSTEM and \
                feed.location_for(cluster, LocationType.DATA) is None:
            yield error(f"{_where(feed, cluster)} is stored in files but has no location of type data",
                        cluster.line)


@rule("FA004", EntityType.FEED, "catalog table URIs follow catalog:<db>:<table>#<key>=<value>;...")
def table_uris(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    tables = [feed.table] + [cluster.table for cluster in feed.clusters]
    for table in tables:
        if table is None:
            continue
        try:
            table.parsed()
        except CatalogUriError as problem:
            yield error(problem.message, table.line)


# -- replication topology (F21-F25, FA005) --------------------------------------------------------------------------


@rule("F21", EntityType.FEED, "a cluster appears once in a feed")
def unique_clusters(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    seen: set[str] = set()
    for cluster in feed.clusters:
        if cluster.name in seen:
            yield error(f"cluster '{cluster.name}' is listed more than once in feed '{feed.name}'", cluster.line)
        seen.add(cluster.name)


@rule("F22", EntityType.FEED, "a feed with a target cluster has a source cluster")
def target_needs_source(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    if feed.targets and not feed.sources:
        yield error(f"feed '{feed.name}' has a target cluster but no source cluster to replicate from",
                    feed.targets[0].line)


@rule("F23", EntityType.FEED, "with several sources, each source has a partition expression using the cluster")
def several_sources_partitioned(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    if len(feed.sources) <= 1 or not feed.targets:
        return
    for cluster in feed.sources:
        expression = normalize_partition(cluster.partition)
        if not nonempty_parts(expression):
            yield error(f"source cluster '{cluster.name}' of feed '{feed.name}' needs a partition expression, "
                        "because the feed has more than one source", cluster.line)
        else:
            yield from _cluster_expression_findings(context, feed, cluster)


@rule("F24", EntityType.FEED, "a partition expression has no more parts than the feed has partitions")
def partition_depth(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for target in feed.targets:
        for source in feed.sources:
            expression = normalize_partition(source.partition, target.partition)
            parts = len(nonempty_parts(expression))
            if parts > len(feed.partitions):
                yield error(f"partition '{expression}' for source '{source.name}' and target '{target.name}' has "
                            f"{parts} parts but feed '{feed.name}' defines {len(feed.partitions)} partitions",
                            target.line)


@rule("F25", EntityType.FEED, "with several targets, a target's partition expression uses the cluster")
def several_targets_partitioned(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    if len(feed.targets) <= 1 or not feed.sources:
        return
    for cluster in feed.targets:
        yield from _cluster_expression_findings(context, feed, cluster)


def _cluster_expression_findings(context: RuleContext, feed: Feed, cluster: FeedCluster) -> Iterator[Finding]:
    if cluster.partition is None:
        return
    defined = context.workspace.clusters.get(cluster.name)
    if defined is None:
        return  # F5 reports the missing cluster
    expression = normalize_partition(cluster.partition)
    if evaluate_cluster_expression(expression, defined.expression_variables()) == expression:
        yield error(f"partition '{cluster.partition}' of cluster '{cluster.name}' in feed '{feed.name}' must use "
                    "at least one cluster expression such as ${cluster.colo}", cluster.line)


@rule("FA005", EntityType.FEED, "replication source and target validity windows overlap")
def replication_windows_overlap(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for target in feed.targets:
        for source in feed.sources:
            start = source.validity.start
            if source.delay is not None:
                start = source.delay.step(start)
            latest_start = max(start, target.validity.start)
            earliest_end = min(source.validity.end, target.validity.end)
            if latest_start >= earliest_end:
                yield error(f"source cluster '{source.name}' and target cluster '{target.name}' of feed "
                            f"'{feed.name}' have no validity time in common, so nothing would be replicated",
                            target.validity.line)


# -- paths and groups (F26, F27) ------------------------------------------------------------------------------------


def _data_template(feed: Feed, cluster: FeedCluster | None) -> str | None:
    if cluster is None:
        if feed.table is not None:
            return feed.table.uri
        location = feed.default_location(LocationType.DATA)
        return location.path if location is not None else None
    if feed.storage_for(cluster) is StorageKind.TABLE:
        table = feed.table_for(cluster)
        return table.uri if table is not None else None
    location = feed.location_for(cluster, LocationType.DATA)
    return location.path if location is not None else None


@rule("F26", EntityType.FEED, "each cluster's data path uses the same time variables as the feed's")
def cluster_path_patterns(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    default = _data_template(feed, None)
    if default is None:
        return
    for cluster in feed.clusters:
        own = _data_template(feed, cluster)
        if own is not None and date_pattern(own) != date_pattern(default):
            yield error(f"data path '{own}' of {_where(feed, cluster)} uses time variables "
                        f"{date_pattern(own)}, but the feed's path '{default}' uses {date_pattern(default)}",
                        cluster.line)


@rule("F27", EntityType.FEED, "feeds of one group share frequency and path time variables")
def group_consistency(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    groups = context.workspace.feed_groups
    pattern = date_pattern(_data_template(feed, None) or "")
    for group in dict.fromkeys(feed.groups):
        first = groups.get(group, [feed])[0]
        if first is feed:
            continue
        first_pattern = date_pattern(_data_template(first, None) or "")
        if first.frequency != feed.frequency or first_pattern != pattern:
            yield error(f"feed '{feed.name}' ({feed.frequency}, path variables {pattern}) does not match group "
                        f"'{group}' as defined by feed '{first.name}' ({first.frequency}, path variables "
                        f"{first_pattern})", feed.source.line)


# -- SLA and properties (F28, F29) ----------------------------------------------------------------------------------


@rule("F28", EntityType.FEED, "slaLow <= slaHigh <= retention limit")
def sla_bounds(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    for cluster in feed.clusters:
        sla = feed.sla_for(cluster)
        if sla is None:
            continue
        if sla.sla_low.millis > sla.sla_high.millis:
            yield error(f"slaLow {sla.sla_low} of {_where(feed, cluster)} is longer than slaHigh {sla.sla_high}",
                        sla.line)
        if sla.sla_high.millis > cluster.retention.limit.millis:
            yield error(f"slaHigh {sla.sla_high} of {_where(feed, cluster)} is longer than the retention limit "
                        f"{cluster.retention.limit}: the instance would be deleted before it is late", sla.line)


@rule("F29", EntityType.FEED, "properties have names and values, each name once")
def feed_properties(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    yield from property_findings(feed.properties, f"feed '{feed.name}'")


# -- instances sharing a folder (FA055) ------------------------------------------------------------------------------

_UNIT_NAMES = {"YEAR": "year", "MONTH": "month", "DAY": "day", "HOUR": "hour"}
_VARIABLE_OF = {TimeUnit.MINUTES: "${MINUTE}", TimeUnit.HOURS: "${HOUR}", TimeUnit.DAYS: "${DAY}",
                TimeUnit.MONTHS: "${MONTH}"}


@rule("FA055", EntityType.FEED, "a location is as fine as the feed's frequency: one instance per folder (warning)")
def instances_share_a_folder(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    seen: set[tuple[int | None, str]] = set()
    for cluster in feed.clusters:
        # (what, template, line, whether the cluster declares it rather than the feed)
        candidates: list[tuple[str, str, int | None, bool]] = []
        if feed.storage_for(cluster) is StorageKind.TABLE:
            table = feed.table_for(cluster)
            try:
                dated = table.parsed().dated_template().text if table is not None else ""
            except CatalogUriError:
                continue  # FA004 says what is wrong with the URI
            if table is not None and dated:
                candidates.append((f"partition {dated.replace('/', ';')}", dated, table.line,
                                   cluster.table is not None))
        else:
            candidates += [(f"{item.type.value} location '{item.path}'", item.path, item.line,
                            bool(cluster.locations)) for item in feed.locations_for(cluster)]
        for what, template, line, own in candidates:
            unit = folder_unit(template)
            if unit is None or not unit_holds_several(unit, feed.frequency) or (line, template) in seen:
                continue
            seen.add((line, template))
            where = f" on cluster '{cluster.name}'" if own else ""
            yield warning(
                f"the {what} of feed '{feed.name}'{where} names one folder per {_UNIT_NAMES[unit]}, but the feed has "
                f"an instance every {feed.frequency}: several instances share the folder. A process writing one of "
                f"them does not clear the folder first (Falcon's prepare-delete would clear the others with it), and "
                f"retention keeps the folder until the last instance it holds is older than the retention limit; add "
                f"{_VARIABLE_OF[feed.frequency.unit]} to give each instance its own", line)


# -- elements accepted but not applied (FA080) ---------------------------------------------------------------------


@rule(UNUSED_RULE, EntityType.FEED, "an element falcon-airflow accepts but does not apply is named (warning)")
def feed_elements_not_applied(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    stages = [("the feed's retention-stage", feed.lifecycle.retention_stage if feed.lifecycle else None)]
    stages += [(f"the retention-stage on cluster '{cluster.name}'",
                cluster.lifecycle.retention_stage if cluster.lifecycle else None) for cluster in feed.clusters]
    for where, stage in stages:
        if stage is not None and stage.priority is not None:
            yield warning(f"<priority> of {where} is not applied: retention runs as a task of the feed's retention "
                          "DAG, which has no job priority (its <queue> is applied)", stage.line)
    if feed.notification is not None and feed.notification.level is NotificationLevel.ATTEMPT:
        yield warning("level=\"attempt\" of the <notification> is not applied: a feed's retention, replication, "
                      "import and export runs mail once per instance, when it ends; mails per attempt are for "
                      "processes", feed.notification.line)
    for cluster in feed.clusters:
        sides = [("import <source>", cluster.import_policy.source if cluster.import_policy else None),
                 ("export <target>", cluster.export_policy.target if cluster.export_policy else None)]
        for side, ref in sides:
            if ref is not None and ref.version is not None:
                yield warning(f"attribute 'version' of the {side} on cluster '{cluster.name}' is not applied: the "
                              f"transfer uses datasource '{ref.name}' as currently defined", ref.line)
        target = cluster.export_policy.target if cluster.export_policy else None
        if target is not None and target.extract is not None:
            yield warning(f"<extract> of the export <target> on cluster '{cluster.name}' is not applied: an export "
                          "writes with its <load> type (updateonly when it has none)", target.extract.line)
