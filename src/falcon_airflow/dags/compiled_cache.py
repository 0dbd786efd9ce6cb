"""The loader's compiled cache on disk: ``$AIRFLOW_HOME/falcon/compiled``, one entry per content key (a pickle
for one DAG file, a folder of shard pickles for the shard files; see loader and shards), and the memo of each
folder's last compilation of the day (see compile_memo).

* The spec models are kept pickled: validating them again from JSON cost more than building their DAGs. The folder
  is under ``AIRFLOW_HOME``, which only the deployment writes (whoever can write there can already change
  ``airflow.cfg``); the key covers the specs' schema and the code (:func:`code_fingerprint`), so a cache written by
  other models or other code is never read.
* Every file is written under a temporary name and renamed: a concurrent parse never reads half of one.
* Entries nothing has read or written for an hour are removed when a new one is written (each change and each new
  day writes one); a parse reading an entry marks it used.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import pickle
import shutil
import time
from pathlib import Path
from typing import Any

import falcon_airflow
from falcon_airflow import __version__

log = logging.getLogger("falcon_airflow.dags")


def cache_folder() -> Path:
    home = Path(os.environ.get("AIRFLOW_HOME", str(Path.home() / "airflow")))
    return home / "falcon" / "compiled"


STALE_ENTRY_SECONDS = 3600


@functools.cache
def code_fingerprint() -> str:
    """The package version and the size and modification time of every module of the package: a memo (or a
    compiled cache entry) made by other code is never read, also in an install edited in place."""
    package = Path(falcon_airflow.__file__).parent
    digest = hashlib.sha256(__version__.encode())
    for root, directories, names in os.walk(package):
        directories[:] = sorted(name for name in directories if name != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                path = Path(root) / name
                status = path.stat()
                digest.update(f"{path.relative_to(package)}:{status.st_size}:{status.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:16]


def mark_used(entry: Path) -> None:
    """Keep an entry from :func:`prune_cache`: a dag-processor re-reads its entry every refresh."""
    with contextlib.suppress(OSError):
        os.utime(entry)


def prune_cache(current: Path) -> None:
    """Remove the cache entries (files and shard folders) other than ``current`` that nothing has read or written
    for an hour: every change and every new day writes a new entry. A parse still reading a removed one falls
    back to compiling for itself."""
    threshold = time.time() - STALE_ENTRY_SECONDS
    with contextlib.suppress(OSError):
        for entry in current.parent.iterdir():
            if entry == current or entry.stem == current.name:  # the current entry and its lock
                continue
            with contextlib.suppress(OSError):
                if entry.stat().st_mtime >= threshold:
                    continue
                if entry.is_dir():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()


def write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)  # a concurrent parse never reads half a file


def read_pickled(path: Path) -> Any:
    """What :func:`write_pickled` wrote; ``None`` (logged) when the file is missing or unreadable."""
    try:
        return pickle.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except Exception as problem:  # a truncated or foreign file: compile instead
        log.warning("falcon-airflow: ignoring unreadable compiled cache %s: %s", path, problem)
        return None


def write_pickled(path: Path, value: Any) -> None:
    write_atomically(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
