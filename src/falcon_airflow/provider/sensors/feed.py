"""A process input's feed instances, waited for without holding a worker slot."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from airflow.sdk import BaseSensorOperator
from airflow.sdk.exceptions import AirflowException, AirflowSensorTimeout

from falcon_airflow.instances.storage import exists
from falcon_airflow.provider.triggers.feed import FeedInstancesTrigger


class InputsTimedOut(AirflowException):
    """The inputs did not arrive within the process timeout and the entity retries timed-out instances
    (``retry onTimeout="true"``): unlike AirflowSensorTimeout, this failure is retried."""


class FeedInstanceSensor(BaseSensorOperator):
    """Succeeds when every instance of an input exists: its availability flag when the feed has one, else its
    folder. ``markers`` is a comma-separated, templated list (the compiler renders it from the input binding).

    It checks once on a worker, then defers to :class:`FeedInstancesTrigger` until the data lands or the Falcon
    timeout (measured from the first check) passes; the instance is then TIMEDOUT.
    """

    template_fields: Sequence[str] = ("markers",)
    ui_color = "#e8f4fd"

    def __init__(self, *, markers: str, input_name: str, feed: str, retry_on_timeout: bool = False,
                 **kwargs: Any) -> None:
        kwargs.setdefault("mode", "reschedule")
        super().__init__(**kwargs)
        self.markers = markers
        self.input_name = input_name
        self.feed = feed
        self.retry_on_timeout = retry_on_timeout

    def marker_list(self) -> list[str]:
        return [item for item in str(self.markers).split(",") if item]

    def poke(self, context: Any) -> bool:
        missing = [marker for marker in self.marker_list() if not exists(marker)]
        if missing:
            self.log.info("input %s: %d instance(s) of feed %s not there yet, e.g. %s", self.input_name,
                          len(missing), self.feed, missing[0])
        return not missing

    def execute(self, context: Any) -> None:
        markers = self.marker_list()
        if not markers:
            self.log.info("input %s resolves to no feed instance for this run; nothing to wait for", self.input_name)
            return
        if self.poke(context):
            return
        deadline = time.time() + float(self.timeout)
        self.defer(trigger=FeedInstancesTrigger(markers, float(self.poke_interval), deadline),
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
