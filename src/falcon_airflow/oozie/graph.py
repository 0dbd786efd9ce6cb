"""The graph of a workflow for migration review: JSON, Graphviz DOT, or a self-contained SVG.

JSON contract (``falcon-airflow oozie graph WORKFLOW --format json``)::

    {"start": ":start:",
     "nodes": [{"name": ..., "type": "start|end|kill|decision|fork|join|action:<type>"}],
     "edges": [{"from": ..., "to": ..., "kind": "start|ok|error|case|default|fork|join"}]}

Nodes in document order (the start node first), edges in the order of each node's transitions. The SVG is laid
out here, without Graphviz: each node sits in the column of its longest path from the start node.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from falcon_airflow.oozie.model import ActionNode, NodeKind, Workflow
from falcon_airflow.oozie.support import support_of

Graph = dict[str, Any]


def graph_of(workflow: Workflow) -> Graph:
    nodes = [{"name": node.name, "type": node.type_label} for node in workflow.nodes]
    edges = [{"from": node.name, "to": transition.to, "kind": transition.kind.value}
             for node, transition in workflow.edges()]
    return {"start": workflow.start.name, "nodes": nodes, "edges": edges}


def support_of_workflow(workflow: Workflow) -> dict[str, Any]:
    """``--support``: for every action, whether it runs here, what it becomes or why not, and the advice."""
    actions = []
    for action in workflow.actions:
        support = support_of(action)
        actions.append({"name": action.name, "type": action.action_type, "line": action.line,
                        "runs": support.runs, "becomes" if support.runs else "reason": support.becomes,
                        **({"advice": support.advice} if support.advice and not support.runs else {})})
    return {"workflow": workflow.name, "file": workflow.file, "runs": all(item["runs"] for item in actions),
            "actions": actions}


def support_as_text(report: dict[str, Any]) -> str:
    lines = [f"workflow '{report['workflow']}' ({report['file']}): "
             + ("every action runs on falcon-airflow" if report["runs"] else "some actions cannot run here")]
    for item in report["actions"]:
        if item["runs"]:
            lines.append(f"  runs      {item['name']} <{item['type']}>: {item['becomes']}")
        else:
            advice = f"; {item['advice']}" if item.get("advice") else ""
            lines.append(f"  REFUSED   {item['name']} <{item['type']}>: {item['reason']}{advice}")
    if not report["actions"]:
        lines.append("  (no actions)")
    return "\n".join(lines)


_DOT_SHAPES = {
    NodeKind.START: 'shape=circle, label="start", style=filled, fillcolor="#d9f2d9"',
    NodeKind.END: 'shape=doublecircle, style=filled, fillcolor="#d9f2d9"',
    NodeKind.KILL: 'shape=octagon, style=filled, fillcolor="#f8d7da"',
    NodeKind.DECISION: "shape=diamond",
    NodeKind.FORK: 'shape=box, style="rounded,filled", fillcolor="#e2e3e5"',
    NodeKind.JOIN: 'shape=box, style="rounded,filled", fillcolor="#e2e3e5"',
}
_EDGE_STYLES = {
    "ok": 'color="#2e7d32"',
    "error": 'color="#c62828", style=dashed',
    "case": 'color="#1565c0"',
    "default": 'color="#1565c0", style=dotted',
}


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _dot_id(name: str) -> str:
    return '"' + _dot_text(name) + '"'


def to_dot(workflow: Workflow) -> str:
    lines = [f"digraph {_dot_id(workflow.name)} {{", "  rankdir=LR;", '  node [fontname="Helvetica"];',
             '  edge [fontname="Helvetica", fontsize=10];']
    for node in workflow.nodes:
        if isinstance(node, ActionNode):
            runs = support_of(node).runs
            fill = "#ffffff" if runs else "#fff3cd"
            label = f'"{_dot_text(node.name)}\\n<{_dot_text(node.action_type)}>"'  # \n: a line break in DOT
            lines.append(f'  {_dot_id(node.name)} [shape=box, style=filled, fillcolor="{fill}", label={label}];')
        else:
            lines.append(f"  {_dot_id(node.name)} [{_DOT_SHAPES[node.kind]}];")
    for node, transition in workflow.edges():
        kind = transition.kind.value
        style = _EDGE_STYLES.get(kind, "")
        label = f"label={_dot_id(kind)}" if kind in ("ok", "error", "case", "default") else ""
        attributes = ", ".join(item for item in (label, style) if item)
        suffix = f" [{attributes}]" if attributes else ""
        lines.append(f"  {_dot_id(node.name)} -> {_dot_id(transition.to)}{suffix};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- SVG ---------------------------------------------------------------------------------------------------------

_BOX_WIDTH, _BOX_HEIGHT, _COLUMN_GAP, _ROW_GAP, _MARGIN = 150, 44, 70, 26, 20
_FILL = {NodeKind.START: "#d9f2d9", NodeKind.END: "#d9f2d9", NodeKind.KILL: "#f8d7da", NodeKind.DECISION: "#dbe9f6",
         NodeKind.FORK: "#e2e3e5", NodeKind.JOIN: "#e2e3e5", NodeKind.ACTION: "#ffffff"}
_STROKE = {"ok": "#2e7d32", "error": "#c62828", "case": "#1565c0", "default": "#1565c0", "start": "#555555",
           "fork": "#555555", "join": "#555555"}


def _columns(workflow: Workflow) -> dict[str, int]:
    """Each node's column: its longest distance from the start node (unreached nodes go after the rest)."""
    names = {node.name for node in workflow.nodes}
    column: dict[str, int] = {workflow.start.name: 0}
    # relax in document order until nothing moves; bounded by the node count (a loop cannot push forever)
    for _ in range(len(workflow.nodes)):
        moved = False
        for node, transition in workflow.edges():
            if node.name in column and transition.to in names and transition.to != node.name:
                wanted = column[node.name] + 1
                if wanted > column.get(transition.to, -1) and wanted < len(workflow.nodes):
                    column[transition.to] = wanted
                    moved = True
        if not moved:
            break
    last = max(column.values(), default=0) + 1
    for node in workflow.nodes:
        column.setdefault(node.name, last)
    return column


