"""Python packages named in ``--py-files`` shipped as zip archives.

spark-submit ships ``.py``, ``.zip`` and ``.egg`` files, not folders. The compiler names the core package folder
(``falcon_airflow/core``) among a lifecycle job's py-files, so that the job imports the same rules the Airflow side
uses; before spark-submit runs, each such folder becomes a zip holding the package and the ``__init__.py`` of the
packages above it (``falcon_airflow/__init__.py``), so ``import falcon_airflow.core`` works in the driver and the
executors. The archive is named by a digest of its content and written once (aside, then renamed), so concurrent
tasks share it and a changed package gets a new one.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

ARCHIVE_FOLDER = Path(tempfile.gettempdir()) / "falcon-airflow-py-files"
_STAMP = (2000, 1, 1, 0, 0, 0)  # fixed entry times: the same content gives the same bytes


def _members(package: Path) -> list[tuple[str, Path]]:
    """(name in the archive, file) for the package's modules and the ``__init__.py`` of its parent packages."""
    top = package
    while (top.parent / "__init__.py").exists():
        top = top.parent
    root = top.parent
    members = []
    folder = package.parent
    while folder != root.parent and (folder / "__init__.py").exists():
        members.append((str((folder / "__init__.py").relative_to(root)), folder / "__init__.py"))
        folder = folder.parent
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" not in path.parts:
            members.append((str(path.relative_to(root)), path))
    return sorted(members)


def package_archive(package: Path, folder: Path = ARCHIVE_FOLDER) -> Path:
    """The zip of ``package`` (a folder with ``__init__.py``) for ``--py-files``, built if not there yet."""
    members = [(name, path.read_bytes()) for name, path in _members(package)]
    digest = hashlib.sha256()
    for name, data in members:
        digest.update(name.encode() + b"\0" + data + b"\0")
    target = folder / f"{package.name}-{digest.hexdigest()[:20]}.zip"
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
    """``py_files`` with every package folder replaced by its archive; files are kept as they are."""
    if not py_files:
        return py_files
    entries = []
    for entry in py_files.split(","):
        path = Path(entry.strip())
        entries.append(str(package_archive(path)) if (path / "__init__.py").is_file() else entry)
    return ",".join(entries)
