"""Synthetic OpenLineage events of a small Falcon pipeline, shaped as our tasks and the lineage driver emit them.

raw@c1 (hourly, /d/raw/...) --agg--> agg@c1 (/d/agg/...) --report--> report@c1, agg@c1 replicated to agg@c2,
retention of raw@c1 evicting 05:00. Two instances of ``agg``: 05:00 and 06:00.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

PRODUCER = "https://example.com/tests"
SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def _facet(name: str, version: str, **fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": f"https://openlineage.io/spec/facets/{version}/{name}.json"
                                                  f"#/$defs/{name}", **fields}


def dataset(path: str, *, feed: str | None = None, cluster: str = "c1", instance: str | None = None,
            side: str = "inputs", **facets: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"namespace": "file", "name": path, "facets": dict(facets)}
    if feed:
        data["facets"]["symlinks"] = _facet("SymlinksDatasetFacet", "1-0-1", identifiers=[
            {"namespace": f"falcon://{cluster}", "name": feed, "type": "FEED"}])
        if instance:
            key, condition, kind = (("inputFacets", "inputCondition", "InputSubsetInputDatasetFacet")
                                    if side == "inputs" else
                                    ("outputFacets", "outputCondition", "OutputSubsetOutputDatasetFacet"))
            data[key] = {"subset": {"_producer": PRODUCER, "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/"
                                                                        f"BaseSubsetDatasetFacet.json#/$defs/{kind}",
                                    condition: {"type": "partition", "partitions": [{"dimensions": {
                                        "feed": feed, "cluster": cluster, "instance": instance},
                                        "identifier": instance}]}}}
    return data


def column_lineage(fields: dict[str, Sequence[tuple[str, str, str, str]]],
                   whole: Sequence[tuple[str, str, str, str]] = ()) -> dict[str, Any]:
    """{output field: [(input path, input field, type, subtype)]}; ``whole``: dataset-level dependencies."""

    def source(path: str, name: str, kind: str, subtype: str) -> dict[str, Any]:
        return {"namespace": "file", "name": path, "field": name,
                "transformations": [{"type": kind, "subtype": subtype, "masking": False}]}

    return _facet("ColumnLineageDatasetFacet", "1-2-0",
                  fields={name: {"inputFields": [source(*item) for item in items]} for name, items in fields.items()},
                  dataset=[source(*item) for item in whole])


def event(kind: str, job: str, run_id: str, time: str, *, inputs: Sequence[dict[str, Any]] = (),
          outputs: Sequence[dict[str, Any]] = (), parent: str | None = None, nominal: str | None = None,
          run_facets: dict[str, Any] | None = None) -> dict[str, Any]:
    facets: dict[str, Any] = dict(run_facets or {})
    if nominal:
        facets["nominalTime"] = _facet("NominalTimeRunFacet", "1-0-1", nominalStartTime=nominal)
    if parent:
        facets["parent"] = _facet("ParentRunFacet", "1-1-0", run={"runId": parent},
                                  job={"namespace": "default", "name": "parent"})
    return {"eventType": kind, "eventTime": time, "producer": PRODUCER, "schemaURL": SCHEMA,
            "run": {"runId": run_id, "facets": facets}, "job": {"namespace": "default", "name": job, "facets": {}},
            "inputs": list(inputs), "outputs": list(outputs)}


def run(job: str, time: str, **arguments: Any) -> tuple[str, list[dict[str, Any]]]:
    run_id = str(uuid.uuid4())
    later = (datetime.fromisoformat(time) + timedelta(seconds=30)).isoformat()
    return run_id, [event("START", job, run_id, time, **{key: value for key, value in arguments.items()
                                                         if key in ("parent", "nominal", "run_facets", "inputs")}),
                    event("COMPLETE", job, run_id, later, **arguments)]


def pipeline_events() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    tags = {"tags": _facet("TagsRunFacet", "1-0-0", tags=[
        {"key": "pipeline", "value": "sales", "source": "FALCON"}, {"key": "team", "value": "bi", "source": "FALCON"}])}
    for hour in ("05", "06"):
        raw, agg = f"/d/raw/2026/03/01/{hour}", f"/d/agg/2026/03/01/{hour}"
        instance, nominal = f"2026-03-01T{hour}:00Z", f"2026-03-01T{hour}:00:00+00:00"
        task, task_events = run("falcon.process.agg.c1.workflow", f"2026-03-01T{hour}:10:00+00:00",
                                nominal=nominal, run_facets=tags,
                                inputs=[dataset(raw, feed="raw", instance=instance)],
                                outputs=[dataset(agg, feed="agg", instance=instance, side="outputs")])
        events += task_events
        _, spark = run("spark.agg", f"2026-03-01T{hour}:11:00+00:00", parent=task,
                       inputs=[dataset(f"{raw}/part-0.csv")],
                       outputs=[dataset(agg, columnLineage=column_lineage(
                           {"total": [(f"{raw}/part-0.csv", "amount", "DIRECT", "AGGREGATION")],
                            "user": [(f"{raw}/part-0.csv", "user", "DIRECT", "IDENTITY")]},
                           whole=[(f"{raw}/part-0.csv", "country", "INDIRECT", "FILTER")]))])
        events += spark
    _, report = run("falcon.process.report.c1.workflow", "2026-03-01T07:00:00+00:00",
                    nominal="2026-03-01T05:00:00+00:00",
                    inputs=[dataset("/d/agg/2026/03/01/05", feed="agg", instance="2026-03-01T05:00Z")],
                    outputs=[dataset("/d/report/2026/03/01/05", feed="report", instance="2026-03-01T05:00Z",
                                     side="outputs", columnLineage=column_lineage(
                                         {"revenue": [("/d/agg/2026/03/01/05", "total", "DIRECT",
                                                       "TRANSFORMATION")]}))])
    events += report
    _, copy = run("falcon.feed.agg.replication.c1.c2.replicate", "2026-03-01T08:00:00+00:00",
                  inputs=[dataset("/d/agg/2026/03/01/05", feed="agg", instance="2026-03-01T05:00Z")],
                  outputs=[dataset("/e/agg/2026/03/01/05", feed="agg", cluster="c2", instance="2026-03-01T05:00Z",
                                   side="outputs", columnLineage=column_lineage(
                                       {"total": [("/d/agg/2026/03/01/05", "total", "DIRECT", "IDENTITY")],
                                        "user": [("/d/agg/2026/03/01/05", "user", "DIRECT", "IDENTITY")]}))])
    events += copy
    drop = dataset("/d/raw/2026/03/01/05", feed="raw", instance="2026-03-01T05:00Z", side="outputs",
                   lifecycleStateChange=_facet("LifecycleStateChangeDatasetFacet", "1-0-1",
                                               lifecycleStateChange="DROP"))
    _, evict = run("falcon.feed.raw.retention.c1.retention", "2026-03-03T00:00:00+00:00", outputs=[drop])
    events += evict
    return events


@pytest.fixture
def pipeline() -> list[dict[str, Any]]:
    return pipeline_events()


@pytest.fixture
def event_file(tmp_path: Path, pipeline: list[dict[str, Any]]) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in pipeline), encoding="utf-8")
    return path


class Receiver:
    """A Marquez-compatible loopback server for the tests: ``POST /api/v1/lineage`` stores an event (201),
    ``GET /api/v1/events/lineage`` serves them in pages. It answers at most ``limit`` requests (then 429)."""

    def __init__(self, limit: int = 200) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs, urlsplit

        self.events: list[dict[str, Any]] = []
        self.requests = 0
        self.limit = limit
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, code: int, body: Any = None) -> None:
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _counted(self) -> bool:
                receiver.requests += 1
                if receiver.requests > receiver.limit:
                    self._answer(429)
                    return False
                return True

            def do_POST(self) -> None:
                if not self._counted():
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if urlsplit(self.path).path != "/api/v1/lineage":
                    self._answer(404)
                    return
                receiver.events.append(json.loads(body))
                self._answer(201)

            def do_GET(self) -> None:
                if not self._counted():
                    return
                parts = urlsplit(self.path)
                if parts.path != "/api/v1/events/lineage":
                    self._answer(404)
                    return
                query = {key: values[0] for key, values in parse_qs(parts.query).items()}
                offset, limit = int(query.get("offset", 0)), int(query.get("limit", 100))
                self._answer(200, {"events": receiver.events[offset:offset + limit],
                                   "totalCount": len(receiver.events)})

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    try:
        yield server
    finally:
        server.close()
