"""The vocabulary of a recorded shape: what kind of difference, the :class:`Difference` a record
holds, and how a value is named as a shape (its JSON type, a string's format, an enum value).

Shared by the recorder (``_shapes``) and the typed comparison (``_shape_walk``), so neither needs
the other's module to describe what it found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Difference", "Kind", "escape_token", "json_type", "string_format"]

MAX_NAME = 128
"""A field name longer than this is not recorded (a name, not a value, is what records hold)."""
MAX_VALUE = 128

Kind = Literal[
    "property-unknown",
    "enum-value-unknown",
    "null-not-allowed",
    "required-missing",
    "union-variant-unknown",
    "type-mismatch",
]


@dataclass(frozen=True)
class Difference:
    """One way a response differed from the document, as a shape (see the module)."""

    kind: Kind
    pointer: str
    documented: str
    seen_type: str
    seen_format: str | None = None
    seen_value: str | int | float | bool | None = None


def json_type(value: Any) -> str:
    """The JSON type name of a parsed JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


_FORMATS = (
    (
        "date-time",
        re.compile(r"\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(:\d\d(\.\d+)?)?([Zz]|[+-]\d\d:?\d\d)?"),
    ),
    ("date", re.compile(r"\d{4}-\d\d-\d\d")),
    ("uuid", re.compile(r"[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")),
    ("email", re.compile(r"[^@\s]{1,64}@[^@\s]+\.[^@\s]+")),
    ("uri", re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")),
)


def string_format(value: Any) -> str | None:
    """The format a string value has, among those the document can state, or None."""
    if not isinstance(value, str) or len(value) > 2048:
        return None
    for name, pattern in _FORMATS:
        if pattern.fullmatch(value):
            return name
    return None


def escape_token(name: str) -> str:
    """One JSON pointer token (RFC 6901)."""
    return name.replace("~", "~0").replace("/", "~1")


def _shape_value(value: Any) -> str | int | float | bool | None:
    """An enum or tag value as recorded: scalars only, long strings never."""
    if isinstance(value, str):
        return value if len(value) <= MAX_VALUE else None
    if isinstance(value, bool | int | float):
        return value
    return None
