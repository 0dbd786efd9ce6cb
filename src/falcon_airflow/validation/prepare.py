"""Create the local folders a workspace's clusters name, as submitting a cluster to Falcon did (C11, C13).

Falcon made the staging and working folders when a cluster was submitted; here nothing submits a cluster, so
``make run`` (or a deployment script) calls this before starting Airflow::

    python -m falcon_airflow.validation.prepare ENTITIES_FOLDER

Only ``file://`` storage (and plain paths on it) is touched; remote file systems are left to their owners. Afterwards
``falcon-airflow validate --check-environment`` finds the storage (C4) and staging (C10) it checks.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from falcon_airflow.entities import Cluster, ClusterLocationName, InterfaceType
from falcon_airflow.workspace import Workspace


def _local_root(cluster: Cluster, kind: InterfaceType) -> Path | None:
    interface = cluster.interface(kind)
    if interface is None:
        return None
    parts = urlsplit(interface.endpoint.strip())
    return Path(parts.path or "/") if parts.scheme == "file" else None


def folders_of(cluster: Cluster) -> list[Path]:
    """The local folders a cluster needs: its storage roots, staging and working (default <staging>/working)."""
    write = _local_root(cluster, InterfaceType.WRITE)
    folders = [root for root in (_local_root(cluster, InterfaceType.READONLY), write) if root is not None]
    staging = cluster.location(ClusterLocationName.STAGING)
    working = cluster.location(ClusterLocationName.WORKING)
    for location, default in ((staging, None), (working, "working")):
        path = location.path if location is not None else None
        if path is None and default is not None and staging is not None:
            path = staging.path.rstrip("/") + "/" + default
        if path is None:
            continue
        parts = urlsplit(path)
        if parts.scheme == "file":
            folders.append(Path(parts.path))
        elif not parts.scheme and write is not None:
            folders.append(write / path.lstrip("/"))
    return list(dict.fromkeys(folders))


def prepare_clusters(workspace: Workspace) -> list[Path]:
    """Create every missing local folder the workspace's clusters name; return the ones created."""
    created = []
    for cluster in workspace.clusters.values():
        for folder in folders_of(cluster):
            if not folder.exists():
                folder.mkdir(parents=True, exist_ok=True)
                created.append(folder)
    return created


def main(argv: Sequence[str] | None = None) -> int:
    paths = list(argv if argv is not None else sys.argv[1:]) or ["entities"]
    missing = [path for path in paths if not Path(path).exists()]
    if missing:
        print(f"prepare: {', '.join(missing)} does not exist", file=sys.stderr)
        return 2
    try:
        created = prepare_clusters(Workspace.load(paths))
    except OSError as problem:
        print(f"prepare: cannot create a cluster folder: {problem}", file=sys.stderr)
        return 1
    for folder in created:
        print(f"created {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
