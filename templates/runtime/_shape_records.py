"""One line of a records file (``shapes.jsonl``) as ``_shapes`` appends it: the format and its
version, a difference written as a shape (never a value but an enum's or a union tag's), and a
difference the runtime reported for a streamed value turned into one."""

from __future__ import annotations

import json
import re
from typing import Any

from ._shape_values import Difference, Kind, _shape_value, json_type, string_format

__all__ = ["FILE_NAME", "FORMAT", "VERSION", "heard", "media", "record_fields", "record_line"]

FILE_NAME = "shapes.jsonl"
FORMAT = "cube-client-shapes"
VERSION = 1
_THEIR_KINDS: dict[str, Kind] = {
    "extra-field": "property-unknown",
    "unknown-enum-value": "enum-value-unknown",
    "null": "null-not-allowed",
    "missing": "required-missing",
    "wrong-type": "type-mismatch",
    "unknown-variant": "union-variant-unknown",
}
_VALUE_KINDS = frozenset({"enum-value-unknown", "union-variant-unknown"})
_DOCUMENTED: dict[Kind, str] = {
    "property-unknown": "not listed",
    "enum-value-unknown": "enum",
    "null-not-allowed": "not null",
    "required-missing": "required",
    "type-mismatch": "another type",
    "union-variant-unknown": "union tag",
}
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]{0,127}")


def _safe_pointer(pointer: str) -> str:
    """A value's place as a shape: array indexes as ``-``, anything not name-like (a map's key
    is data) as ``*``."""
    if not pointer:
        return ""
    out = []
    for token in pointer[1:].split("/"):
        plain = token.replace("~1", "/").replace("~0", "~")
        out.append("-" if plain.isdigit() else token if _NAME.fullmatch(plain) else "*")
    return "/" + "/".join(out)


def heard(found: Any) -> Difference | None:
    """A difference the runtime reported (``_differences.report``) as a record's, or None when
    it is not one a record keeps (no status yet, or a kind records do not name)."""
    context = found.context
    kind = _THEIR_KINDS.get(str(found.kind))
    if not context.part or kind is None or not context.status:
        return None
    seen = found.seen
    absent = kind == "required-missing"
    return Difference(
        kind,
        _safe_pointer(found.pointer),
        _DOCUMENTED[kind],
        "absent" if absent else json_type(seen),
        None if absent else string_format(seen),
        _shape_value(seen) if kind in _VALUE_KINDS else None,
    )


_MEDIA = re.compile(r"[A-Za-z0-9!#$&^_.+-]{1,64}/[A-Za-z0-9!#$&^_.+-]{1,64}")


def media(text: str) -> str:
    """A media type as a record names it: a plain ``type/subtype``, else the JSON default."""
    text = text.strip().lower()
    return text if _MEDIA.fullmatch(text) else "application/json"


def record_fields(
    method: str, path: str, status: int, media_type: str, diff: Difference
) -> dict[str, Any]:
    from ._version import DISTRIBUTION, __version__

    seen: dict[str, Any] = {"type": diff.seen_type}
    if diff.seen_format:
        seen["format"] = diff.seen_format
    if diff.kind in _VALUE_KINDS and diff.seen_value is not None:
        seen["value"] = diff.seen_value
    return {
        "format": FORMAT,
        "version": VERSION,
        "package": DISTRIBUTION,
        "package_version": __version__,
        "operation": {"method": method, "path": path},
        "status": status,
        "media_type": media_type,
        "kind": diff.kind,
        "pointer": diff.pointer,
        "documented": diff.documented,
        "seen": seen,
    }


def record_line(fields: dict[str, Any], count: int, first: str, last: str) -> str:
    return json.dumps({**fields, "count": count, "first": first, "last": last}) + "\n"
