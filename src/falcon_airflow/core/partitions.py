"""Feed partition expressions: how Falcon joins them and fills in ``${cluster.X}``."""

from __future__ import annotations

import re

_CLUSTER_EXPRESSION = re.compile(r"\$\{(cluster\.[^}]*)\}")


def normalize_partition(*expressions: str | None) -> str:
    """Join partition expressions with '/', collapse repeated slashes, trim slashes and spaces at both ends."""
    joined = "/".join(expression.strip() for expression in expressions if expression is not None)
    return re.sub(r"/+", "/", joined).strip().strip("/").strip()


def evaluate_cluster_expression(expression: str, variables: dict[str, str]) -> str:
    """Replace ``${cluster.X}``; an unknown ``X`` becomes empty, as in Falcon's EL."""
    return _CLUSTER_EXPRESSION.sub(lambda match: variables.get(match[1], ""), expression)
