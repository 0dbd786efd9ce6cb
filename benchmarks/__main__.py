"""Run every benchmark module of this package and print its results: ``python -m benchmarks [NAME ...]``."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
import traceback
from pathlib import Path


def benchmark_names() -> list[str]:
    """Modules of this package that are benchmarks (not private, not this runner), in name order."""
    folder = Path(__file__).resolve().parent
    return sorted(module.name for module in pkgutil.iter_modules([str(folder)])
                  if not module.name.startswith("_") and not module.ispkg)


def main(argv: list[str] | None = None) -> int:
    wanted = list(sys.argv[1:] if argv is None else argv)
    names = benchmark_names()
    unknown = [name for name in wanted if name not in names]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(names)}", file=sys.stderr)
        return 2
    failed = []
    for name in wanted or names:
        module = importlib.import_module(f"benchmarks.{name}")
        run = getattr(module, "main", None)
        if run is None:
            continue
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        try:
            code = run([])
        except Exception:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            code = 1
        print(f"== {name}: {'done' if code == 0 else 'FAILED'} in {time.perf_counter() - started:.1f} s", flush=True)
        if code != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
