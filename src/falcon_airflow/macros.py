"""Template macros: Falcon EL and feed instances resolved for a DAG run (``{{ macros.falcon.* }}``).

The compiler puts each input's and output's :mod:`binding <falcon_airflow.instances.bindings>` into the DAG's
params; templates hand them to these functions with the run, e.g.
``{{ macros.falcon.input_paths(params.falcon.inputs.clicks, dag_run) }}``. The instance is the run's data interval
start (our timetable makes it the Falcon nominal time), else its logical date, else when it was due to run - so
asset-triggered and manual runs resolve as well as scheduled ones; ``ds`` is never used.

No Airflow import here: the plugin registers these functions, and tests call them directly.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pendulum

from falcon_airflow.el import ELContext, evaluate, render
from falcon_airflow.instances.bindings import FeedBinding, InputBinding, OutputBinding
from falcon_airflow.timekeeping import format_falcon_date, resolve_zone


def instance(run: Any) -> pendulum.DateTime:
    """The Falcon instance (nominal) time of a run, a context dict, or a datetime, in UTC."""
    if isinstance(run, datetime):
        return pendulum.instance(run).in_timezone("UTC")
    if isinstance(run, dict):
        run = run.get("dag_run") or run.get("data_interval_start") or run.get("logical_date")
        return instance(run)
    for attribute in ("data_interval_start", "logical_date", "run_after"):
        moment = getattr(run, attribute, None)
        if moment is not None:
            return pendulum.instance(moment).in_timezone("UTC")
    raise ValueError(f"cannot tell the instance time of {run!r}: it has no data interval, logical date or run_after")


def _input(binding: dict[str, Any] | InputBinding) -> InputBinding:
    return binding if isinstance(binding, InputBinding) else InputBinding.model_validate(binding)


def _output(binding: dict[str, Any] | OutputBinding) -> OutputBinding:
    return binding if isinstance(binding, OutputBinding) else OutputBinding.model_validate(binding)


def input_instances(binding: dict[str, Any] | InputBinding, run: Any) -> str:
    """The input's feed instance times for the run, comma-separated (``yyyy-MM-ddTHH:mmZ``)."""
    return ",".join(format_falcon_date(moment) for moment in _input(binding).resolve(instance(run)).instances)


def input_paths(binding: dict[str, Any] | InputBinding, run: Any) -> str:
    """The input's instance paths for the run, comma-separated, partition appended (Falcon's ``dataIn``)."""
    return ",".join(_input(binding).resolve(instance(run)).paths)


def output_instance(binding: dict[str, Any] | OutputBinding, run: Any) -> str:
    moment = _output(binding).time(instance(run))
    return format_falcon_date(moment) if moment is not None else ""


def output_path(binding: dict[str, Any] | OutputBinding, run: Any) -> str:
    """The output's instance path for the run (empty when the expression names no instance)."""
    return _output(binding).resolve(instance(run)).path or ""


def feed_path(feed: dict[str, Any] | FeedBinding, moment: Any) -> str:
    """A feed instance's path, for a time or a run."""
    binding = feed if isinstance(feed, FeedBinding) else FeedBinding.model_validate(feed)
    return binding.path(instance(moment))


def el(expression: str, run: Any, timezone: str = "UTC", user: str | None = None) -> str:
    """An EL expression in action context (process properties): ``${formatTime(instanceTime(), 'yyyy')}``."""
    context = ELContext(instance_time=instance(run), zone=resolve_zone(timezone).zone, user=user)
    return render(evaluate(expression, context))


def nominal_time(run: Any, timezone: str = "UTC") -> str:
    """Falcon's ``nominalTime`` workflow property: ``yyyy-MM-dd-HH-mm`` in the entity's zone."""
    return instance(run).in_timezone(resolve_zone(timezone).zone).format("YYYY-MM-DD-HH-mm")  # type: ignore[arg-type]


MACROS = [instance, input_instances, input_paths, output_instance, output_path, feed_path, el, nominal_time]
