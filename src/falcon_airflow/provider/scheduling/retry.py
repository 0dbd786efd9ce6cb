"""Falcon's retry policies on Airflow's retry-policy hook: the wait after each failed attempt is Falcon's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from airflow.sdk.definitions.retry_policy import RetryDecision, RetryPolicy

from falcon_airflow.timekeeping.policies import retry_wait


class FalconRetryPolicy(RetryPolicy):
    """periodic: the delay every time; exp-backoff: delay x 2^n after the n-th failed run (from 0); final: now."""

    def __init__(self, policy: str, delay_seconds: int) -> None:
        self.policy = policy
        self.delay_seconds = delay_seconds

    def evaluate(self, exception: BaseException, try_number: int, max_tries: int,
                 context: Any = None) -> RetryDecision:
        wait = retry_wait(self.policy, timedelta(seconds=self.delay_seconds), try_number - 1)
        return RetryDecision.retry(delay=wait, reason=f"Falcon {self.policy} retry after {wait}")

    def serialize(self) -> dict[str, Any]:
        return {"policy": self.policy, "delay_seconds": self.delay_seconds}

    @classmethod
    def deserialize(cls, data: dict[str, Any]) -> FalconRetryPolicy:
        return cls(data["policy"], int(data["delay_seconds"]))
