"""The HTTP methods a path item may hold, the operations a document lists, and where a stream's
item schema is written: one answer for builder, drift and fetch."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# ``query`` (a safe method with a body) is OpenAPI 3.2's.
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")
# OpenAPI 3.2 path items list other methods under this key, spelled as they are sent.
ADDITIONAL = "additionalOperations"
# A streamed media type names the schema of one item (an event, a JSON line): OpenAPI 3.2's
# ``itemSchema``, or this extension in 3.0/3.1 documents.
ITEM_SCHEMA_KEYS = ("itemSchema", "x-cube-item-schema")
# An HTTP method is a token (RFC 9110, section 5.6.2).
METHOD_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def path_operations(item: Any) -> Iterator[tuple[str, tuple[str, ...], Any]]:
    """``(wire method, keys from the path item to the operation, operation node)`` of every
    operation of a path item: the fixed method fields (sent upper-cased), then OpenAPI 3.2's
    ``additionalOperations`` (sent as spelled). Nodes are yielded as found; callers check them.
    An additional operation whose name is not a method token, or that repeats a fixed field, is
    left out (validation reports it)."""
    if not isinstance(item, dict):
        return
    for method in HTTP_METHODS:
        if method in item:
            yield method.upper(), (method,), item[method]
    extra = item.get(ADDITIONAL)
    if isinstance(extra, dict):
        for name, op in extra.items():
            if additional_method_problem(name) is None:
                yield name, (ADDITIONAL, name), op


def additional_method_problem(name: object) -> str | None:
    """Why ``name`` cannot key ``additionalOperations``, or None when it can."""
    if not isinstance(name, str) or not METHOD_TOKEN.fullmatch(name):
        return "is not an HTTP method token"
    if name.lower() in HTTP_METHODS:
        return f"belongs in the path item's `{name.lower()}` field"
    return None


def operation_keys(document: Any) -> set[str]:
    """``METHOD /path`` of every operation written directly in ``paths`` (no IR, no refs)."""
    paths = document.get("paths") if isinstance(document, dict) else None
    if not isinstance(paths, dict):
        return set()
    return {
        f"{method} {path}"
        for path, item in paths.items()
        for method, _, op in path_operations(item)
        if isinstance(op, dict)
    }
