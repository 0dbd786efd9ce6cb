"""Runs an Oozie ``fs`` action through the Hadoop FileSystem API of the Spark JVM (file://, hdfs://, s3a:// alike).

Command line (``spark-submit --py-files <jobs zip> entry/oozie_fs.py ARGS``)::

    --operations JSON   the action's commands in document order: [{"op": "mkdir"|"delete"|"move"|"chmod"|"touchz"|
                        "chgrp", "path": URI, ...}] with "target" (move), "permissions" (chmod), "group" (chgrp),
                        "dir_files" and "recursive" (chmod, chgrp), "skip_trash" (delete)
    --report FILE       where to write the JSON report (optional)

Oozie's rules for each command:

* ``mkdir`` creates the folder and its parents; an existing folder is no error.
* ``delete`` removes the path (recursively; a glob removes every match); a missing path is no error.
* ``move`` renames ``path`` to ``target`` (a target without a scheme is on the source's file system); the source
  must exist, the target's parent must exist, and an existing target folder receives the source inside it.
* ``chmod`` sets octal (``755``) or symbolic (``rwxr-x---``, ``-rwxr-x---``) permissions on the path; on a folder
  also on the files directly inside it unless ``dir_files`` is false; ``recursive`` descends the whole tree.
* ``touchz`` creates an empty file, or touches an existing empty one; an existing non-empty file is an error.
* ``chgrp`` sets the group, with the same ``dir_files``/``recursive`` rules as ``chmod``.

The commands run in order and the first failure stops the action (Oozie does the same: the action is not atomic).
Exit 0 done, 1 a command failed (the report and the last stdout line say which and why), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Sequence
from typing import Any

from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.frame import ArgumentParser, JobError, JobResult, UsageError, run_job, spark_session
from falcon_airflow.jobs.uris import parent_of, split_uri

OPERATIONS = ("mkdir", "delete", "move", "chmod", "touchz", "chgrp")
_SYMBOLIC = re.compile(r"-?([r-][w-][xsStT-]){3}")
_OCTAL = re.compile(r"[0-7]{3,4}")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="oozie_fs", description="Run an Oozie fs action.")
    parser.add_argument("--operations", required=True, metavar="JSON")
    parser.add_argument("--report")
    return parser


def parse_operations(text: str) -> list[dict[str, Any]]:
    """The ``--operations`` JSON, checked: every command known, with the fields it needs."""
    try:
        operations = json.loads(text)
    except ValueError as error:
        raise UsageError(f"--operations is not JSON: {error}") from error
    if not isinstance(operations, list):
        raise UsageError("--operations must be a JSON list")
    for number, item in enumerate(operations, start=1):
        if not isinstance(item, dict) or item.get("op") not in OPERATIONS:
            raise UsageError(f"operation {number}: 'op' must be one of {', '.join(OPERATIONS)}")
        needed = {"move": ("path", "target"), "chmod": ("path", "permissions"), "chgrp": ("path", "group")}
        for key in needed.get(item["op"], ("path",)):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise UsageError(f"operation {number} ({item['op']}): '{key}' is missing")
        if item["op"] == "chmod":
            permission_bits(item["permissions"])  # refuse a bad mode before anything changes
    return operations


def permission_bits(text: str) -> int:
    """Octal ``755``/``1777`` or symbolic ``rwxr-x---`` (with or without the leading type character) as mode bits."""
    value = text.strip()
    if _OCTAL.fullmatch(value):
        return int(value, 8)
    if _SYMBOLIC.fullmatch(value):
        symbols = value[-9:]
        bits = 0
        for index, char in enumerate(symbols):
            position = 8 - index
            if char in "rwxst":
                bits |= 1 << position
            if char in "sS" and index == 2:
                bits |= 0o4000
            elif char in "sS" and index == 5:
                bits |= 0o2000
            elif char in "tT" and index == 8:
                bits |= 0o1000
        return bits
    raise UsageError(f"chmod: permissions '{text}' are neither octal (755) nor symbolic (rwxr-xr-x)")


def resolve_target(source: str, target: str) -> str:
    """A move target without a scheme lives on the source's file system (Oozie's rule)."""
    if split_uri(target).scheme:
        return target
    return split_uri(source).with_path(target)


class FsAction:
    """Applies the commands one by one, recording what each did."""

    def __init__(self, fs: HadoopFs) -> None:
        self.fs = fs
        self.done: list[dict[str, Any]] = []

    def run(self, operations: Sequence[dict[str, Any]]) -> None:
        for item in operations:
            getattr(self, f"_{item['op']}")(item)
            self.done.append({key: value for key, value in item.items() if value is not None})

    def _mkdir(self, item: dict[str, Any]) -> None:
        path = item["path"]
        status = self.fs.status(path)
        if status is not None:
            if not status.is_dir:
                raise JobError(f"mkdir: {path} exists and is a file")
            return
        if not self.fs.mkdirs(path):
            raise JobError(f"mkdir: {path} could not be created")

    def _delete(self, item: dict[str, Any]) -> None:
        path = item["path"]
        matches = [entry.path for entry in self.fs.glob(path)] if any(c in path for c in "*?[{") else [path]
        for match in matches:
            if self.fs.exists(match) and not self.fs.delete(match, True):
                raise JobError(f"delete: {match} could not be deleted")

    def _move(self, item: dict[str, Any]) -> None:
        source, target = item["path"], resolve_target(item["path"], item["target"])
        if not split_uri(source).same_filesystem(split_uri(target)):
            raise JobError(f"move: {source} and {target} are on different file systems")
        if self.fs.status(source) is None:
            raise JobError(f"move: source {source} does not exist")
        existing = self.fs.status(target)
        if existing is not None and not existing.is_dir:
            raise JobError(f"move: target {target} already exists")
        parent = split_uri(target).with_path(parent_of(split_uri(target).path))
        if existing is None and self.fs.status(parent) is None:
            raise JobError(f"move: the parent of target {target} does not exist")
        if not self.fs.rename(source, target):
            raise JobError(f"move: {source} could not be moved to {target}")

    def _touchz(self, item: dict[str, Any]) -> None:
        path = item["path"]
        status = self.fs.status(path)
        if status is None:
            self.fs.touch(path)
            return
        if status.is_dir or status.length:
            raise JobError(f"touchz: {path} is not a zero-length file")
        self.fs.filesystem(path).setTimes(self.fs.path(path), int(time.time() * 1000), -1)

    def _targets(self, item: dict[str, Any], verb: str) -> list[str]:
        """The path, and below it what ``dir_files`` (one level of files) or ``recursive`` (everything) adds."""
        path = item["path"]
        status = self.fs.status(path)
        if status is None:
            raise JobError(f"{verb}: {path} does not exist")
        targets = [path]
        if not status.is_dir:
            return targets
        if item.get("recursive"):
            level = [path]
            while level:
                below = []
                for folder in level:
                    for entry in self.fs.list_dir(folder):
                        targets.append(entry.path)
                        if entry.is_dir:
                            below.append(entry.path)
                level = below
        elif item.get("dir_files", True):
            targets += [entry.path for entry in self.fs.list_dir(path) if not entry.is_dir]
        return targets

    def _chmod(self, item: dict[str, Any]) -> None:
        bits = permission_bits(item["permissions"])
        permission = self.fs.jvm.org.apache.hadoop.fs.permission.FsPermission(bits)
        for target in self._targets(item, "chmod"):
            self.fs.filesystem(target).setPermission(self.fs.path(target), permission)

    def _chgrp(self, item: dict[str, Any]) -> None:
        for target in self._targets(item, "chgrp"):
            self.fs.filesystem(target).setOwner(self.fs.path(target), None, item["group"])


def run(args: argparse.Namespace, spark: Any = None) -> JobResult:
    operations = parse_operations(args.operations)
    with spark_session("falcon-oozie-fs", spark) as session:
        fs = HadoopFs(session)
        action = FsAction(fs)
        try:
            action.run(operations)
        except JobError as error:
            raise JobError(f"{error} (after {len(action.done)} of {len(operations)} commands)") from error
        finally:
            fs.close()
    summary = {"job": "oozie_fs", "commands": len(action.done)}
    return JobResult(summary=summary, report={**summary, "done": action.done})


def main(argv: Sequence[str] | None = None, spark: Any = None) -> int:
    return run_job("oozie_fs", build_parser(), argv, lambda args: run(args, spark))

