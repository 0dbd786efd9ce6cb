"""A store snapshot as the server sends it to the DAG bundle (``GET /falcon/api/store/snapshot``), as JSON:

```
{"store": "<the store's id>", "revision": 12,
 "definitions": [{"kind": "feed", "name": "clicks", "variant": null, "revision": 9,
                  "content": "<base64 of the stored bytes>", "submitted_by": "ann",
                  "submitted_at": "2026-01-02T03:04:05+00:00"}, ...],
 "schedule_states": [{"kind": "process", "name": "count", "state": "RUNNING"}, ...],
 "proxy_users": [{"kind": "process", "name": "count", "user": "etl"}, ...]}
```

A definition's ``revision`` is the store revision that brought that version in; the snapshot's, the revision it
shows the store as of. ``variant`` is an extension job's extension (``hdfs-mirroring`` ...).
:func:`read_snapshot_document` checks what it is given (it comes over the network) and says what is wrong with it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from falcon_airflow.store.database import Snapshot, StoredDefinition

KINDS = ("cluster", "feed", "process", "datasource", "extension")
"""The kinds of definitions the store holds: the four entity types and extension jobs (Java properties)."""
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def snapshot_document(snapshot: Snapshot) -> dict[str, Any]:
    return {
        "store": snapshot.store_id,
        "revision": snapshot.revision,
        "definitions": [{"kind": item.kind, "name": item.name, "variant": item.variant, "revision": item.revision,
                         "content": base64.b64encode(item.content).decode("ascii"),
                         "submitted_by": item.submitted_by, "submitted_at": item.submitted_at.isoformat()}
                        for item in snapshot.definitions],
        "schedule_states": [{"kind": kind, "name": name, "state": state}
                            for (kind, name), state in sorted(snapshot.schedule_states.items())],
        "proxy_users": [{"kind": kind, "name": name, "user": user}
                        for (kind, name), user in sorted(snapshot.proxy_users.items())],
    }


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: '{key}' is not a non-empty string")
    return value


def _number(entry: Mapping[str, Any], key: str, where: str) -> int:
    value = entry.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{where}: '{key}' is not a whole number >= 0")
    return value


def _entries(document: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = document.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ValueError(f"'{key}' is not a list of objects")
    return value


def _moment(value: object) -> datetime:
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else EPOCH
    except ValueError:
        return EPOCH
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def read_snapshot_document(document: object) -> Snapshot:
    """The snapshot a document describes; :class:`ValueError` naming what is wrong with it."""
    if not isinstance(document, dict):
        raise ValueError("the snapshot is not a JSON object")
    revision = _number(document, "revision", "the snapshot")
    definitions = []
    for index, entry in enumerate(_entries(document, "definitions")):
        where = f"definition {index}"
        kind = _text(entry, "kind", where)
        if kind not in KINDS:
            raise ValueError(f"{where}: unknown kind '{kind}'")
        name = _text(entry, "name", where)
        content = entry.get("content")
        if not isinstance(content, str):
            raise ValueError(f"{where} ({kind} {name}): 'content' is not base64 text")
        try:
            data = base64.b64decode(content.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise ValueError(f"{where} ({kind} {name}): 'content' is not base64 text") from None
        submitted_by = entry.get("submitted_by")
        variant = entry.get("variant")
        if variant is not None and not isinstance(variant, str):
            raise ValueError(f"{where} ({kind} {name}): 'variant' is not a string")
        definitions.append(StoredDefinition(
            kind=kind, name=name, content=data, revision=_number(entry, "revision", where), variant=variant,
            submitted_by=submitted_by if isinstance(submitted_by, str) else "",
            submitted_at=_moment(entry.get("submitted_at"))))
    states = {(_text(entry, "kind", "schedule state"), _text(entry, "name", "schedule state")):
              _text(entry, "state", "schedule state") for entry in _entries(document, "schedule_states")}
    users = {(_text(entry, "kind", "proxy user"), _text(entry, "name", "proxy user")):
             _text(entry, "user", "proxy user") for entry in _entries(document, "proxy_users")}
    store = document.get("store", "")
    if not isinstance(store, str):
        raise ValueError("'store' is not a string")
    return Snapshot(revision=revision, definitions=tuple(definitions), schedule_states=states, proxy_users=users,
                    store_id=store)
