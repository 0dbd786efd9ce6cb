"""Staging that belongs to one run: the run's owner and lease, which siblings of a published folder belong to
runs that are over (:func:`plan_cleanup`, pure), and :class:`RunStaging`, which stages, recovers and
publishes a folder.
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass

from falcon_airflow.jobs.filesystem import Entry, HadoopFs
from falcon_airflow.jobs.frame import JobError
from falcon_airflow.jobs.uris import name_of, parent_of

# A job that publishes a folder (replication, mirroring, import) writes the new version into a staging folder beside
# it, then swaps it in. Two runs of one instance can overlap - a manual rerun while the scheduled run still copies,
# a retry while a zombie try lives on, two source clusters replicating into one instance - so every sibling a run
# creates carries the run's own random token: ``.<name>.falcon-staging-<token>`` (the new version),
# ``.<name>.falcon-old-<token>`` (the previous version while it is swapped) and ``.<name>.falcon-lease-<token>``, a
# small file naming the run (its Airflow task try, host, process, lease length) that the run rewrites every quarter
# of its lease while it lives. The lease is written before any other sibling and removed after them, so a sibling
# listed without a lease belongs to no live run (or to a run of an earlier version, which wrote none).
#
# A run removes a sibling only when its owner's run is over: its lease was not rewritten for a whole lease (ages
# compared on the file system's clock: the lease's age against the age of this run's own, just written), or it is
# an earlier try of this very Airflow task instance (Airflow runs one try of a task instance at a time). A stale
# "old" folder is put back when the instance is missing (a run died between its two renames); a live run's never is.

STAGING_KIND = "staging"
OLD_KIND = "old"
LEASE_KIND = "lease"
DEFAULT_LEASE_SECONDS = 600.0
_SIBLING = re.compile(r"\.(?P<name>.+)\.falcon-(?P<kind>staging|old|lease)-(?P<token>[A-Za-z0-9_-]+)")
_TASK_VARIABLES = ("AIRFLOW_CTX_DAG_ID", "AIRFLOW_CTX_DAG_RUN_ID", "AIRFLOW_CTX_TASK_ID")


@dataclass(frozen=True)
class RunOwner:
    """Who owns a run's staging: its token, how long its lease lasts, and (when Airflow started it) its task try."""

    token: str
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    task: str | None = None
    """``dag_id/run_id/task_id`` of the Airflow task instance whose try runs the job."""
    try_number: int | None = None
    host: str = ""
    pid: int = 0

    @classmethod
    def current(cls, lease_seconds: float = DEFAULT_LEASE_SECONDS,
                environ: dict[str, str] | None = None) -> RunOwner:
        """This run: a new random token; the task try from the variables Airflow sets for a task's processes."""
        env = dict(os.environ) if environ is None else environ
        parts = [env.get(variable, "") for variable in _TASK_VARIABLES]
        task = "/".join(parts) if all(parts) else None
        number = env.get("AIRFLOW_CTX_TRY_NUMBER", "")
        return cls(uuid.uuid4().hex, float(lease_seconds), task,
                   int(number) if task is not None and number.isdigit() else None, socket.gethostname(), os.getpid())

    def to_text(self) -> str:
        return json.dumps({"token": self.token, "lease_seconds": self.lease_seconds, "task": self.task,
                           "try_number": self.try_number, "host": self.host, "pid": self.pid})

    @classmethod
    def from_text(cls, text: str) -> RunOwner | None:
        """A lease file's owner; ``None`` when it does not read (a lease being rewritten at that moment)."""
        try:
            data = json.loads(text)
            return cls(str(data["token"]), float(data["lease_seconds"]), data.get("task"), data.get("try_number"),
                       str(data.get("host", "")), int(data.get("pid", 0)))
        except (ValueError, KeyError, TypeError):
            return None

    def supersedes(self, other: RunOwner) -> bool:
        """Whether ``other`` is an earlier try of this run's Airflow task instance."""
        return (self.task is not None and other.task == self.task and self.try_number is not None
                and isinstance(other.try_number, int) and other.try_number < self.try_number)


