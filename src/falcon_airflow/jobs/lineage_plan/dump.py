"""Reading the plan: one serialisation call, with a fast dumper compiled in the JVM with the Janino compiler Spark
ships (its source ``FalconAirflowPlanDump.java`` beside this module), the text fetched in small pieces."""

from __future__ import annotations

import json
import logging
import threading
import time
from importlib import resources
from typing import Any

from falcon_airflow.jobs.lineage_plan.model import LineageUnavailable

log = logging.getLogger(__package__)  # one logger for the package, as when it was one module


_DUMPER_CLASS = "FalconAirflowPlanDump"
_DUMPER_SOURCE = resources.files(__package__).joinpath(f"{_DUMPER_CLASS}.java").read_text(encoding="utf-8")

_dumpers: dict[int, Any] = {}
_dumpers_lock = threading.Lock()


def _gateway_key(jvm: Any) -> int:
    client = getattr(jvm, "_gateway_client", None)
    return id(client if client is not None else jvm)


def _dumper(jvm: Any) -> Any:
    """The compiled plan dumper of this JVM (compiled once), or None when it cannot be compiled."""
    key = _gateway_key(jvm)
    with _dumpers_lock:
        if key in _dumpers:
            return _dumpers[key]
        started = time.perf_counter()
        try:
            compiler = jvm.org.codehaus.janino.SimpleCompiler()
            compiler.setParentClassLoader(jvm.java.lang.Thread.currentThread().getContextClassLoader())
            compiler.cook(_DUMPER_SOURCE)
            instance = compiler.getClassLoader().loadClass(_DUMPER_CLASS).newInstance()
        except Exception as error:  # no Janino (or a Spark it does not compile against): toJSON is used
            log.debug("plan dumper not compiled, using LogicalPlan.toJSON: %s", error)
            instance = None
        log.debug("plan dumper compiled in %.3f s", time.perf_counter() - started)
        _dumpers[key] = instance
        return instance


def prepare(jvm: Any) -> bool:
    """Compile the plan dumper now (it is otherwise compiled by the first walk); whether it is available."""
    return _dumper(jvm) is not None


_CHUNK = 3500
"""Characters fetched per py4j call: an answer over 8 KB (py4j's buffer) leaves Nagle's algorithm waiting for a
delayed ACK, about 40 ms per call on Linux; 3,500 characters stay under it even if py4j doubles every one."""


def _fetch(builder: Any) -> str:
    """The text of a JVM ``StringBuilder``, read in pieces small enough to avoid the delayed-ACK stall."""
    size = int(builder.length())
    return "".join(str(builder.substring(start, min(size, start + _CHUNK))) for start in range(0, size, _CHUNK))


def read_plan(jplan: Any, jvm: Any, backend: str = "auto") -> tuple[list[dict[str, Any]], Any]:
    """(the flat pre-order nodes of ``LogicalPlan.toJSON``, the plan's schema as JSON or None if not read)."""
    if backend in ("auto", "dumper"):
        dumper = _dumper(jvm)
        if dumper is not None:
            try:
                document = json.loads(_fetch(dumper.build(jplan)))
                return list(document["plan"]), document.get("schema")
            except Exception as error:
                if backend == "dumper":
                    raise
                log.debug("plan dumper failed, using LogicalPlan.toJSON: %s", error)
        elif backend == "dumper":
            raise LineageUnavailable("the plan dumper could not be compiled")
    return list(json.loads(jplan.toJSON())), None


def dump_plan(jplan: Any, jvm: Any, backend: str = "auto") -> list[dict[str, Any]]:
    """A plan as the flat pre-order list of ``LogicalPlan.toJSON``; ``backend`` ``auto``, ``dumper`` or ``json``."""
    return read_plan(jplan, jvm, backend)[0]
