"""What the entity commands recorded beside the XML, applied to compiled specs.

The XML says what an entity is; two facts about how it runs live in the config store instead, because Falcon kept
them outside the definition too: the ``-doAs`` user its jobs run as (Spark's ``--proxy-user``) and whether it was
scheduled (a new DAG of a RUNNING entity starts unpaused, of a SUSPENDED one paused). The loader reads them with
:func:`recorded_store_state` (read-only, never raising: the entity commands write them, see
:mod:`falcon_airflow.operate.config_store`); the compiler stays pure and only receives them as values.

One record is the loader's own: when each entity's DAGs were first built (:func:`record_first_built`), so that a
newcomer colliding with a running entity is the one left out (:mod:`falcon_airflow.validation.incumbents`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from falcon_airflow.compiler.identity import with_identity
from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.validation.incumbents import Incumbents

META_FOLDER = ".falcon"
"""Where older versions kept the state, inside the entities folder (read until a command migrates it)."""
STORE_DIR_VARIABLES = ("FALCON_STORE_DIR", "AIRFLOW__FALCON__STORE_DIR")
log = logging.getLogger("falcon_airflow.dags")

SCHEDULE_DOC = "schedule.json"
DOAS_DOC = "doas.json"
FIRST_BUILT_DOC = "first_built.json"
"""Per entity, when the loader first built its DAGs: who was running first when a newcomer collides with it
(:mod:`falcon_airflow.validation.incumbents`)."""

EntityKey = tuple[str, str]
"""(entity type, name), e.g. ``("process", "count-clicks")``."""
SCHEDULED_STATES = ("RUNNING", "SUSPENDED")


@dataclass(frozen=True)
class StoreState:
    proxy_users: Mapping[EntityKey, str] = field(default_factory=dict)
    """The ``-doAs`` user recorded per entity."""
    schedule_states: Mapping[EntityKey, str] = field(default_factory=dict)
    """``RUNNING`` or ``SUSPENDED`` per entity that was scheduled; absent while it is only submitted."""
    first_built: Mapping[EntityKey, str] = field(default_factory=dict)
    """When the loader first built each entity's DAGs (UTC ISO time)."""

    def incumbents(self) -> Incumbents:
        """What runs already, for the rules that blame only a newcomer."""
        scheduled = frozenset(key for key, state in self.schedule_states.items() if state in SCHEDULED_STATES)
        return Incumbents(scheduled, self.first_built)


def apply_store_state(spec: DagSpec, state: StoreState) -> DagSpec:
    """The spec with the entity's recorded ``-doAs`` user as the identity of every job (it wins over the ACL owner
    the compiler set; see :mod:`falcon_airflow.compiler.identity`) and its paused-at-creation flag."""
    key = (spec.source.type, spec.source.name)
    user = state.proxy_users.get(key)
    schedule_state = state.schedule_states.get(key)
    if user is not None:
        spec = with_identity(spec, user)
    update: dict[str, object] = {}
    if schedule_state == "RUNNING":
        update["paused_upon_creation"] = False
    elif schedule_state == "SUSPENDED":
        update["paused_upon_creation"] = True
    return spec.model_copy(update=update)


# -- where the state lives --------------------------------------------------------------------------------------------

def state_folder(entities_dir: Path, configured: str | None = None) -> Path:
    """The folder holding the commands' state (schedule states, -doAs users, safemode, journal, archive) for an
    entities folder: ``FALCON_STORE_DIR``, else ``AIRFLOW__FALCON__STORE_DIR``, else ``configured`` (``[falcon]
    store_dir`` read by the caller), else ``$AIRFLOW_HOME/falcon/store/<folder name>-<hash of its path>``. Never
    inside the entities folder, which is often a git checkout."""
    for variable in STORE_DIR_VARIABLES:
        value = os.environ.get(variable, "").strip()
        if value:
            return Path(value).expanduser().resolve()
    if configured and configured.strip():
        return Path(configured.strip()).expanduser().resolve()
    home = Path(os.environ.get("AIRFLOW_HOME") or Path.home() / "airflow").expanduser()
    resolved = entities_dir.expanduser().resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:10]
    return (home / "falcon" / "store" / f"{resolved.name or 'root'}-{digest}").resolve()