def sibling_name(name: str, kind: str, token: str) -> str:
    """The name of a run's ``staging``/``old``/``lease`` sibling of the folder ``name``."""
    return f".{name}.falcon-{kind}-{token}"


def parse_sibling(name: str, child: str) -> tuple[str, str] | None:
    """(kind, token) when ``child`` is a run's sibling of the folder ``name``, else ``None``."""
    match = _SIBLING.fullmatch(child)
    if match is None or match["name"] != name:
        return None
    return match["kind"], match["token"]


@dataclass(frozen=True)
class Cleanup:
    """What a run may remove beside its folder: the siblings of runs that are over (their lease last), the stale
    "old" folder to put back first (the instance is missing), and the tokens of live runs left alone."""

    restore: str | None
    remove: tuple[str, ...]
    live: tuple[str, ...]


def plan_cleanup(name: str, me: RunOwner, children: Sequence[Entry], owners: dict[str, RunOwner | None],
                 now: int, target_exists: bool) -> Cleanup:
    """Decide which siblings of the folder ``name`` belong to no live run. ``children``: the listing of its parent;
    ``owners``: the lease content per token (``None``: unreadable); ``now``: the file system's time in
    milliseconds (the modification time of this run's own lease, just written)."""
    siblings: dict[str, dict[str, Entry]] = {}
    for entry in children:
        parsed = parse_sibling(name, name_of(entry.path))
        if parsed is not None and parsed[1] != me.token:
            siblings.setdefault(parsed[1], {})[parsed[0]] = entry
    stale: list[str] = []
    live: list[str] = []
    for token, kinds in sorted(siblings.items()):
        lease = kinds.get(LEASE_KIND)
        owner = owners.get(token)
        if lease is None or (owner is not None and me.supersedes(owner)):
            stale.append(token)
            continue
        seconds = owner.lease_seconds if owner is not None else DEFAULT_LEASE_SECONDS
        (stale if now - lease.mtime > seconds * 1000 else live).append(token)
    olds = sorted((siblings[token][OLD_KIND] for token in stale if OLD_KIND in siblings[token]),
                  key=lambda entry: entry.mtime)
    restore = olds[-1].path if olds and not target_exists else None
    remove = [siblings[token][kind].path for token in stale for kind in (STAGING_KIND, OLD_KIND)
              if kind in siblings[token] and siblings[token][kind].path != restore]
    remove += [siblings[token][LEASE_KIND].path for token in stale if LEASE_KIND in siblings[token]]
    return Cleanup(restore, tuple(remove), tuple(live))


