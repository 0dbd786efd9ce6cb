"""An extension job against the workspace: the clusters it names exist and have what the extension needs.

Rules: ``EXT4`` a cluster is not in the workspace, ``EXT5`` a cluster lacks an interface the job needs, ``EXT6``
the job would copy a folder onto itself or into its own source.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from falcon_airflow.entities import Cluster
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


def read_jobs(entities_dir: Path, clusters: Mapping[str, Cluster]) -> tuple[list[ExtensionJob], list[Issue]]:
    """Every extension job of an entities folder that reads and validates, and the issues of all of them (a job
    with an error is left out)."""
    jobs: list[ExtensionJob] = []
    issues: list[Issue] = []
    names: dict[str, Path] = {}
    for extension, path in extension_files(entities_dir):
        display = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as problem:
            issues.append(Issue(Level.ERROR, "EXT1", f"cannot read the extension job: {problem}", display, None,
                                path.stem, ENTITY_TYPE))
            continue
        job, found = read_job(extension.value, text, display)
        if job is not None:
            found = validate_job(job, clusters)
            if job.name != path.stem:
                found.append(Issue(Level.ERROR, "EXT1", f"jobName {job.name} differs from the file's name "
                                   f"{path.name}", display, job.line, job.name, ENTITY_TYPE))
            elif job.name in names:
                found.append(Issue(Level.ERROR, "EXT1", f"job {job.name} is also defined in {names[job.name]}",
                                   display, job.line, job.name, ENTITY_TYPE))
            names.setdefault(job.name, path)
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


def validate_job(job: ExtensionJob, clusters: Mapping[str, Cluster]) -> list[Issue]:
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
    return issues
