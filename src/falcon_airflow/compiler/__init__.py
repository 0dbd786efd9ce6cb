"""The compiler: a validated workspace to DagSpecs (``compile_workspace``, in ``compilation``). Never imports Airflow.

The package itself imports nothing: a task process that reads its DAG's spec from the loader's cache needs
``compiler.specs`` alone, not the validation and compile machinery (a third of a second per task).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from falcon_airflow.compiler.compilation import Compilation, compile_workspace
    from falcon_airflow.compiler.store_state import StoreState

__all__ = ["Compilation", "StoreState", "compile_workspace"]


def __getattr__(name: str) -> Any:
    if name in ("Compilation", "compile_workspace"):
        from falcon_airflow.compiler import compilation

        return getattr(compilation, name)
    if name == "StoreState":
        from falcon_airflow.compiler.store_state import StoreState

        return StoreState
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
