"""The HTTP methods a path item may hold, and the operations a document lists."""

from __future__ import annotations

from typing import Any

# ``query`` (a safe method with a body) is OpenAPI 3.2's.
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")


def operation_keys(document: Any) -> set[str]:
    """``METHOD /path`` of every operation written directly in ``paths`` (no IR, no refs)."""
    paths = document.get("paths") if isinstance(document, dict) else None
    if not isinstance(paths, dict):
        return set()
    return {
        f"{method.upper()} {path}"
        for path, item in paths.items()
        if isinstance(item, dict)
        for method in HTTP_METHODS
        if isinstance(item.get(method), dict)
    }
