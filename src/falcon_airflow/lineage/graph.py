"""Falcon's entity graph from entity files and/or OpenLineage events, as JSON, Graphviz DOT or SVG.

Vertices and edge labels follow Falcon's own lineage graph (``RelationshipType`` / ``RelationshipLabel``):

=================== ===========================================================================================
vertex type         ``cluster``, ``data-center`` (a cluster's colo), ``feed``, ``process``, ``user`` (ACL owner),
                    ``tag`` (``key=value``), ``group`` (feed groups), ``pipeline``; with instances also
                    ``process-instance`` (``process/yyyy-MM-ddTHH:mmZ``) and ``feed-instance``
                    (``feed@cluster/yyyy-MM-ddTHH:mmZ``)
edge label          ``stored-in`` (feed -> cluster), ``runs-on`` (process -> cluster), ``input`` (feed -> process),
                    ``output`` (process -> feed), ``owned-by`` (entity -> user), ``grouped-as`` (feed -> group),
                    ``pipeline`` (process -> pipeline), ``replicated-to`` (feed -> target cluster),
                    ``collocated`` (cluster -> data-center), ``instance-of`` (instance -> entity); a tag edge is
                    labelled by the tag's key, as Falcon did
=================== ===========================================================================================

From events: feeds are read from the ``symlinks`` of datasets, processes and clusters from the job names of our
DAGs (``falcon.process.<p>.<cluster>.<task>``, ``falcon.feed.<f>.replication.<src>.<dst>.<task>`` ...), owners
from ``ownership`` facets and tags, pipelines and groups from ``tags`` facets of source ``FALCON``.

The SVG is drawn here (no Graphviz needed): a layered layout, left to right - owners and tags, then feeds and
processes in data-flow order, then clusters and data centers - with nodes ordered by their neighbours' positions.
Standard library only (the entity files are read with the project's own parser).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.naming import parse_job_name

if TYPE_CHECKING:
    from falcon_airflow.lineage.query import LineageIndex
    from falcon_airflow.workspace import Workspace

META_TYPES = ("user", "tag", "group", "pipeline")
FLOW_TYPES = ("feed", "process", "feed-instance", "process-instance")
PLACE_TYPES = ("cluster", "data-center")
COLORS = {"cluster": "#dbe9f6", "data-center": "#eeeeee", "feed": "#e3f4e6", "process": "#fde8cc",
          "user": "#efe3f6", "tag": "#fff6bf", "group": "#dff4f7", "pipeline": "#fbe3ea",
          "feed-instance": "#f1faf2", "process-instance": "#fef4e6"}
SHAPES = {"cluster": "box3d", "data-center": "house", "feed": "cylinder", "process": "box", "user": "ellipse",
          "tag": "note", "group": "folder", "pipeline": "cds", "feed-instance": "cylinder",
          "process-instance": "box"}


@dataclass
class Node:
    id: str
    type: str
    name: str
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class Graph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], None] = field(default_factory=dict)

    def node(self, kind: str, name: str, **attributes: Any) -> str:
        key = f"{kind}:{name}"
        found = self.nodes.setdefault(key, Node(key, kind, name))
        found.attributes.update({name_: value for name_, value in attributes.items() if value is not None})
        return key

    def edge(self, source: str, target: str, label: str) -> None:
        self.edges[(source, target, label)] = None

    def as_json(self) -> dict[str, Any]:
        return {"nodes": [{"id": node.id, "type": node.type, "name": node.name, **(
                    {"attributes": node.attributes} if node.attributes else {})}
                          for node in sorted(self.nodes.values(), key=lambda item: (item.type, item.name))],
                "edges": [{"from": source, "to": target, "label": label}
                          for source, target, label in sorted(self.edges)]}

    # -- shared vocabulary ---------------------------------------------------------------------------------------

    def owner(self, entity: str, owner: str | None) -> None:
        if owner:
            self.edge(entity, self.node("user", owner.removeprefix("user:")), "owned-by")

    def tag(self, entity: str, key: str, value: str) -> None:
        if key == "pipeline":
            self.edge(entity, self.node("pipeline", value), "pipeline")
        elif key == "group":
            self.edge(entity, self.node("group", value), "grouped-as")
        else:
            self.edge(entity, self.node("tag", f"{key}={value}"), key)


def add_workspace(graph: Graph, workspace: Workspace) -> Graph:
    """The entities of a workspace: clusters and their colos, feeds, processes, owners, tags, groups, pipelines."""
    for cluster in workspace.clusters.values():
        node = graph.node("cluster", cluster.name, colo=cluster.colo)
        graph.edge(node, graph.node("data-center", cluster.colo), "collocated")
        graph.owner(node, cluster.acl.owner if cluster.acl else None)
        for key, value in cluster.tag_pairs:
            graph.tag(node, key, value)
    for feed in workspace.feeds.values():
        node = graph.node("feed", feed.name, frequency=str(feed.frequency))
        graph.owner(node, feed.acl.owner)
        for key, value in feed.tag_pairs:
            graph.tag(node, key, value)
        for group in feed.groups:
            graph.tag(node, "group", group)
        for placement in feed.clusters:
            graph.edge(node, graph.node("cluster", placement.name), "stored-in")
            if placement.is_target:
                graph.edge(node, graph.node("cluster", placement.name), "replicated-to")
    for process in workspace.processes.values():
        node = graph.node("process", process.name, frequency=str(process.frequency))
        graph.owner(node, process.acl.owner if process.acl else None)
        for key, value in process.tag_pairs:
            graph.tag(node, key, value)
        for pipeline in process.pipelines:
            graph.tag(node, "pipeline", pipeline)
        for process_cluster in process.clusters:
            graph.edge(node, graph.node("cluster", process_cluster.name), "runs-on")
        for item in process.inputs:
            graph.edge(graph.node("feed", item.feed), node, "input")
        for output in process.outputs:
            graph.edge(node, graph.node("feed", output.feed), "output")
    return graph


def _falcon_tags(facets: dict[str, Any]) -> list[tuple[str, str]]:
    tags = (facets.get("tags") or {}).get("tags") or []
    return [(str(item["key"]), str(item["value"])) for item in tags
            if isinstance(item, dict) and item.get("source") == "FALCON" and "key" in item and "value" in item]


def add_events(graph: Graph, index: LineageIndex, *, instances: bool = False) -> Graph:
    """What the events tell: feeds (symlinks), processes and clusters (job names), owners, tags, data flow."""
    for known in index.instances.values():
        for item in known:
            feed = graph.node("feed", item.feed)
            graph.edge(feed, graph.node("cluster", item.cluster), "stored-in")
            for owner in sorted(index.owners.get((item.cluster, item.feed), ())):
                graph.owner(feed, owner)
    for run in index.runs.values():
        name = parse_job_name(run.job_name)
        if name is None:
            continue
        if name.kind == "process":
            process = graph.node("process", name.entity)
            graph.edge(process, graph.node("cluster", name.clusters[0]), "runs-on")
            for owner in (run.job_facets.get("ownership") or {}).get("owners") or []:
                if isinstance(owner, dict) and owner.get("name"):
                    graph.owner(process, str(owner["name"]))
            for key, value in _falcon_tags(run.run_facets):
                graph.tag(process, key, value)
            instance_node = None
            if instances and run.nominal_start and name.task == "workflow":
                instance_node = graph.node("process-instance", f"{name.entity}/{_short(run.nominal_start)}")
                graph.edge(instance_node, process, "instance-of")
            for uses, label in ((run.inputs, "input"), (run.outputs, "output")):
                for dataset, use in uses.items():
                    for item in index.instances_of(dataset):
                        feed = graph.node("feed", item.feed)
                        if label == "input":
                            graph.edge(feed, process, label)
                        else:
                            graph.edge(process, feed, label)
                        if instance_node is not None and item.instance:
                            feed_instance = graph.node("feed-instance", f"{item.feed}@{item.cluster}/{item.instance}",
                                                       path=dataset.uri)
                            graph.edge(feed_instance, feed, "instance-of")
                            if label == "input":
                                graph.edge(feed_instance, instance_node, label)
                            else:
                                graph.edge(instance_node, feed_instance, label)
                    for key, value in _falcon_tags(use.data.get("facets") or {}):
                        for item in index.instances_of(dataset):
                            graph.tag(graph.node("feed", item.feed), key, value)
        elif name.kind in ("retention", "replication"):
            feed = graph.node("feed", name.entity)
            for cluster in name.clusters:
                graph.edge(feed, graph.node("cluster", cluster), "stored-in")
            if name.kind == "replication" and len(name.clusters) == 2:
                graph.edge(feed, graph.node("cluster", name.clusters[1]), "replicated-to")
            for key, value in _falcon_tags(run.run_facets):
                graph.tag(feed, key, value)
    return graph


def _short(moment: str) -> str:
    """``2026-03-01T05:00:00+00:00`` to Falcon's ``2026-03-01T05:00Z``."""
    from falcon_airflow.core.times import format_instant
    from falcon_airflow.lineage.query import parse_time

    try:
        return format_instant(parse_time(moment))
    except ValueError:
        return moment


