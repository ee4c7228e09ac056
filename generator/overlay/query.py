"""RFC 9535 JSONPath via ``jsonpath_rfc9535``: compile with a one-line error, select distinct nodes.

The specification requires full RFC 9535; tool-specific syntax (``~`` for keys, ``$.x-y`` without
brackets, script filters) is rejected here rather than guessed at.
"""

from __future__ import annotations

from typing import Any

import jsonpath_rfc9535 as jp

from generator.diagnostics import CodegenError, Diagnostic, one_line

Location = tuple[str | int, ...]

JSONPATH_INVALID = "overlay-jsonpath-invalid"
JSONPATH_FAILED = "overlay-jsonpath-failed"
"""Evaluation failed, e.g. the library's recursion limit on ``..`` over a very deep document."""


def compile_query(expr: str, file: str, ptr: str, label: str) -> Any:
    """Compile one query; ``label`` (e.g. ``action #2 target``) names it in the error."""
    try:
        return jp.compile(expr)
    except (jp.JSONPathError, RecursionError) as exc:
        message = f"{label} {one_line(expr, 120)!s} is not an RFC 9535 JSONPath query: {exc}"
        raise CodegenError(Diagnostic(JSONPATH_INVALID, "error", file, ptr, message)) from None


def select(
    query: Any, document: Any, file: str, ptr: str, label: str
) -> list[tuple[Location, Any]]:
    """Evaluate a compiled query; each selected node once (RFC 9535 allows duplicates), in order."""
    try:
        nodes = query.find(document)
    except (jp.JSONPathError, RecursionError) as exc:
        message = f"{label}: {one_line(str(query), 120)} cannot be evaluated: {exc}"
        raise CodegenError(Diagnostic(JSONPATH_FAILED, "error", file, ptr, message)) from None
    seen: set[Location] = set()
    out: list[tuple[Location, Any]] = []
    for node in nodes:
        location: Location = tuple(node.location)
        if location not in seen:
            seen.add(location)
            out.append((location, node.value))
    return out
