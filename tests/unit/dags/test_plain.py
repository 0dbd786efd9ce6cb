"""Every DAG reaches Airflow's dag-processor manager: the processor sends each parsed DAG, serialized, as msgpack,
which takes plain ``str`` only; the compiler's template text (``JinjaText``, a ``str`` subclass) never gets that
far."""

from __future__ import annotations

from pathlib import Path

import msgspec
from airflow.serialization.serialized_objects import DagSerialization

from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import load_specs
from falcon_airflow.dags.plain import plain

EXAMPLE = Path(__file__).resolve().parents[3] / "entities"


def test_every_dag_of_the_example_is_sent_as_the_dag_processor_sends_it() -> None:
    specs, issues = load_specs(EXAMPLE)
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    kinds = set()
    for spec in specs:
        dag = build_dag(spec)
        encoded = msgspec.msgpack.encode(DagSerialization.to_dict(dag))
        assert encoded, spec.dag_id
        kinds.add(spec.dag_id.split(".")[1])
    assert {"process", "feed"} <= kinds and any(".import." in spec.dag_id for spec in specs)


def test_plain_turns_every_text_into_a_str() -> None:
    class Marked(str):
        pass

    value = plain({Marked("k"): [Marked("a"), (Marked("b"), 1)], "n": None})
    assert value == {"k": ["a", ("b", 1)], "n": None}
    assert {type(item) for item in (*value, value["k"][0], value["k"][1][0])} == {str}