def legacy_state_folder(entities_dir: Path) -> Path:
    return entities_dir / META_FOLDER


# -- read by the DAG loader (read-only, never raise) ----------------------------------------------------------------

def _doc(entities_dir: Path, name: str, state_dir: Path | None = None) -> dict[str, Any]:
    folder = state_dir if state_dir is not None else state_folder(entities_dir)
    path = folder / name
    if not path.exists() and not folder.exists():  # not migrated yet: the state is still in the entities folder
        path = legacy_state_folder(entities_dir) / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recorded_proxy_user(entities_dir: Path, entity_type: str, name: str, state_dir: Path | None = None) -> str | None:
    """The ``-doAs`` user recorded for an entity: Spark's ``--proxy-user`` for its jobs (``None`` when none)."""
    entry = _doc(entities_dir, DOAS_DOC, state_dir).get(f"{entity_type}/{name}")
    return str(entry["user"]) if isinstance(entry, dict) and entry.get("user") else None


def recorded_schedule_state(entities_dir: Path, entity_type: str, name: str,
                            state_dir: Path | None = None) -> str | None:
    """``RUNNING``/``SUSPENDED`` once scheduled, ``None`` while submitted: a new DAG of a RUNNING entity should be
    created unpaused (``is_paused_upon_creation=False``)."""
    entry = _doc(entities_dir, SCHEDULE_DOC, state_dir).get(f"{entity_type}/{name}")
    return str(entry["state"]) if isinstance(entry, dict) and "state" in entry else None


def _entries(document: dict[str, Any], field: str) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for key, entry in document.items():
        entity_type, _, name = key.partition("/")
        if name and isinstance(entry, dict) and entry.get(field):
            found[(entity_type, name)] = str(entry[field])
    return found


def recorded_store_state(entities_dir: Path, state_dir: Path | None = None) -> StoreState:
    """Every entity's recorded ``-doAs`` user and schedule state, for the compiler (empty when none)."""
    return StoreState(proxy_users=_entries(_doc(entities_dir, DOAS_DOC, state_dir), "user"),
                      schedule_states=_entries(_doc(entities_dir, SCHEDULE_DOC, state_dir), "state"),
                      first_built=_entries(_doc(entities_dir, FIRST_BUILT_DOC, state_dir), "since"))


# -- written by the DAG loader (never raise) --------------------------------------------------------------------------

def record_first_built(entities_dir: Path, state_dir: Path | None, built: Iterable[EntityKey],
                       present: Iterable[EntityKey], known: Mapping[EntityKey, str],
                       now: datetime | None = None) -> None:
    """Add the entities whose DAGs were just built for the first time to ``first_built.json`` (``known`` is what it
    held when the compilation started); forget entities whose files left the folder, so a later entity of the same
    name starts anew. Written only when it changes, atomically; a failure to write is logged, never raised (the DAGs
    are built either way, and the next compilation tries again).

    The file is not part of the loader's content key: recording only entities that were valid under the old record
    changes no outcome for the same files, so a cached compilation stays right."""
    folder = state_dir if state_dir is not None else state_folder(entities_dir)
    if not folder.exists() and legacy_state_folder(entities_dir).exists():
        return  # the first command moves the old layout here; creating the folder first would stop that move
    stayed = set(present)
    since = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    document = {f"{kind}/{name}": {"since": value} for (kind, name), value in known.items() if (kind, name) in stayed}
    for kind, name in built:
        document.setdefault(f"{kind}/{name}", {"since": since})
    if document == {f"{kind}/{name}": {"since": value} for (kind, name), value in known.items()}:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{FIRST_BUILT_DOC}.", dir=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(document, stream, indent=2, sort_keys=True)
            stream.write("\n")
        os.replace(temporary, folder / FIRST_BUILT_DOC)
    except OSError as problem:
        log.warning("falcon-airflow: cannot record which entities run in %s: %s", folder, problem)


def state_files(entities_dir: Path, state_dir: Path | None = None) -> list[Path]:
    """The store files that change what the loader builds (for its content cache key)."""
    folder = state_dir if state_dir is not None else state_folder(entities_dir)
    legacy = legacy_state_folder(entities_dir)
    return [folder / name for name in (SCHEDULE_DOC, DOAS_DOC)] + [legacy / name for name in (SCHEDULE_DOC, DOAS_DOC)]
