"""Falcon's retry and late-data wait policies (``periodic``, ``exp-backoff``, ``final``), as pure functions.

Retry waits (after the failed run ``n``, counted from 0): periodic ``d``; exp-backoff ``d * 2**n``; final 0.
Late-data checks step from the nominal time until past "now": periodic by ``d``; exp-backoff by ``d, 2d, 4d``...;
final straight to the cut-off. A check never goes past the cut-off.
"""

from __future__ import annotations

from datetime import datetime, timedelta

_MAX_STEPS = 100_000


def retry_wait(policy: str, delay: timedelta, failed_run: int) -> timedelta:
    if policy == "periodic":
        return delay
    if policy == "exp-backoff":
        factor: int = 2 ** max(failed_run, 0)
        return delay * factor
    if policy == "final":
        return timedelta(0)
    raise ValueError(f"unknown policy {policy!r}")


def next_late_check(policy: str, delay: timedelta, nominal: datetime, now: datetime, cut_off: datetime) -> datetime:
    """When to look for late data next: the first policy step from ``nominal`` that is after ``now``."""
    if policy == "final" or delay <= timedelta(0):
        return cut_off
    moment, step = nominal, delay
    for _ in range(_MAX_STEPS):
        moment = moment + step
        if moment > now or moment >= cut_off:
            break
        if policy == "exp-backoff":
            step = step * 2
        elif policy != "periodic":
            raise ValueError(f"unknown policy {policy!r}")
    return min(moment, cut_off)
