"""Before a workflow runs, clear its output instances (so a rerun is idempotent); after it succeeds, mark them
available. Both prove a path is an instance of the output feed before touching it, and a folder that holds several
instances (a location coarser than the feed's frequency) is never cleared."""

from __future__ import annotations

from typing import Any

from airflow.sdk import BaseOperator

from falcon_airflow.instances.acting_user import acting_for
from falcon_airflow.instances.bindings import OutputBinding
from falcon_airflow.instances.storage import clear_instance, write_flag
from falcon_airflow.provider.assets import announce_instances
from falcon_airflow.provider.macros import instance


def _outputs(bindings: list[dict[str, Any]]) -> list[OutputBinding]:
    return [OutputBinding.model_validate(item) for item in bindings]


class ClearOutputsOperator(BaseOperator):
    """Falcon's prepare-delete: remove the output instance folders of this run before the workflow writes them."""

    ui_color = "#fdf3e8"

    def __init__(self, *, outputs: list[dict[str, Any]], run_as: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.outputs = outputs
        self.run_as = run_as

    # Both operators log what they did and return nothing: a return value would be one more XCom written through
    # the api-server for every run of every process, and nothing reads it.
    def execute(self, context: Any) -> None:
        with acting_for(self.run_as):  # on a Kerberized cluster: as the entity's user, who owns its outputs
            self._clear(context)

    def _clear(self, context: Any) -> None:
        for binding in _outputs(self.outputs):
            moment = binding.time(instance(context["dag_run"]))
            if moment is None or binding.feed.storage == "table":
                continue
            path = binding.feed.path(moment)
            if binding.feed.shares_folders:  # the folder holds other instances' data too: never this run's to clear
                self.log.warning("output %s instance %s: %s is not cleared: feed %s has several instances in each "
                                 "folder of its location (FA055), the others' data with this one's; the workflow "
                                 "writes into the folder as it is", binding.name, moment, path, binding.feed.feed)
                continue
            if clear_instance(path, binding.feed.location, moment, binding.feed.zone, binding.feed.storage_settings):
                self.log.info("cleared output %s instance %s: %s", binding.name, moment, path)


class MarkOutputsAvailableOperator(BaseOperator):
    """Write each output feed's availability flag into the instance folder the workflow produced, and describe the
    asset event of each output instance (its outlets are the output feeds' assets)."""

    ui_color = "#e8fde9"

    def __init__(self, *, outputs: list[dict[str, Any]], entity: str | None = None, run_as: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.outputs = outputs
        self.entity = entity
        self.run_as = run_as

    def execute(self, context: Any) -> None:
        with acting_for(self.run_as):  # on a Kerberized cluster: the flag is the entity's user's, as its data
            self._mark(context)

    def _mark(self, context: Any) -> None:
        made = []
        for binding in _outputs(self.outputs):
            moment = binding.time(instance(context["dag_run"]))
            if moment is None:
                continue
            made.append((binding.feed, moment, binding.feed.path(moment)))
            if binding.feed.storage == "table" or not binding.feed.availability_flag:
                continue
            flag = write_flag(binding.feed.path(moment), binding.feed.availability_flag,
                              binding.feed.storage_settings)
            self.log.info("output %s instance %s is available: %s", binding.name, moment, flag)
        announce_instances(context, made, operation="GENERATE", entity=self.entity or self.dag_id,
                           entity_type="PROCESS", log=self.log)