def columns_of(workflow: Workflow) -> dict[str, int]:
    """The column :func:`to_svg` puts each node in (its longest distance from the start node): for a page that
    draws the graph itself."""
    return _columns(workflow)


def to_svg(workflow: Workflow) -> str:
    column = _columns(workflow)
    rows: dict[int, int] = {}
    place: dict[str, tuple[int, int]] = {}
    for node in workflow.nodes:
        if node.name in place:
            continue
        col = column[node.name]
        row = rows.get(col, 0)
        rows[col] = row + 1
        place[node.name] = (_MARGIN + col * (_BOX_WIDTH + _COLUMN_GAP), _MARGIN + row * (_BOX_HEIGHT + _ROW_GAP))
    width = _MARGIN * 2 + (max(column.values(), default=0) + 1) * (_BOX_WIDTH + _COLUMN_GAP)
    height = _MARGIN * 2 + max(rows.values(), default=1) * (_BOX_HEIGHT + _ROW_GAP)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f"<title>{escape(workflow.name)}</title>",
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>']
    for node, transition in workflow.edges():
        if transition.to not in place:
            continue
        (x1, y1), (x2, y2) = place[node.name], place[transition.to]
        kind = transition.kind.value
        dash = ' stroke-dasharray="5,3"' if kind in ("error", "default") else ""
        start = (x1 + _BOX_WIDTH, y1 + _BOX_HEIGHT // 2)
        end = (x2, y2 + _BOX_HEIGHT // 2)
        out.append(f'<path d="M {start[0]} {start[1]} C {start[0] + 30} {start[1]}, {end[0] - 30} {end[1]}, '
                   f'{end[0]} {end[1]}" fill="none" stroke="{_STROKE[kind]}"{dash} marker-end="url(#arrow)">'
                   f"<title>{escape(node.name)} → {escape(transition.to)} ({kind})</title></path>")
    for node in workflow.nodes:
        x, y = place[node.name]
        fill = _FILL[node.kind]
        if isinstance(node, ActionNode) and not support_of(node).runs:
            fill = "#fff3cd"
        out.append(f'<g><rect x="{x}" y="{y}" width="{_BOX_WIDTH}" height="{_BOX_HEIGHT}" rx="8" fill="{fill}" '
                   f'stroke="#444"/><text x="{x + _BOX_WIDTH // 2}" y="{y + 18}" text-anchor="middle" '
                   f'font-weight="bold">{escape(_clip(node.name))}</text><text x="{x + _BOX_WIDTH // 2}" '
                   f'y="{y + 34}" text-anchor="middle" fill="#555">{escape(node.type_label)}</text>'
                   f"<title>{escape(node.name)}: {escape(node.type_label)} (line {node.line or '?'})</title></g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _clip(text: str, length: int = 22) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"


__all__ = ["graph_of", "support_as_text", "support_of_workflow", "to_dot", "to_svg"]
