"""The parsed options of a command and Falcon's value rules for them.

Exactly one action option per command. Values are checked with Falcon's rules and messages (``ValidationUtil``,
``FalconCLI``, ``AbstractEntityManager``, ``AbstractInstanceManager``).
"""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from falcon_airflow.entities import EntityType
from falcon_airflow.errors import DateFormatError
from falcon_airflow.operate.declarations import Option, command
from falcon_airflow.operate.lifecycles import Lifecycle
from falcon_airflow.operate.outcomes import Refused, missing, usage_error
from falcon_airflow.parsing.secure import MAX_ENTITY_FILE_BYTES
from falcon_airflow.timekeeping import parse_falcon_date

MAX_GIVEN_FILE_BYTES = MAX_ENTITY_FILE_BYTES
"""The largest ``-file`` a command reads (an entity definition or an extension job's properties)."""


def read_given_file(given: str, limit: int = MAX_GIVEN_FILE_BYTES) -> bytes:
    """The bytes of the file a user names, read once through one descriptor and never more than ``limit`` of them:
    a regular file larger than that is refused before any byte is read, anything else (a pipe) when it goes on
    past the limit. :class:`Refused` with a clear message, never a traceback."""
    path = Path(given).expanduser()
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise Refused(f"File not found: {given}") from None
    except OSError as problem:
        raise Refused(f"cannot read {given}: {problem.strerror or problem}") from None
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            raise Refused(f"cannot read {given}: it is a folder, not a file")
        if stat.S_ISREG(status.st_mode) and status.st_size > limit:
            raise Refused(f"{given} is larger than {limit:,} bytes ({status.st_size:,} bytes): refused unread")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as problem:
        raise Refused(f"cannot read {given}: {problem.strerror or problem}") from None
    finally:
        os.close(descriptor)
    if size > limit:  # a pipe, or a file that grew while it was read
        raise Refused(f"{given} is larger than {limit:,} bytes: refused")
    return b"".join(chunks)


class Options:
    """The options of one command, from either front end or from a request to the server, with Falcon's value
    rules.

    ``namespace`` is the parsed command line, or a mapping of option keys to values (a request's parameters).
    ``action`` names the action when the caller knows it (the server's route); otherwise it is the one action
    option given. ``files`` are the contents of file options that came with the request (by option key: the bytes
    and the name to show for them); with ``local_files`` False no option may name a file to read here (the server
    never reads a path a caller names).
    """

    def __init__(self, command: str, namespace: argparse.Namespace | Mapping[str, Any], *,
                 action: str | None = None, files: Mapping[str, tuple[bytes, str]] | None = None,
                 local_files: bool = True) -> None:
        self.command = command
        values = vars(namespace) if isinstance(namespace, argparse.Namespace) else dict(namespace)
        self.values = {spec.dest: values.get(spec.dest) for spec in _specs(command)}
        self._files: dict[str, bytes] = {}
        self._action = action
        self.local_files = local_files
        for dest, (data, shown) in (files or {}).items():
            self.values[dest] = shown
            self._files[shown] = data

    def file_bytes(self, dest: str = "file", option: str = "file") -> tuple[bytes, str]:
        """The content of the file the option names and the name as given. Read once, on first use: the
        authorization check and the action judge and use the same bytes, whatever happens to the file between
        them (a second read could find another definition). A file that came with the request is not read."""
        given = self.required(dest, option)
        if given not in self._files:
            if not self.local_files:
                raise Refused(f"-{option} must come with the request (as its body), not as a path to read here")
            self._files[given] = read_given_file(given)
        return self._files[given], given

    def text(self, dest: str) -> str | None:
        value = self.values.get(dest)
        if value is None or isinstance(value, bool):
            return None
        return str(value)

    def flag(self, dest: str) -> bool:
        return bool(self.values.get(dest))

    def given(self, dest: str) -> bool:
        value = self.values.get(dest)
        return value not in (None, False)

    def action(self) -> str:
        """The action: the one the request named, else the one action option given (Falcon: exactly one per
        command)."""
        declared = command(self.command)
        if self._action is not None:
            declared.action(self._action)  # a declared action, or KeyError
            return self._action
        chosen = [item.name for item in declared.actions if self.given(item.dest)]
        if not chosen:
            raise usage_error(f"Invalid/missing {self.command} command. Supported commands include "
                              f"{declared.supported()}. Please refer to Falcon CLI twiki for more details.")
        if len(chosen) > 1:
            raise usage_error(f"only one {self.command} action may be given; found "
                              f"{', '.join('-' + item for item in chosen)}")
        return chosen[0]

    @property
    def output(self) -> str:
        chosen = (self.text("format") or "").lower()
        if chosen and chosen not in ("text", "json"):
            raise usage_error(f"--format must be text or json, not '{chosen}'")
        return "json" if self.flag("json") or chosen == "json" else "text"

    def required(self, dest: str, option: str) -> str:
        value = self.text(dest)
        if value is None or not value.strip():
            raise missing(option)
        return value.strip()

    def integer(self, dest: str, option: str, default: int | None) -> int | None:
        value = self.text(dest)
        if value is None:
            return default
        try:
            return int(value.strip())
        except ValueError:
            raise usage_error(f'Input value provided for queryParam "{option}" is not a valid Integer') from None

    def time(self, dest: str) -> datetime | None:
        value = self.text(dest)
        return None if value is None else parse_time(value)


