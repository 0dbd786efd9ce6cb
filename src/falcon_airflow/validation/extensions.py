"""An extension job against the workspace: the clusters it names exist and have what the extension needs.

Rules: ``EXT4`` a cluster is not in the workspace, ``EXT5`` a cluster lacks an interface the job needs, ``EXT6``
the job would copy a folder onto itself or into its own source, ``FA045`` a folder mirror's target is, holds or
lies inside a feed's location, ``FA046`` it is a folder the file system or the clusters need (see
:mod:`falcon_airflow.core.mirror_targets`): a mirror replaces its target, deleting what its source does not hold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from falcon_airflow.core.errors import RuleError
from falcon_airflow.core.mirror_targets import (
    WAREHOUSE_PROPERTIES,
    Protected,
    min_depth_of,
    refusals,
    shared_folders,
)
from falcon_airflow.core.paths import Template
from falcon_airflow.entities import Cluster, Feed, StorageKind
from falcon_airflow.entities.cluster import InterfaceType
from falcon_airflow.entities.extension import ENTITY_TYPE, ExtensionJob, ExtensionName, read_job
from falcon_airflow.issues import Issue, Level

EXTENSIONS_FOLDER = "extensions"
"""``<entities>/extensions/<extension name>/<jobName>.properties``: the extension jobs submitted to the store."""


def extension_files(entities_dir: Path) -> list[tuple[ExtensionName, Path]]:
    """The extension jobs' properties files in an entities folder, by extension, in name order."""
    found = []
    for extension in ExtensionName:
        folder = entities_dir / EXTENSIONS_FOLDER / extension.value
        if folder.is_dir():
            found += [(extension, path) for path in sorted(folder.glob("*.properties"))
                      if not path.name.startswith(".")]
    return found


@dataclass(frozen=True)
class ExtensionFile:
    """An extension job's properties file from elsewhere than an entities folder, and how issues name it."""

    extension: ExtensionName
    path: Path
    display: str


def read_jobs(entities_dir: Path | None, clusters: Mapping[str, Cluster], feeds: Mapping[str, Feed] | None = None,
              *, more: Sequence[ExtensionFile] = ()) -> tuple[list[ExtensionJob], list[Issue]]:
    """Every extension job of an entities folder (and ``more``, after them) that reads and validates, and the issues
    of all of them (a job with an error is left out; a job name taken already is an error naming both)."""
    jobs: list[ExtensionJob] = []
    issues: list[Issue] = []
    names: dict[str, str] = {}
    sources = [ExtensionFile(extension, path, str(path))
               for extension, path in (extension_files(entities_dir) if entities_dir is not None else [])]
    for extension, path, display in ((item.extension, item.path, item.display) for item in [*sources, *more]):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as problem:
            issues.append(Issue(Level.ERROR, "EXT1", f"cannot read the extension job: {problem}", display, None,
                                path.stem, ENTITY_TYPE))
            continue
        job, found = read_job(extension.value, text, display)
        if job is not None:
            found = validate_job(job, clusters, feeds)
            if job.name != path.stem:
                found.append(Issue(Level.ERROR, "EXT1", f"jobName {job.name} differs from the file's name "
                                   f"{path.name}", display, job.line, job.name, ENTITY_TYPE))
            elif job.name in names:
                found.append(Issue(Level.ERROR, "EXT1", f"job {job.name} is also defined in {names[job.name]}",
                                   display, job.line, job.name, ENTITY_TYPE))
            names.setdefault(job.name, display)
        issues.extend(found)
        if job is not None and not any(issue.is_error for issue in found):
            jobs.append(job)
    return jobs, issues


def _endpoint(cluster: Cluster, *kinds: InterfaceType) -> str | None:
    for kind in kinds:
        interface = cluster.interface(kind)
        if interface is not None and interface.endpoint.strip():
            return interface.endpoint.strip().rstrip("/")
    return None


def _inside(path: str, folder: str) -> bool:
    path, folder = path.rstrip("/") or "/", folder.rstrip("/") or "/"
    return path == folder or path.startswith(folder if folder.endswith("/") else f"{folder}/")


def _storage(cluster: Cluster) -> str | None:
    return _endpoint(cluster, InterfaceType.WRITE, InterfaceType.READONLY)


