"""The values of a query result's members: each member's kind from the annotation, and the
conversion of a value by its kind (shared by the rows in ``_results`` and the frames in
``_frames``, so neither imports the other)."""

from __future__ import annotations

import datetime
import decimal
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "NUMBER_TYPES",
    "columns_of",
    "converter",
    "member_kinds",
    "to_bool",
    "to_number",
    "to_time",
]

NUMBER_TYPES = frozenset(
    {"number", "count", "sum", "avg", "min", "max", "countDistinct", "countDistinctApprox",
     "runningTotal"}
)  # fmt: skip
_INTEGER = re.compile(r"[+-]?\d+\Z")
_ANNOTATION_GROUPS = ("dimensions", "timeDimensions", "measures")


def member_kinds(annotation: Any) -> dict[str, str]:
    """Each annotated member's kind: ``number``, ``time``, ``boolean`` or ``string``."""
    kinds: dict[str, str] = {}
    groups = annotation if isinstance(annotation, dict) else {}
    for group in _ANNOTATION_GROUPS:
        members = groups.get(group)
        for name, info in (members if isinstance(members, dict) else {}).items():
            declared = info.get("type") if isinstance(info, dict) else None
            kinds[name] = (
                "number" if declared in NUMBER_TYPES
                else declared if declared in ("time", "boolean")
                else "string"
            )  # fmt: skip
    return kinds


def to_number(value: Any, exact: bool = False) -> Any:
    """``"5"`` → 5, ``"2.5"`` → 2.5 (``Decimal("2.5")`` when ``exact``); None stays None."""
    if isinstance(value, str):
        if _INTEGER.match(value):
            return int(value)
        return decimal.Decimal(value) if exact else float(value)
    if exact and isinstance(value, float):
        return decimal.Decimal(repr(value))
    return value


def to_time(value: Any) -> Any:
    """An ISO 8601 text as ``datetime`` (naive when the text has no zone, as Cube sends it)."""
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value


def to_bool(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "t", "yes")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    return value


def converter(kind: str, exact: bool = False) -> Callable[[Any], Any] | None:
    """The value conversion of a member kind (None: values stay as sent)."""
    if kind == "number":
        return (lambda v: to_number(v, True)) if exact else to_number
    return {"time": to_time, "boolean": to_bool}.get(kind)


def columns_of(data: Any, annotation: Any) -> dict[str, list[Any]]:
    """Each member's values as sent, in the data's own member order, whatever the shape."""
    if isinstance(data, dict) and "columns" in data:
        members = list(data.get("members") or [])
        return dict(zip(members, (list(c) for c in data.get("columns") or []), strict=False))
    if isinstance(data, dict):
        members = list(data.get("members") or [])
        rows = data.get("dataset") or []
        return {m: [row[i] for row in rows] for i, m in enumerate(members)}
    rows = data if isinstance(data, list) else []
    names = dict.fromkeys(rows[0]) if rows else dict.fromkeys(member_kinds(annotation))
    for row in rows:  # a member the first row lacks still gets its column
        if len(row) != len(names):
            names.update(dict.fromkeys(row))
    return {m: [row.get(m) for row in rows] for m in names}
