"""JSON-value helpers: Python's ``==`` and ``isinstance`` blur ``True`` and ``1``; JSON does not."""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal["object", "array", "primitive"]

_NAMES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def json_type(value: Any) -> str:
    """``"an object"``, ``"a string"``, ... for messages."""
    return _NAMES.get(type(value), type(value).__name__)


def kind(value: Any) -> Kind:
    """The three node kinds the Overlay merge rules distinguish (null is a primitive, RFC 8259)."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "primitive"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers compare by value (``1`` equals ``1.0``), booleans only equal
    booleans, objects ignore key order, arrays do not."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)