# -- DOT ---------------------------------------------------------------------------------------------------------


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: Graph) -> str:
    lines = ["digraph falcon {", "  rankdir=LR;", '  node [style=filled, fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];']
    for node in sorted(graph.nodes.values(), key=lambda item: item.id):
        lines.append(f"  {_dot_id(node.id)} [label={_dot_id(node.name)}, shape={SHAPES.get(node.type, 'box')}, "
                     f"fillcolor={_dot_id(COLORS.get(node.type, '#ffffff'))}, tooltip={_dot_id(node.type)}];")
    for source, target, label in sorted(graph.edges):
        lines.append(f"  {_dot_id(source)} -> {_dot_id(target)} [label={_dot_id(label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- SVG ---------------------------------------------------------------------------------------------------------

NODE_HEIGHT = 28
ROW_GAP = 18
COLUMN_GAP = 90
BAND_GAP = 70
MARGIN = 24
CHAR_WIDTH = 6.6
MAX_SHIFT = 160.0

Box = tuple[float, float, float]
"""x, y (top left) and width of a node."""


def _columns(graph: Graph) -> dict[str, int]:
    """Column of each flow or place node: data flow 0.. (longest path of input/output edges), then clusters, then
    data centers. Metadata nodes (owners, tags, groups, pipelines) go in a band below."""
    flow = {key for key, node in graph.nodes.items() if node.type in FLOW_TYPES}
    rank = dict.fromkeys(flow, 0)
    flow_edges = [(source, target) for source, target, label in graph.edges
                  if label in ("input", "output") and source in flow and target in flow]
    for _ in range(len(flow) + 1):  # longest path; a cycle just stops growing after |flow| rounds
        changed = False
        for source, target in flow_edges:
            if rank[target] < rank[source] + 1:
                rank[target] = rank[source] + 1
                changed = True
        if not changed:
            break
    after = max(rank.values(), default=-1) + 1
    columns = dict(rank)
    for key, node in graph.nodes.items():
        if node.type in PLACE_TYPES:
            columns[key] = after + (1 if node.type == "data-center" else 0)
    return columns


def _neighbours(graph: Graph) -> dict[str, list[str]]:
    neighbours: dict[str, list[str]] = {key: [] for key in graph.nodes}
    for source, target, _ in graph.edges:
        neighbours[source].append(target)
        neighbours[target].append(source)
    return neighbours


def _order(graph: Graph, columns: dict[str, int], neighbours: dict[str, list[str]]) -> dict[int, list[str]]:
    """Nodes of each column, ordered by the mean row of their neighbours in the columns already placed (instances
    before entities)."""
    by_column: dict[int, list[str]] = {}
    for key in sorted(columns, key=lambda item: (graph.nodes[item].type, graph.nodes[item].name)):
        by_column.setdefault(columns[key], []).append(key)
    position: dict[str, float] = {}
    for column in sorted(by_column):
        def weight(key: str) -> float:
            placed = [position[other] for other in neighbours[key] if other in position]
            return sum(placed) / len(placed) if placed else float("inf")

        # instances above, their entities below: the edges down to the band of owners and tags leave from them
        by_column[column].sort(key=lambda key: (graph.nodes[key].type in ("feed", "process"), weight(key),
                                                graph.nodes[key].name))
        position.update({key: float(row) for row, key in enumerate(by_column[column])})
    return by_column


def _layout(graph: Graph) -> tuple[dict[str, Box], float, float]:
    widths = {key: max(60.0, len(node.name) * CHAR_WIDTH + 20) for key, node in graph.nodes.items()}
    neighbours = _neighbours(graph)
    columns = _columns(graph)
    boxes: dict[str, Box] = {}
    x = float(MARGIN)
    bottom = float(MARGIN)
    for _column, keys in sorted(_order(graph, columns, neighbours).items()):
        column_width = max(widths[key] for key in keys)
        for row, key in enumerate(keys):
            y = MARGIN + row * (NODE_HEIGHT + ROW_GAP)
            boxes[key] = (x + (column_width - widths[key]) / 2, y, widths[key])
            bottom = max(bottom, y + NODE_HEIGHT)
        x += column_width + COLUMN_GAP
    right = x - COLUMN_GAP if boxes else float(MARGIN)
    # The band of owners, tags, groups and pipelines: each below the mean of its neighbours, packed in rows.
    meta = [key for key, node in graph.nodes.items() if node.type in META_TYPES]

    def wanted(key: str) -> float:
        placed = [boxes[other][0] + boxes[other][2] / 2 for other in neighbours[key] if other in boxes]
        return sum(placed) / len(placed) - widths[key] / 2 if placed else MARGIN

    rows: list[float] = []  # the right end of each row so far
    band = bottom + BAND_GAP if boxes else float(MARGIN)
    for key in sorted(meta, key=lambda item: (wanted(item), graph.nodes[item].name)):
        left = max(float(MARGIN), wanted(key))
        # the row where it moves least to the right of where it wants to be; a new row if that is far
        shifts = [max(0.0, end + 12 - left) for end in rows]
        number = min(range(len(rows)), key=lambda row: (shifts[row], row), default=0)
        if not rows or shifts[number] > MAX_SHIFT:
            number = len(rows)
            rows.append(float("-inf"))
        left = max(left, rows[number] + 12)
        rows[number] = left + widths[key]
        boxes[key] = (left, band + number * (NODE_HEIGHT + ROW_GAP), widths[key])
        right = max(right, left + widths[key])
    height = band + len(rows) * (NODE_HEIGHT + ROW_GAP) if rows else bottom
    return boxes, right + MARGIN, height + MARGIN + 12


def layout(graph: Graph) -> tuple[dict[str, Box], float, float]:
    """Where :func:`to_svg` puts each node (x, y of its top left corner, its width; every node is
    :data:`NODE_HEIGHT` high) and the drawing's width and height: for a page that draws the graph itself."""
    return _layout(graph)


Point = tuple[float, float]
Curve = tuple[Point, Point, Point, Point]
"""A cubic Bezier: start, two control points, end."""


def _curve(source: Box, target: Box) -> tuple[Curve, float]:
    """A curve from one box to another - sideways between columns, downwards into the band below - and how far
    above the curve its label's baseline sits."""
    sx, sy, sw = source
    tx, ty, tw = target
    if ty >= sy + NODE_HEIGHT + BAND_GAP / 2 or sy >= ty + NODE_HEIGHT + BAND_GAP / 2:  # to or from the band
        down = ty > sy
        x1, y1 = sx + sw / 2, sy + (NODE_HEIGHT if down else 0)
        x2, y2 = tx + tw / 2, ty + (0 if down else NODE_HEIGHT)
        bend = max(20.0, abs(y2 - y1) / 2) * (1 if down else -1)
        return ((x1, y1), (x1, y1 + bend), (x2, y2 - bend), (x2, y2)), 0.0
    if sx + sw <= tx:  # left to right: leave on the right, come in on the left
        x1, x2, out, into = sx + sw, tx, 1, -1
    elif tx + tw <= sx:  # right to left
        x1, x2, out, into = sx, tx + tw, -1, 1
    else:  # same column: a loop on the right
        x1, x2, out, into = sx + sw, tx + tw, 1, 1
    y1, y2 = sy + NODE_HEIGHT / 2, ty + NODE_HEIGHT / 2
    bend = max(30.0, abs(x2 - x1) / 2)
    return ((x1, y1), (x1 + out * bend, y1), (x2 + into * bend, y2), (x2, y2)), 3.0


def _path(curve: Curve) -> str:
    (x1, y1), (c1x, c1y), (c2x, c2y), (x2, y2) = curve
    return f"M {x1:.1f} {y1:.1f} C {c1x:.1f} {c1y:.1f}, {c2x:.1f} {c2y:.1f}, {x2:.1f} {y2:.1f}"


def _at(curve: Curve, t: float) -> Point:
    """The point of the curve at ``t`` (0: its start, 1: its end)."""
    (x1, y1), (c1x, c1y), (c2x, c2y), (x2, y2) = curve
    a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t ** 2, t ** 3
    return a * x1 + b * c1x + c * c2x + d * x2, a * y1 + b * c1y + c * c2y + d * y2


LABEL_CHAR_WIDTH = 4.6  # font-size 8, Helvetica: an upper bound of the average advance
LABEL_HEIGHT = 9.0
LABEL_STEP = LABEL_HEIGHT + 1  # one label's height and a pixel: the vertical step between candidate spots
ALONG = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)
"""Where along its curve a label is tried, the middle first: sliding along the edge keeps it next to its curve."""
ASIDE = 4
"""How many steps above and below the curve a label is tried at each of those places before it moves further down."""

