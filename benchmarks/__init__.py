"""Benchmarks of falcon-airflow, run with ``python -m benchmarks`` (``make bench``).

Each module here that defines ``main(argv) -> int`` is a benchmark; ``python -m benchmarks`` runs them all and
prints their figures. They measure and print; they never fail on a time (see README.md).
"""