def mirror_protections(job: ExtensionJob, clusters: Mapping[str, Cluster],
                       feeds: Mapping[str, Feed] | None = None) -> tuple[list[Protected], str | None, int]:
    """What the job's mirror target must keep away from, the target cluster's storage and the minimum depth: the
    shared folders, every cluster's staging, working and temp folders and Hive warehouses, and every location of
    every feed stored in files (data, stats, meta, tmp: each from its base folder, the part before the first date
    variable). A table mirror writes table folders inside the warehouses, so for it they are roots, not zones."""
    target = clusters.get(job.target_cluster)
    base = _storage(target) if target is not None else None
    folder_mirror = job.extension is not ExtensionName.HIVE_MIRRORING
    own_warehouses = [value for key in WAREHOUSE_PROPERTIES
                      if (value := (target.property_map.get(key) or "").strip() if target is not None else "")]
    found = shared_folders(base, warehouses_inside=folder_mirror, warehouses=own_warehouses,
                           storage=f"cluster {job.target_cluster}")
    for cluster in clusters.values():
        storage = _storage(cluster)
        for location in cluster.locations:
            if location.path.strip():
                found.append(Protected(location.path.strip(), f"the {location.name.value} folder of cluster "
                                       f"{cluster.name}", inside=True, base=storage))
        for key in WAREHOUSE_PROPERTIES:
            value = (cluster.property_map.get(key) or "").strip()
            if value and cluster is not target:
                found.append(Protected(value, f"the Hive warehouse of cluster {cluster.name}", inside=folder_mirror,
                                       base=storage))
    for feed in (feeds or {}).values():
        for placement in feed.clusters:
            home = clusters.get(placement.name)
            if home is None or feed.storage_for(placement) is not StorageKind.FILESYSTEM:
                continue  # a table's folder is the metastore's: the warehouses stand for it
            for kept in feed.locations_for(placement):
                try:
                    folder = Template.parse(kept.path.strip()).base_folder
                except RuleError:
                    continue  # FA010 and the schema rules report it
                found.append(Protected(folder, f"feed {feed.name}'s {kept.type.value} location on cluster "
                                       f"{placement.name}", inside=True, base=_storage(home), feed=True))
    depth = min_depth_of(target.property_map) if target is not None else min_depth_of({})
    return found, base, depth


def _target_issues(job: ExtensionJob, clusters: Mapping[str, Cluster], feeds: Mapping[str, Feed] | None,
                   issue: Callable[[str, str, str], None]) -> None:
    """FA045 and FA046 for a folder mirror's target (a table mirror's folders are known at run time only: the job
    checks them)."""
    if job.extension is ExtensionName.HIVE_MIRRORING or job.target_dir is None:
        return
    key = "targetDir" if job.extension is ExtensionName.HDFS_MIRRORING else "targetSnapshotDir"
    protected, base, depth = mirror_protections(job, clusters, feeds)
    found = refusals(job.target_dir, protected, base=base, min_depth=depth)
    for rule, feed in (("FA045", True), ("FA046", False)):
        mine = [refusal.message for refusal in found if refusal.feed is feed]  # the most direct first
        if mine:
            more = f" (and {len(mine) - 1} more: {'; '.join(mine[1:3])}{' ...' if len(mine) > 3 else ''})" \
                if len(mine) > 1 else ""
            issue(rule, f"{key} {job.target_dir} {mine[0]}{more}; a mirror replaces its target folder, deleting "
                        "whatever its source does not hold", key)


def validate_job(job: ExtensionJob, clusters: Mapping[str, Cluster],
                 feeds: Mapping[str, Feed] | None = None) -> list[Issue]:
    issues: list[Issue] = []

    def issue(rule: str, message: str, key: str) -> None:
        issues.append(Issue(Level.ERROR, rule, message, job.file, job.line_of(key), job.name, ENTITY_TYPE))

    found: dict[str, Cluster] = {}
    for key, name in (("jobClusterName", job.cluster), ("sourceCluster", job.source_cluster),
                      ("targetCluster", job.target_cluster)):
        cluster = clusters.get(name)
        if cluster is None:
            issue("EXT4", f"{key} names cluster '{name}', which is not submitted", key)
        else:
            found[key] = cluster
    source, target = found.get("sourceCluster"), found.get("targetCluster")
    if source is not None and _endpoint(source, InterfaceType.READONLY, InterfaceType.WRITE) is None:
        issue("EXT5", f"cluster '{source.name}' has no readonly or write interface to read from", "sourceCluster")
    if target is not None and _endpoint(target, InterfaceType.WRITE) is None:
        issue("EXT5", f"cluster '{target.name}' has no write interface to write the mirror to", "targetCluster")
    if job.extension is ExtensionName.HIVE_MIRRORING:
        for key, cluster in (("sourceCluster", source), ("targetCluster", target)):
            if cluster is not None and not (_endpoint(cluster, InterfaceType.REGISTRY) or "").startswith("thrift://"):
                issue("EXT5", f"cluster '{cluster.name}' has no registry interface (thrift://host:port): Hive "
                              "mirroring reads and writes its metastore", key)
        if source is not None and target is not None and _endpoint(source, InterfaceType.REGISTRY) == _endpoint(
                target, InterfaceType.REGISTRY) and source.name != target.name:
            issue("EXT6", f"clusters '{source.name}' and '{target.name}' share one metastore: the tables would be "
                          "mirrored onto themselves", "targetCluster")
        if job.source_cluster == job.target_cluster:
            issue("EXT6", "sourceCluster and targetCluster are the same cluster", "targetCluster")
    elif source is not None and target is not None and job.target_dir is not None:
        same_storage = (_endpoint(source, InterfaceType.WRITE) == _endpoint(target, InterfaceType.WRITE)
                        or job.source_cluster == job.target_cluster)
        key = "targetDir" if job.extension is ExtensionName.HDFS_MIRRORING else "targetSnapshotDir"
        for folder in job.source_dirs:
            if same_storage and (_inside(job.target_dir, folder) or _inside(folder, job.target_dir)):
                issue("EXT6", f"{key} {job.target_dir} and source folder {folder} overlap on one file system", key)
    if target is not None:
        _target_issues(job, clusters, feeds, issue)
    return issues
