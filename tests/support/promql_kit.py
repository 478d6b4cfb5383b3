"""PromQL read by its parser, for the tests of what the dashboards and alerts query."""

from __future__ import annotations

from collections.abc import Iterator

import promql_parser


def metric_names(expression: str) -> set[str]:
    """The metric names an expression selects (every vector selector in it)."""
    return set(_selectors(promql_parser.parse(expression)))


def _selectors(node: object) -> Iterator[str]:
    if isinstance(node, promql_parser.VectorSelector):
        if node.name:
            yield node.name
        return
    for attribute in ("lhs", "rhs", "expr", "args", "vector_selector", "param"):
        child = getattr(node, attribute, None)
        for item in child if isinstance(child, list) else [child]:
            if item is not None:
                yield from _selectors(item)
