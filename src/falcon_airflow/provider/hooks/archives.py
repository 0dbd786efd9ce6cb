"""Python packages named in ``--py-files`` shipped as zip archives.

spark-submit ships ``.py``, ``.zip`` and ``.egg`` files, not folders. The compiler names two package folders among a
job's py-files, the jobs package (``falcon_airflow/jobs``) and the core it imports (``falcon_airflow/core``), so
that the job imports the same rules the Airflow side uses; before spark-submit runs, those folders become one zip
holding the packages with their resources (the ``.java`` sources the jobs compile in the JVM, read with
:mod:`importlib.resources`) and the ``__init__.py`` of the packages above them (``falcon_airflow/__init__.py``), so
``import falcon_airflow.jobs.retention`` works in the driver and the executors. One zip for the packages of one
source folder, because a package found in one entry of ``sys.path`` is not looked for in another. The archive is
named by a digest of its content and written once (aside, then renamed), so concurrent tasks share it and a changed
package gets a new one.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

ARCHIVE_FOLDER = Path(tempfile.gettempdir()) / "falcon-airflow-py-files"
SHIPPED_SUFFIXES = (".py", ".java")  # modules, and the resources they read
_STAMP = (2000, 1, 1, 0, 0, 0)  # fixed entry times: the same content gives the same bytes


def _root(package: Path) -> Path:
    """The folder the package's top package stands in (what ``sys.path`` would name)."""
    top = package
    while (top.parent / "__init__.py").exists():
        top = top.parent
    return top.parent


def _members(package: Path) -> list[tuple[str, Path]]:
    """(name in the archive, file) for the package's modules and resources and the ``__init__.py`` of its parent
    packages."""
    root = _root(package)
    members = []
    folder = package.parent
    while folder != root.parent and (folder / "__init__.py").exists():
        members.append((str((folder / "__init__.py").relative_to(root)), folder / "__init__.py"))
        folder = folder.parent
    for path in sorted(package.rglob("*")):
        if path.suffix in SHIPPED_SUFFIXES and path.is_file() and "__pycache__" not in path.parts:
            members.append((str(path.relative_to(root)), path))
    return sorted(members)


def package_archive(packages: Path | Sequence[Path], folder: Path = ARCHIVE_FOLDER) -> Path:
    """The zip of ``packages`` (folders with ``__init__.py``) for ``--py-files``, built if not there yet."""
    folders = [packages] if isinstance(packages, Path) else list(packages)
    named = {name: path for package in folders for name, path in _members(package)}
    members = [(name, named[name].read_bytes()) for name in sorted(named)]
    digest = hashlib.sha256()
    for name, data in members:
        digest.update(name.encode() + b"\0" + data + b"\0")
    target = folder / f"{'-'.join(package.name for package in folders)}-{digest.hexdigest()[:20]}.zip"
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream, zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                archive.writestr(zipfile.ZipInfo(name, _STAMP), data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def ship_packages(py_files: str | None) -> str | None:
    """``py_files`` with its package folders replaced by archives: one for the packages of one source folder (the
    jobs and the core), where the first of them stood; files are kept as they are."""
    if not py_files:
        return py_files
    entries: list[str | Path] = []
    groups: dict[Path, list[Path]] = {}
    for entry in py_files.split(","):
        path = Path(entry.strip())
        if not (path / "__init__.py").is_file():
            entries.append(entry)
            continue
        root = _root(path)
        if root not in groups:
            entries.append(root)  # the archive's place
        groups.setdefault(root, []).append(path)
    return ",".join(str(package_archive(groups[entry])) if isinstance(entry, Path) else entry for entry in entries)
