"""The task of the ``falcon.invalid-entities`` DAG: running it fails with the list of invalid definitions."""

from __future__ import annotations

from typing import Any

from airflow.sdk import BaseOperator
from airflow.sdk.exceptions import AirflowFailException


class FailWithIssuesOperator(BaseOperator):
    ui_color = "#fde8e8"

    def __init__(self, *, issues: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.issues = issues

    def execute(self, context: Any) -> None:
        for issue in self.issues:
            self.log.error("%s", issue)
        raise AirflowFailException(f"{len(self.issues)} Falcon entity problem(s); see the log and the DAG docs")
