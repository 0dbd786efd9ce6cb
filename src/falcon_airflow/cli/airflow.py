"""``airflow falcon ...``: the commands marked ``airflow`` in :mod:`falcon_airflow.cli.commands`, for Airflow's CLI.

:func:`airflow_cli_commands` is listed in the provider info's ``cli`` (Airflow >= 3.2 reads it).
"""

from __future__ import annotations

from typing import Any

from falcon_airflow.cli.commands import commands
from falcon_airflow.cli.registry import airflow_group


def airflow_cli_commands() -> list[Any]:
    """The ``falcon`` command group (a list of Airflow ``CLICommand``)."""
    return airflow_group("falcon", "Apache Falcon entity, instance and admin operations (falcon-airflow)",
                         commands())
