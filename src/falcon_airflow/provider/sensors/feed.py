"""A process input's feed instances, waited for without holding a worker slot."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from airflow.sdk import BaseSensorOperator
from airflow.sdk.exceptions import AirflowException, AirflowSensorTimeout

from falcon_airflow.instances.acting_user import acting_for
from falcon_airflow.instances.storage import StorageError, exists
from falcon_airflow.provider.triggers.feed import FeedInstancesTrigger

SHOWN_MISSING = 20


def waiting_text(input_name: str, feed: str, total: int, missing: Sequence[str]) -> str:
    """What an input waits for, one line per missing instance (at most SHOWN_MISSING of them)."""
    if not missing:
        return f"input {input_name}: all {total} instance(s) of feed {feed} are available"
    lines = [f"input {input_name}: waiting for {len(missing)} of {total} instance(s) of feed {feed}:"]
    lines += [f"  {marker}" for marker in missing[:SHOWN_MISSING]]
    if len(missing) > SHOWN_MISSING:
        lines.append(f"  ... and {len(missing) - SHOWN_MISSING} more")
    lines.append("falcon-airflow instance -triage shows which process instances should write them")
    return "\n".join(lines)


class InputsTimedOut(AirflowException):
    """The inputs did not arrive within the process timeout and the entity retries timed-out instances
    (``retry onTimeout="true"``): unlike AirflowSensorTimeout, this failure is retried."""


class FeedInstanceSensor(BaseSensorOperator):
    """Succeeds when every instance of an input exists: its availability flag when the feed has one, else its
    folder. ``markers`` is a comma-separated, templated list (the compiler renders it from the input binding);
    ``storage_settings`` the client settings of the feed's cluster (S3A endpoint, path style, region), not templated.

    It checks once on a worker, then defers to :class:`FeedInstancesTrigger` until the data lands or the Falcon
    timeout (measured from the first check) passes; the instance is then TIMEDOUT.
    """

    template_fields: Sequence[str] = ("markers", "waiting_for")
    ui_color = "#e8f4fd"
    # ``waiting_for`` is set by the first check: rewritten after it, the task's Rendered Template tab says which
    # instances are missing without opening the log.
    overwrite_rtif_after_execution = True

    def __init__(self, *, markers: str, input_name: str, feed: str, retry_on_timeout: bool = False,
                 storage_settings: dict[str, str] | None = None, run_as: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("mode", "reschedule")
        super().__init__(**kwargs)
        self.run_as = run_as
        self.markers = markers
        self.input_name = input_name
        self.feed = feed
        self.retry_on_timeout = retry_on_timeout
        self.storage_settings = dict(storage_settings) if storage_settings else None
        self.waiting_for = ""

    def marker_list(self) -> list[str]:
        return [item for item in str(self.markers).split(",") if item]

    def poke(self, context: Any) -> bool:
        markers = self.marker_list()
        try:
            with acting_for(self.run_as):  # on a Kerberized cluster: what the entity's user may see
                missing = [marker for marker in markers if not exists(marker, self.storage_settings)]
        except StorageError as problem:  # the storage cannot say: fail with why (the task's retries try again)
            raise AirflowException(f"input {self.input_name} (feed {self.feed}): {problem.message}") from None
        self.waiting_for = waiting_text(self.input_name, self.feed, len(markers), missing)
        if missing:
            self.log.info("%s", self.waiting_for)
        return not missing

    def execute(self, context: Any) -> None:
        markers = self.marker_list()
        if not markers:
            self.log.info("input %s resolves to no feed instance for this run; nothing to wait for", self.input_name)
            return
        if self.poke(context):
            return
        deadline = time.time() + float(self.timeout)
        self.defer(trigger=FeedInstancesTrigger(markers, float(self.poke_interval), deadline, self.storage_settings,
                                                  self.run_as),
                   method_name="execute_complete")

    def execute_complete(self, context: Any, event: dict[str, Any]) -> None:
        status = event.get("status")
        if status == "available":
            self.log.info("input %s: all %d instance(s) of feed %s are available", self.input_name,
                          len(self.marker_list()), self.feed)
            return
        if status == "timeout":
            message = (f"TIMEDOUT: input {self.input_name} (feed {self.feed}) still misses "
                       f"{len(event.get('missing', []))} instance(s) after {int(self.timeout)} s, e.g. "
                       f"{(event.get('missing') or ['?'])[0]}")
            if self.retry_on_timeout:
                raise InputsTimedOut(message)
            raise AirflowSensorTimeout(message)
        raise AirflowException(f"input {self.input_name}: {event.get('message', event)}")
