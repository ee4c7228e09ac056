"""Keep an OpenAPI document's structure, drop its prose.

A published document's descriptions, summaries, examples and vendor annotations are its authors'
text; its operations, parameters, schemas, enums and ``required`` lists are the facts a client is
built from. :func:`structure_only` keeps the second and drops the first, so a snapshot can be
committed without carrying anybody's sentences. The walk knows which mappings are keyed by names
(``properties``, ``paths``, ``responses``, ...): a property that happens to be called
``description`` is structure and stays.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PROSE_KEYS", "structure_only"]

PROSE_KEYS = frozenset({"description", "summary", "example", "examples", "externalDocs"})
"""Keywords whose values are text or samples written by the document's authors."""

_NAME_MAPS = frozenset(
    {
        # JSON Schema: keys are property or definition names
        "properties",
        "patternProperties",
        "dependentSchemas",
        "$defs",
        "definitions",
        # OpenAPI: keys are paths, status codes, media types, header names, component names
        "paths",
        "webhooks",
        "callbacks",
        "responses",
        "headers",
        "content",
        "encoding",
        "links",
        "variables",
        "schemas",
        "parameters",
        "requestBodies",
        "securitySchemes",
        "pathItems",
        "mediaTypes",
    }
)
"""Mappings whose keys are names chosen by the document, not keywords."""

_DATA_KEYS = frozenset({"default", "enum", "const", "mapping"})
"""Keywords whose values are data: kept as they are, never walked as schema objects."""

_OAUTH_FLOW_KEYS = frozenset({"authorizationUrl", "tokenUrl", "refreshUrl"})


def _described(response: Any) -> Any:
    """A Response Object must have a ``description``: an empty one keeps the document valid."""
    if isinstance(response, dict) and "$ref" not in response:
        return {"description": "", **response}
    return response


def structure_only(document: Any) -> Any:
    """A copy of ``document`` without prose keywords and vendor (``x-``) annotations."""
    return _walk(document, names=False)


def _walk(node: Any, *, names: bool) -> Any:
    if isinstance(node, list):
        return [_walk(item, names=False) for item in node]
    if not isinstance(node, dict):
        return node
    if names:  # keys are names: keep every one, walk each value as an object
        return {key: _walk(value, names=False) for key, value in node.items()}
    out: dict[Any, Any] = {}
    is_flow = any(key in node for key in _OAUTH_FLOW_KEYS)
    for key, value in node.items():
        if key in PROSE_KEYS or (isinstance(key, str) and key.startswith("x-")):
            continue
        if key in _DATA_KEYS:
            out[key] = value
        elif key == "scopes" and is_flow and isinstance(value, dict):
            out[key] = dict.fromkeys(value, "")  # scope names are structure, their texts prose
        elif key in _NAME_MAPS and isinstance(value, dict):
            out[key] = _walk(value, names=True)
            if key == "responses":
                out[key] = {code: _described(r) for code, r in out[key].items()}
        else:
            out[key] = _walk(value, names=False)
    return out