# -- value rules ---------------------------------------------------------------------------------------------------

_TYPE_ORDER = (EntityType.FEED, EntityType.PROCESS, EntityType.CLUSTER, EntityType.DATASOURCE)
ENTITY_FILTERS = ("TYPE", "NAME", "STATUS", "PIPELINES", "CLUSTER", "TAGS")
INSTANCE_FILTERS = ("STATUS", "CLUSTER", "SOURCECLUSTER", "STARTEDAFTER")
SUMMARY_FILTERS = ("STATUS", "CLUSTER")
ORDERS = {"entity": ("type", "name"), "instance": ("status", "cluster", "starttime", "endtime"),
          "summary": ("cluster",)}
FIELDS = ("type", "name", "status", "tags", "pipelines", "clusters")


def parse_time(value: str) -> datetime:
    try:
        return parse_falcon_date(value)
    except DateFormatError as problem:
        raise usage_error(f"Time {value} is not valid: {problem.message}") from None


def entity_type(value: str) -> EntityType:
    """Falcon's ``EntityType.getEnum``: case-insensitive, with its message for anything else."""
    try:
        return EntityType(value.strip().lower())
    except ValueError:
        expected = ", ".join(item.value for item in _TYPE_ORDER)
        raise usage_error(f"Invalid entity type: {value}. Expected [{expected}].") from None


def entity_types(value: str | None) -> list[EntityType]:
    """``-type`` of ``entity -list``: empty for every type, else a comma-separated list."""
    if not value:
        return []
    return [entity_type(item) for item in value.split(",") if item.strip()]


def sort_order(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    if value.strip().lower() not in ("asc", "desc"):
        raise usage_error(f'Value for param sortOrder should be "asc" or "desc". It is  : {value}')
    return value.strip().lower()


def order_by(value: str | None, kind: str) -> str | None:
    if value is None or not value.strip():
        return None
    if value.strip().lower() not in ORDERS[kind]:
        raise usage_error(f"Invalid orderBy argument : {value}")
    return value.strip().lower()


def filter_by(value: str | None, kind: str) -> dict[str, list[str]]:
    """``FIELD:value,...`` as {FIELD: [values]}: the first colon splits, empty values are dropped (Falcon)."""
    allowed = {"entity": ENTITY_FILTERS, "instance": INSTANCE_FILTERS, "summary": SUMMARY_FILTERS}[kind]
    found: dict[str, list[str]] = {}
    if not value:
        return found
    for piece in value.split(","):
        key, _, item = piece.partition(":")
        if key.strip().upper() not in allowed:
            raise usage_error(f"Invalid filterBy argument : {key} in : {piece}")
        if item:
            found.setdefault(key.strip().upper(), []).append(item)
    return found


def fields(value: str | None) -> set[str]:
    if not value:
        return set()
    chosen = {item.strip().lower() for item in value.split(",") if item.strip()}
    if any(item not in FIELDS for item in chosen):
        raise usage_error("Invalid fields argument : fields")
    return chosen


def properties(value: str | None) -> dict[str, str]:
    """``key:value,...``: the first colon splits, spaces are trimmed; ``key``, ``key=v``, ``:v`` are refused."""
    found: dict[str, str] = {}
    if not value:
        return found
    for piece in value.split(","):
        key, colon, item = piece.partition(":")
        if not colon or not key.strip():
            raise usage_error(f"Found invalid property {piece}. Supported format: key1:value1,key2:value2")
        found[key.strip()] = item.strip()
    return found


def lifecycles(value: str | None, kind: EntityType) -> frozenset[Lifecycle] | None:
    """``-lifecycle`` (case-insensitive, comma-separated); ``None`` when not given (the type's default applies)."""
    if value is None:
        return None
    chosen: list[Lifecycle] = []
    wrong: list[str] = []
    for item in value.split(","):
        try:
            chosen.append(Lifecycle(item.strip().upper()))
        except ValueError:
            wrong.append(item.strip())
    if wrong:
        raise usage_error(f"Invalid life cycle values: {', '.join(wrong)} (valid: "
                          f"{', '.join(item.value for item in Lifecycle)})")
    for item in chosen:
        if item.entity_type is not kind:
            raise Refused(f"Incorrect lifecycle: {item.value} for given type: {kind.value}")
    return frozenset(chosen)


def names(value: str | None) -> list[str]:
    return [item.strip() for item in (value or "").split(",") if item.strip()]


def check_colo_not_given(options: Options) -> None:
    """Falcon refuses ``-colo`` for entity actions that do not run on a colo."""
    if options.given("colo"):
        raise usage_error("Invalid argument : colo")


def _specs(name: str) -> tuple[Option, ...]:
    return command(name).all_options()