class RunStaging:
    """One run's staging folder for one published folder (``target``), its lease, and the swap.

    Use as a context manager: entering writes the lease and starts rewriting it (a daemon thread); leaving stops
    that and removes this run's staging folder and lease. :meth:`recover` clears what runs that are over left
    beside the target; :meth:`publish` swaps the verified staging folder in without ever nesting it in a target
    that appeared meanwhile.
    """

    def __init__(self, fs: HadoopFs, target: str, owner: RunOwner) -> None:
        self.fs = fs
        self.target = target.rstrip("/")
        self.owner = owner
        parent, name = parent_of(self.target), name_of(self.target)
        self.parent, self.name = parent, name
        self.staging = f"{parent.rstrip('/')}/{sibling_name(name, STAGING_KIND, owner.token)}"
        self.old = f"{parent.rstrip('/')}/{sibling_name(name, OLD_KIND, owner.token)}"
        self.lease = f"{parent.rstrip('/')}/{sibling_name(name, LEASE_KIND, owner.token)}"
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self._renewed = 0.0

    def __enter__(self) -> RunStaging:
        self.fs.mkdirs(self.parent)
        self.fs.write_text(self.lease, self.owner.to_text())
        self._renewed = time.monotonic()
        self._beat = threading.Thread(target=self._renew, name="falcon-staging-lease", daemon=True)
        self._beat.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=30)
        with suppress(Exception):  # best effort: what stays is a sibling without a live lease, removed later
            if self.fs.exists(self.staging):
                self.fs.delete(self.staging, True)
            self.fs.delete(self.lease, False)

    def _renew(self) -> None:
        interval = max(0.05, self.owner.lease_seconds / 4)
        while not self._stop.wait(interval):
            try:
                self.fs.write_text(self.lease, self.owner.to_text())
                self._renewed = time.monotonic()
            except Exception:  # the next beat tries again; publish refuses once the lease has lapsed
                continue

    def recover(self) -> dict[str, int]:
        """Remove the siblings of runs that are over, putting back the instance a run left aside; leave every live
        run's alone. Counts of what was done, for the report."""
        status = self.fs.status(self.lease)
        if status is None:
            raise JobError(f"this run's lease {self.lease} vanished: another run removed it")
        children = self.fs.list_dir(self.parent)
        owners: dict[str, RunOwner | None] = {}
        for entry in children:
            parsed = parse_sibling(self.name, name_of(entry.path))
            if parsed is not None and parsed[0] == LEASE_KIND and parsed[1] != self.owner.token:
                owners[parsed[1]] = RunOwner.from_text(self.fs.read_text(entry.path))
        plan = plan_cleanup(self.name, self.owner, children, owners, status.mtime, self.fs.exists(self.target))
        counts = {"staging_removed": 0, "old_removed": 0, "old_restored": 0, "left_to_live_runs": len(plan.live)}
        revived: dict[str, bool] = {}

        def over(path: str) -> tuple[str, bool]:
            kind, token = parse_sibling(self.name, name_of(path)) or ("", "")
            if token not in revived:
                revived[token] = self._lease_revived(token, status.mtime)
            return kind, not revived[token]

        if plan.restore is not None and over(plan.restore)[1]:
            if not self.fs.rename_new(plan.restore, self.target):
                raise JobError(f"cannot put back {plan.restore} as {self.target}")
            counts["old_restored"] = 1
        for path in plan.remove:
            kind, removable = over(path)
            if removable and self.fs.delete(path, True) and kind != LEASE_KIND:
                counts["staging_removed" if kind == STAGING_KIND else "old_removed"] += 1
        return counts

    def _lease_revived(self, token: str, now: int) -> bool:
        """A second look just before removing: a lease written since the listing means a live run after all."""
        lease = self.fs.status(f"{self.parent.rstrip('/')}/{sibling_name(self.name, LEASE_KIND, token)}")
        if lease is None:
            return False
        owner = RunOwner.from_text(self.fs.read_text(lease.path))
        if owner is not None and self.owner.supersedes(owner):
            return False
        seconds = owner.lease_seconds if owner is not None else DEFAULT_LEASE_SECONDS
        return now - lease.mtime <= seconds * 1000

    def publish(self, expected: tuple[int, int] | None = None) -> None:
        """Swap the staging folder in: the current version aside (renamed to this run's ``old``), the staging
        folder renamed to the target - a rename that refuses an existing target, never one that nests into it -,
        the result checked against ``expected`` (files, bytes), then the old version deleted. A target that
        appeared meanwhile (another run published first) fails the run with nothing of it published; the caller
        writes the availability flag only after this returns."""
        if time.monotonic() - self._renewed > self.owner.lease_seconds:
            raise JobError(f"this run's lease {self.lease} lapsed (not renewed for {self.owner.lease_seconds:g} s): "
                           "another run may have removed its staging folder; nothing was published")
        fs = self.fs
        moved = False
        if fs.exists(self.target):
            if not fs.rename_new(self.target, self.old):
                raise JobError(f"cannot move the current {self.target} aside")
            moved = True
        try:
            published = fs.rename_new(self.staging, self.target)
        except BaseException:
            if moved and not fs.exists(self.target):
                fs.rename_new(self.old, self.target)
            raise
        if not published:
            if moved and not fs.rename_new(self.old, self.target):
                fs.delete(self.old, True)  # another run's complete version is in place of the one set aside
            raise JobError(f"{self.target} appeared while this run was publishing it (another run of the instance "
                           "published first); nothing of this run was published")
        if expected is not None:
            found = fs.content_summary(self.target)
            if found != expected:
                raise JobError(f"{self.target} holds {found[0]} files, {found[1]} bytes after publishing, not the "
                               f"{expected[0]} files, {expected[1]} bytes staged: another run changed it meanwhile")
        if moved:
            fs.delete(self.old, True)
