"""The host name ``make run`` gives every Airflow component (``[core] hostname_callable``): the log URLs the
api-server builds for running tasks then point at the log server ``make run`` binds to 127.0.0.1 only."""

from __future__ import annotations

LOOPBACK = "127.0.0.1"


def loopback_hostname() -> str:
    return LOOPBACK