Rect = tuple[float, float, float, float]
"""left, top, right, bottom"""


def label_box(x: float, y: float, text: str) -> Rect:
    """The box (left, top, right, bottom) a centred edge label of ``text`` takes at baseline ``y``."""
    half = len(text) * LABEL_CHAR_WIDTH / 2
    return x - half, y - LABEL_HEIGHT + 2, x + half, y + 2


def _overlaps(one: Rect, other: Rect) -> bool:
    return one[0] < other[2] and other[0] < one[2] and one[1] < other[3] and other[1] < one[3]


class _Occupied:
    """The boxes taken so far (nodes, labels placed), bucketed on a coarse grid so that a candidate spot is compared
    with its neighbours only (a large estate has thousands of labels)."""

    CELL = 64.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[Rect]] = {}

    def _keys(self, box: Rect) -> list[tuple[int, int]]:
        left, top = int(box[0] // self.CELL), int(box[1] // self.CELL)
        right, bottom = int(box[2] // self.CELL), int(box[3] // self.CELL)
        return [(column, row) for column in range(left, right + 1) for row in range(top, bottom + 1)]

    def add(self, box: Rect) -> None:
        for key in self._keys(box):
            self.cells.setdefault(key, []).append(box)

    def free(self, box: Rect) -> bool:
        return not any(_overlaps(box, other) for key in self._keys(box) for other in self.cells.get(key, ()))


def _free_spot(occupied: _Occupied, curve: Curve, lift: float, text: str) -> tuple[float, float]:
    """Where a label of ``text`` goes (x, baseline): the spot nearest its curve's middle that overlaps no node and
    no label placed before (tried along the curve, then a step further off it each round; below everything there is
    always room), recorded as taken. Never above or left of the picture."""

    def taken(x: float, y: float) -> bool:
        box = label_box(x, y, text)
        return box[0] < 1 or box[1] < 1 or not occupied.free(box)

    spots = [(x, y - lift) for x, y in (_at(curve, t) for t in ALONG)]
    for step in range(2 * ASIDE + 1):
        offset = (step + 1) // 2 * LABEL_STEP * (1 if step % 2 else -1)
        for x, y in spots:
            if not taken(x, y + offset):
                occupied.add(label_box(x, y + offset, text))
                return x, y + offset
    x, y = spots[0]
    x = max(x, len(text) * LABEL_CHAR_WIDTH / 2 + 1)
    y += (ASIDE + 1) * LABEL_STEP
    while taken(x, y):
        y += LABEL_STEP
    occupied.add(label_box(x, y, text))
    return x, y


def to_svg(graph: Graph) -> str:
    boxes, width, height = _layout(graph)
    occupied = _Occupied()
    for bx, by, bw in boxes.values():  # a label never sits on a node (the node would hide it)
        occupied.add((bx - 1, by - 1, bx + bw + 1, by + NODE_HEIGHT + 1))
    merged: dict[tuple[str, str], list[str]] = {}  # parallel edges share one curve and one label
    for source, target, label in sorted(graph.edges):
        merged.setdefault((source, target), []).append(label)
    curves = []
    texts = []
    for (source, target), labels in merged.items():
        label = ", ".join(labels)
        curve, lift = _curve(boxes[source], boxes[target])
        label_x, label_y = _free_spot(occupied, curve, lift, label)
        curves.append(f'<path d="{_path(curve)}" marker-end="url(#arrow)"><title>{escape(label)}</title></path>')
        # a white halo keeps the label readable where it crosses another curve
        texts.append(f'<text x="{label_x:.1f}" y="{label_y:.1f}" font-size="8" fill="#555" stroke="#ffffff" '
                     f'stroke-width="3" paint-order="stroke" text-anchor="middle">{escape(label)}</text>')
        box = label_box(label_x, label_y, label)
        width, height = max(width, box[2] + MARGIN), max(height, box[3] + MARGIN + 12)  # the legend stays below
    width, height = max(width, 200.0), max(height, 80.0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif">',
             "<title>Falcon entity graph</title>",
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
             'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>',
             f'<rect width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
             '<g class="edges" fill="none" stroke="#888" stroke-width="1">', *curves, "</g>"]
    parts.append('<g class="edge-labels">')
    parts.extend(texts)
    parts.append("</g>")
    parts.append('<g class="nodes" font-size="11">')
    for key, (bx, by, bw) in boxes.items():
        node = graph.nodes[key]
        radius = 14 if node.type in META_TYPES else 4
        parts.append(f'<g class="node {escape(node.type)}"><title>{escape(node.type)}: {escape(node.name)}</title>'
                     f'<rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" height="{NODE_HEIGHT}" rx="{radius}" '
                     f'fill="{COLORS.get(node.type, "#ffffff")}" stroke="#666"/>'
                     f'<text x="{bx + bw / 2:.1f}" y="{by + NODE_HEIGHT / 2 + 4:.1f}" text-anchor="middle">'
                     f"{escape(node.name)}</text></g>")
    parts.append("</g>")
    legend_x = MARGIN
    parts.append(f'<g class="legend" font-size="9" transform="translate(0 {height - 6:.0f})">')
    for kind in (*FLOW_TYPES, *PLACE_TYPES, *META_TYPES):
        if any(node.type == kind for node in graph.nodes.values()):
            parts.append(f'<rect x="{legend_x}" y="-9" width="10" height="10" fill="{COLORS[kind]}" stroke="#666"/>'
                         f'<text x="{legend_x + 13}" y="0">{escape(kind)}</text>')
            legend_x += int(len(kind) * 5.5) + 28
    parts.append("</g></svg>")
    return "\n".join(parts) + "\n"


def build_graph(workspace: Workspace | None = None, index: LineageIndex | None = None, *,
                instances: bool = False) -> Graph:
    graph = Graph()
    if workspace is not None:
        add_workspace(graph, workspace)
    if index is not None:
        add_events(graph, index, instances=instances)
    return graph


def render(graph: Graph, kind: str) -> str:
    if kind == "dot":
        return to_dot(graph)
    if kind == "svg":
        return to_svg(graph)
    import json

    return json.dumps(graph.as_json(), indent=2) + "\n"


__all__ = ["Graph", "Node", "add_events", "add_workspace", "build_graph", "layout", "render", "to_dot", "to_svg"]
