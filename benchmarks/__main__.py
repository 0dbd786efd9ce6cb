"""Run every benchmark module of this package and print its results: ``python -m benchmarks [NAME ...]``.

Each benchmark runs in a Python process of its own, so that each pays (and reports) its own Spark start-up and
none inherits another's JVM, caches or garbage.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import time
from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def benchmark_names() -> list[str]:
    """Modules of this package that are benchmarks (not private, not this runner), in name order; each is run as
    ``python -m benchmarks.NAME``."""
    return sorted(module.name for module in pkgutil.iter_modules([str(FOLDER)])
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
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        # One broken benchmark must not hide the others' figures: a failure is reported and the next one runs.
        code = subprocess.run([sys.executable, "-m", f"benchmarks.{name}"], cwd=FOLDER.parent, check=False).returncode
        print(f"== {name}: {'done' if code == 0 else 'FAILED'} in {time.perf_counter() - started:.1f} s", flush=True)
        if code != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
