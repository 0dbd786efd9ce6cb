"""Falcon's mirroring extensions: what a job of each declares, read from its properties file.

An extension job (``falcon-airflow extension -submit -extensionName hdfs-mirroring -file job.properties``) is a
Java properties file with Falcon's property names (``jobName``, ``sourceCluster``, ``sourceDir`` ...). This module
knows the three extensions' properties, reads a file into an :class:`ExtensionJob` (frozen, each value with the
line it came from) and reports what is wrong with it as issues (rule ``EXT1`` the file or a property name, ``EXT2``
a required property missing, ``EXT3`` a value). Whether the clusters it names exist is the workspace's question
(:mod:`falcon_airflow.validation.extensions`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from falcon_airflow.entities.base import ACL
from falcon_airflow.issues import Issue, Level
from falcon_airflow.properties import read_properties
from falcon_airflow.timekeeping import Frequency, parse_falcon_date
from falcon_airflow.timekeeping.zones import resolve_zone

ENTITY_TYPE = "extension"
"""How issues, the store's records and the DAG specs name an extension job's kind."""

JOB_NAME = re.compile(r"^[a-zA-Z][\w-]*$")
"""An entity name as Falcon allows it (the job becomes DAG ``falcon.extension.<jobName>``)."""

RETRY_POLICIES = ("periodic", "exp-backoff", "final")


class ExtensionName(StrEnum):
    HDFS_MIRRORING = "hdfs-mirroring"
    HDFS_SNAPSHOT_MIRRORING = "hdfs-snapshot-mirroring"
    HIVE_MIRRORING = "hive-mirroring"


@dataclass(frozen=True)
class PropertyDefinition:
    name: str
    required: bool
    description: str
    example: str


def _p(name: str, required: bool, description: str, example: str) -> PropertyDefinition:
    return PropertyDefinition(name, required, description, example)


_JOB = (
    _p("jobName", True, "the job's name, unique among extension jobs (its DAG is falcon.extension.<jobName>)",
       "sales-monthly-dr"),
    _p("jobClusterName", True, "the cluster whose Spark runs the job", "backupCluster"),
    _p("jobValidityStart", True, "first run, yyyy-MM-ddTHH:mmZ", "2026-03-01T00:00Z"),
    _p("jobValidityEnd", True, "end of the runs (exclusive), yyyy-MM-ddTHH:mmZ", "2027-03-01T00:00Z"),
    _p("jobFrequency", True, "how often it runs: minutes(n), hours(n), days(n) or months(n)", "hours(1)"),
    _p("jobTimezone", False, "the time zone the frequency counts in (default UTC)", "UTC"),
    _p("jobTags", False, "key=value pairs, comma separated", "owner=dr-team@example.com"),
    _p("jobRetryPolicy", False, "periodic, exp-backoff or final (default periodic)", "periodic"),
    _p("jobRetryDelay", False, "wait before a retry (default minutes(30))", "minutes(30)"),
    _p("jobRetryAttempts", False, "retries after a failure (default 3)", "3"),
    _p("jobRetryOnTimeout", False, "whether a timeout is retried too", "false"),
    _p("jobAclOwner", False, "the job's owner (the DAG's owner)", "ambari-qa"),
    _p("jobAclGroup", False, "the owner's group", "users"),
    _p("jobAclPermission", False, "the permission, as in an entity ACL", "0x755"),
    _p("jobNotificationType", False, "email: mail the receivers at the end of every run", "email"),
    _p("jobNotificationReceivers", False, "mail addresses, comma separated", "dr-team@example.com"),
)
_COPY = (
    _p("distcpMaxMaps", False, "copy tasks in parallel (default 1)", "4"),
    _p("distcpMapBandwidth", False, "MB/s per copy task (default: unlimited)", "100"),
)

DEFINITIONS: dict[ExtensionName, tuple[str, tuple[PropertyDefinition, ...]]] = {
    ExtensionName.HDFS_MIRRORING: (
        "Mirrors folders of one cluster's file system onto another cluster, verified and published whole per run.",
        (*_JOB,
         _p("sourceCluster", True, "the cluster the folders are read from (its readonly endpoint)", "primaryCluster"),
         _p("sourceDir", True, "the folder(s) to mirror, comma separated, absolute paths on the source cluster",
            "/data/sales/monthly"),
         _p("targetCluster", True, "the cluster the mirror is written to (its write endpoint)", "backupCluster"),
         _p("targetDir", True, "the mirror's folder on the target cluster", "/backup/sales/monthly"),
         *_COPY)),
    ExtensionName.HDFS_SNAPSHOT_MIRRORING: (
        "Mirrors a snapshottable HDFS folder: snapshots the source, copies what changed since the last replicated "
        "snapshot, snapshots the target, and keeps the snapshots of both sides within their retention.",
        (*_JOB,
         _p("sourceCluster", True, "the cluster of the source folder", "primaryCluster"),
         _p("sourceSnapshotDir", True, "the snapshottable source folder", "/data/sales"),
         _p("sourceSnapshotRetentionPolicy", False, "what happens to old source snapshots: delete (the only one)",
            "delete"),
         _p("sourceSnapshotRetentionAgeLimit", True, "source snapshots older than this may be deleted", "days(7)"),
         _p("sourceSnapshotRetentionNumber", True, "the newest this many source snapshots are always kept", "10"),
         _p("targetCluster", True, "the cluster of the mirror", "backupCluster"),
         _p("targetSnapshotDir", True, "the snapshottable mirror folder", "/backup/sales"),
         _p("targetSnapshotRetentionPolicy", False, "what happens to old target snapshots: delete (the only one)",
            "delete"),
         _p("targetSnapshotRetentionAgeLimit", True, "target snapshots older than this may be deleted", "days(7)"),
         _p("targetSnapshotRetentionNumber", True, "the newest this many target snapshots are always kept", "10"),
         *_COPY,
         _p("tdeEncryptionEnabled", False, "the folders are in HDFS encryption zones (files are then compared by "
                                           "length, not by HDFS checksum)", "false"))),
    ExtensionName.HIVE_MIRRORING: (
        "Mirrors Hive databases or tables (definitions, partitions and data) from the source cluster's metastore "
        "into the target cluster's metastore and file system.",
        (*_JOB,
         _p("sourceCluster", True, "the cluster whose registry (metastore) and storage are read", "primaryCluster"),
         _p("sourceHiveServer2Uri", False, "accepted for Falcon's files; the metastore is the cluster's registry",
            "hive2://primary:10000"),
         _p("sourceDatabases", True, "the database(s) to mirror, comma separated", "sales"),
         _p("sourceTables", False, "only these tables (comma separated; one database then); default: every table",
            "monthly_sales"),
         _p("sourceStagingPath", False, "accepted for Falcon's files; staging is beside each target folder",
            "/apps/hive/dr"),
         _p("targetCluster", True, "the cluster whose metastore and storage receive the mirror", "backupCluster"),
         _p("targetHiveServer2Uri", False, "accepted for Falcon's files; the metastore is the cluster's registry",
            "hive2://backup:10000"),
         _p("targetStagingPath", False, "accepted for Falcon's files; staging is beside each target folder",
            "/apps/hive/dr"),
         _p("maxEvents", False, "accepted for Falcon's files (each run mirrors the current state, not events)",
            "-1"),
         _p("replicationMaxMaps", False, "accepted for Falcon's files: tables are mirrored one after another, "
                                         "each with distcpMaxMaps copy tasks", "1"),
         *_COPY)),
}


def definition(name: ExtensionName) -> tuple[str, tuple[PropertyDefinition, ...]]:
    return DEFINITIONS[name]


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SnapshotRetention(Model):
    policy: str = "delete"
    age_limit: str
    number: int


class ExtensionJob(Model):
    """One extension job as its properties file declares it; ``properties`` keeps every value as written."""

    extension: ExtensionName
    name: str
    file: str
    line: int | None = None
    properties: dict[str, str]
    lines: dict[str, int]
    cluster: str
    start: str
    end: str
    frequency: str
    timezone: str = "UTC"
    tags: tuple[tuple[str, str], ...] = ()
    retry_policy: str = "periodic"
    retry_delay: str = "minutes(30)"
    retry_attempts: int = 3
    retry_on_timeout: bool = False
    owner: str | None = None
    group: str | None = None
    emails: tuple[str, ...] = ()
    source_cluster: str
    target_cluster: str
    max_maps: int = 1
    map_bandwidth_mb: int | None = None
    source_dirs: tuple[str, ...] = ()
    """hdfs-mirroring: ``sourceDir``; snapshot mirroring: ``sourceSnapshotDir`` alone."""
    target_dir: str | None = None
    source_retention: SnapshotRetention | None = None
    target_retention: SnapshotRetention | None = None
    encrypted: bool = False
    databases: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()

    @property
    def tag_pairs(self) -> tuple[tuple[str, str], ...]:
        return (("_falcon_extension_name", self.extension.value), ("_falcon_extension_job", self.name), *self.tags)

    def line_of(self, key: str) -> int | None:
        return self.lines.get(key, self.line)

    @property
    def acl(self) -> ACL | None:
        """Who may read and change the job, as an entity's ACL says it (``jobAclPermission`` defaults to Falcon's
        ``*``); ``None`` when the job names neither owner nor group: then it is for superusers only."""
        if not self.owner and not self.group:
            return None
        permission = (self.properties.get("jobAclPermission") or "").strip() or "*"
        return ACL(owner=self.owner, group=self.group, permission=permission)


# -- reading a job ---------------------------------------------------------------------------------------------------

class _Reader:
    """Collects the issues of one file while its values are converted."""

    def __init__(self, extension: ExtensionName, file: str, values: dict[str, str], lines: dict[str, int]) -> None:
        self.extension = extension
        self.file = file
        self.values = values
        self.lines = lines
        self.issues: list[Issue] = []
        self.name = values.get("jobName")

    def issue(self, rule: str, message: str, key: str | None = None) -> None:
        line = self.lines.get(key) if key else None
        self.issues.append(Issue(Level.ERROR, rule, message, self.file, line, self.name, ENTITY_TYPE))

    def text(self, key: str) -> str | None:
        value = self.values.get(key)
        return value.strip() if value is not None and value.strip() else None

    def integer(self, key: str, default: int, *, minimum: int) -> int:
        text = self.text(key)
        if text is None:
            return default
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            self.issue("EXT3", f"{key} is '{text}': it must be a whole number of at least {minimum}", key)
            return default
        return value

    def boolean(self, key: str) -> bool:
        text = self.text(key)
        if text is None:
            return False
        if text.lower() not in ("true", "false"):
            self.issue("EXT3", f"{key} is '{text}': it must be true or false", key)
        return text.lower() == "true"

    def frequency(self, key: str, default: str | None = None) -> str | None:
        text = self.text(key) or default
        if text is None:
            return None
        try:
            return str(Frequency.parse(text))
        except ValueError:
            self.issue("EXT3", f"{key} is '{text}': write minutes(n), hours(n), days(n) or months(n)", key)
            return None

    def date(self, key: str) -> str | None:
        text = self.text(key)
        if text is None:
            return None
        try:
            parse_falcon_date(text)
        except ValueError:
            self.issue("EXT3", f"{key} is '{text}': write a time as yyyy-MM-ddTHH:mmZ", key)
            return None
        return text

    def names(self, key: str) -> tuple[str, ...]:
        return tuple(item.strip() for item in (self.text(key) or "").split(",") if item.strip())

    def absolute_paths(self, key: str) -> tuple[str, ...]:
        paths = self.names(key)
        for path in paths:
            scheme = re.match(r"^[a-zA-Z][\w+.-]*://[^/]*", path)
            bare = path[scheme.end():] if scheme else path
            if not bare.startswith("/") or "/../" in f"{bare}/" or "/./" in f"{bare}/":
                self.issue("EXT3", f"{key} '{path}' is not an absolute, normalised path", key)
        return paths

    def retention(self, side: str) -> SnapshotRetention | None:
        policy = (self.text(f"{side}SnapshotRetentionPolicy") or "delete").lower()
        if policy != "delete":
            self.issue("EXT3", f"{side}SnapshotRetentionPolicy is '{policy}': only delete is supported",
                       f"{side}SnapshotRetentionPolicy")
        limit = self.frequency(f"{side}SnapshotRetentionAgeLimit")
        number = self.integer(f"{side}SnapshotRetentionNumber", 1, minimum=1)
        if limit is None:
            return None
        return SnapshotRetention(policy=policy, age_limit=limit, number=number)


def read_job(extension_name: str, text: str, file: str) -> tuple[ExtensionJob | None, list[Issue]]:
    """Read a job's properties file; the job when nothing is wrong with it, and every issue found."""
    try:
        extension = ExtensionName(extension_name.strip())
    except ValueError:
        known = ", ".join(item.value for item in ExtensionName)
        return None, [Issue(Level.ERROR, "EXT1", f"unknown extension '{extension_name}'; known: {known}", file,
                            None, None, ENTITY_TYPE)]
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    reader = _Reader(extension, file, values, lines)
    _, definitions = DEFINITIONS[extension]
    known_names = [item.name for item in definitions]
    for key, value, line in read_properties(text):
        if key in values:
            reader.issues.append(Issue(Level.ERROR, "EXT1", f"property {key} is given twice (lines {lines[key]} "
                                       f"and {line})", file, line, values.get("jobName"), ENTITY_TYPE))
        values[key] = value
        lines[key] = line
    reader.name = values.get("jobName", "").strip() or None
    for key in values:
        if key not in known_names:
            close = difflib.get_close_matches(key, known_names, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            reader.issue("EXT1", f"{extension.value} has no property {key}{hint}", key)
    for item in definitions:
        if item.required and reader.text(item.name) is None:
            reader.issue("EXT2", f"{extension.value} needs property {item.name} ({item.description}), "
                                 f"e.g. {item.name}={item.example}")
    name = reader.name
    if name is not None and not JOB_NAME.match(name):
        reader.issue("EXT3", f"jobName '{name}' must start with a letter and hold only letters, digits, _ and -",
                     "jobName")
    start, end = reader.date("jobValidityStart"), reader.date("jobValidityEnd")
    if start and end and parse_falcon_date(start) >= parse_falcon_date(end):
        reader.issue("EXT3", f"jobValidityStart {start} is not before jobValidityEnd {end}", "jobValidityEnd")
    frequency = reader.frequency("jobFrequency")
    zone = reader.text("jobTimezone") or "UTC"
    if not resolve_zone(zone).known:
        reader.issue("EXT3", f"jobTimezone '{zone}' is not a known time zone", "jobTimezone")
    policy = (reader.text("jobRetryPolicy") or "periodic").lower()
    if policy not in RETRY_POLICIES:
        reader.issue("EXT3", f"jobRetryPolicy is '{policy}'; use {', '.join(RETRY_POLICIES)}", "jobRetryPolicy")
    retry_delay = reader.frequency("jobRetryDelay", "minutes(30)")
    tags: list[tuple[str, str]] = []
    for pair in reader.names("jobTags"):
        key, sign, value = pair.partition("=")
        if not sign or not key.strip():
            reader.issue("EXT3", f"jobTags entry '{pair}' is not key=value", "jobTags")
        else:
            tags.append((key.strip(), value.strip()))
    notification = (reader.text("jobNotificationType") or "").lower()
    if notification and notification != "email":
        reader.issue("EXT3", f"jobNotificationType is '{notification}'; only email is supported",
                     "jobNotificationType")
    emails = reader.names("jobNotificationReceivers") if notification == "email" else ()
    fields: dict[str, object] = {}
    if extension is ExtensionName.HDFS_MIRRORING:
        fields["source_dirs"] = reader.absolute_paths("sourceDir")
        target = reader.absolute_paths("targetDir")
        fields["target_dir"] = target[0] if target else None
        if len(target) > 1:
            reader.issue("EXT3", "targetDir names one folder", "targetDir")
    elif extension is ExtensionName.HDFS_SNAPSHOT_MIRRORING:
        fields["source_dirs"] = reader.absolute_paths("sourceSnapshotDir")
        target = reader.absolute_paths("targetSnapshotDir")
        fields["target_dir"] = target[0] if target else None
        for key in ("sourceSnapshotDir", "targetSnapshotDir"):
            if len(reader.names(key)) > 1:
                reader.issue("EXT3", f"{key} names one folder", key)
        fields["source_retention"] = reader.retention("source")
        fields["target_retention"] = reader.retention("target")
        fields["encrypted"] = reader.boolean("tdeEncryptionEnabled")
    else:
        databases = reader.names("sourceDatabases")
        tables = reader.names("sourceTables")
        identifier = re.compile(r"^[A-Za-z_][\w]*$")
        for key, names in (("sourceDatabases", databases), ("sourceTables", tables)):
            for value in names:
                if value != "*" and not identifier.match(value):
                    reader.issue("EXT3", f"{key} '{value}' is not a Hive name", key)
        if tables and len(databases) > 1:
            reader.issue("EXT3", "sourceTables needs exactly one database in sourceDatabases", "sourceTables")
        fields.update(databases=databases, tables=tuple(item for item in tables if item != "*"))
        reader.integer("replicationMaxMaps", 1, minimum=1)
        reader.integer("maxEvents", -1, minimum=-1)
    max_maps = reader.integer("distcpMaxMaps", 1, minimum=1)
    bandwidth_text = reader.text("distcpMapBandwidth")
    bandwidth = reader.integer("distcpMapBandwidth", 0, minimum=1) if bandwidth_text is not None else None
    retry_attempts = reader.integer("jobRetryAttempts", 3, minimum=0)
    retry_on_timeout = reader.boolean("jobRetryOnTimeout")
    if reader.issues:
        return None, reader.issues
    assert name and start and end and frequency and retry_delay
    job = ExtensionJob(
        extension=extension, name=name, file=file, line=lines.get("jobName"), properties=dict(values),
        lines=dict(lines), cluster=reader.text("jobClusterName") or "", start=start, end=end, frequency=frequency,
        timezone=zone, tags=tuple(tags), retry_policy=policy, retry_delay=retry_delay, retry_attempts=retry_attempts,
        retry_on_timeout=retry_on_timeout, owner=reader.text("jobAclOwner"), group=reader.text("jobAclGroup"),
        emails=emails, source_cluster=reader.text("sourceCluster") or "",
        target_cluster=reader.text("targetCluster") or "", max_maps=max_maps,
        map_bandwidth_mb=bandwidth or None, **fields)
    return job, []
