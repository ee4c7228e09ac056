"""Sample values for generated tests, derived from a family's schemas: valid by construction,
deterministic and small (depth, item count and string length are bounded)."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from generator.emit.pattern_sample import sample_for_pattern
from generator.emit.sanitize import py_str
from generator.ir.schemas import CATALOG_PREFIX, is_scalar_like
from generator.ir.types import DictOf, ListOf, LiteralOf, ModelRef, Primitive, TypeRef, UnionOf

SAMPLE_DATETIME = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
_MAX_DEPTH = 4
MAX_ITEMS = 3  # items in an array sample: a larger minItems fails the test loudly, not OOM


class Samples:
    """Samples of IR types (``for_type``, ``py_value``) and of catalogue schemas (``json``)."""

    def __init__(self, schemas: dict[str, Any]) -> None:
        self.schemas = schemas

    def py_value(self, t: TypeRef) -> object:
        match t:
            case Primitive("int"):
                return 3
            case Primitive("float"):
                return 1.5
            case Primitive("bool"):
                return True
            case Primitive("datetime"):
                return SAMPLE_DATETIME
            case Primitive("date"):
                return SAMPLE_DATETIME.date()
            case Primitive("bytes"):
                return b"data"
            case Primitive("None"):  # ``type: null``: the one value it takes
                return None
            case LiteralOf(values):
                return values[0]
            case ListOf(item):
                return [self.py_value(item)]
            case UnionOf(members):
                return self.py_value(next(m for m in members if m != Primitive("None")))
            case _:
                return "value"

    def for_type(self, t: TypeRef, depth: int) -> Any:
        match t:
            case ModelRef(name):
                return self.json({"$ref": CATALOG_PREFIX + name}, depth)
            case ListOf(item):
                return [self.for_type(item, depth + 1)]
            case DictOf(value):
                return {"key": self.for_type(value, depth + 1)}
            case UnionOf(members):
                return self.for_type(next(m for m in members if m != Primitive("None")), depth)
            case Primitive("datetime"):
                return "2024-01-02T03:04:05Z"
            case Primitive("date"):
                return "2024-01-02"
            case Primitive("bytes"):
                return "data"
            case Primitive("None"):
                return None
            case _:
                return self.py_value(t)

    def json(self, schema: Any, depth: int) -> Any:
        """A JSON value valid against a catalogue schema, deterministic and small."""
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(CATALOG_PREFIX):
            target = self.schemas.get(ref[len(CATALOG_PREFIX) :])
            deep = depth >= _MAX_DEPTH * 2 and not (
                isinstance(target, dict) and is_scalar_like(target)
            )
            return {} if deep else self.json(target, depth + 1)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        if "default" in schema and schema["default"] is not None:
            return schema["default"]
        for key in ("oneOf", "anyOf"):
            members = schema.get(key)
            if isinstance(members, list) and members:
                value = self._union(schema, members, depth)
                if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
                    base = self._object(schema, depth)
                    return {**base, **value}
                return value
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and all_of:
            merged: dict[str, Any] = {}
            for member in all_of:
                part = self.json(member, depth + 1)
                if isinstance(part, dict):
                    merged.update(part)
            if isinstance(schema.get("properties"), dict):
                merged.update(self._object(schema, depth))
            return merged
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or "properties" in schema:
            return self._object(schema, depth)
        if kind == "array":
            if depth > _MAX_DEPTH and not schema.get("minItems"):
                return []
            item = self.json(schema.get("items"), depth + 1)
            min_items = schema.get("minItems")
            count = (
                min_items if isinstance(min_items, int) and not isinstance(min_items, bool) else 1
            )
            return [item] * min(max(1, count), MAX_ITEMS)
        if kind == "string":
            return _string_sample(schema)
        if kind == "integer":
            return _number_sample(schema, 3)
        if kind == "number":
            return _number_sample(schema, 1.5)
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        return "value"

    def _union(self, schema: dict[str, Any], members: list[Any], depth: int) -> Any:
        disc = schema.get("discriminator")
        if isinstance(disc, dict) and isinstance(disc.get("mapping"), dict) and disc["mapping"]:
            key, target = next(iter(disc["mapping"].items()))
            value = self.json({"$ref": target}, depth + 1)
            if isinstance(value, dict) and isinstance(disc.get("propertyName"), str):
                value[disc["propertyName"]] = key
            return value
        first = next((m for m in members if not _is_null(m)), members[0])
        return self.json(first, depth + 1)

    def _object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        raw_props, raw_required = schema.get("properties"), schema.get("required")
        props: dict[str, Any] = raw_props if isinstance(raw_props, dict) else {}
        required: list[Any] = raw_required if isinstance(raw_required, list) else []
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name in required or depth < _MAX_DEPTH:
                out[name] = self.json(sub, depth + 1)
        return out


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


def _matches(pattern: str, value: str) -> bool:
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return False


LITERAL_MAX = 256
"""Longest string sample written into a test as a literal; a longer ``minLength`` is met by a
:class:`LongText`, built when the test runs (a 200,000,000-character literal made a test file
of gigabytes)."""


@dataclass(frozen=True, slots=True)
class LongText:
    """A string sample of ``length`` characters: ``head``, then ``x`` up to the length."""

    head: str
    length: int

    def source(self) -> str:
        """The Python expression that builds it."""
        return f"{py_str(self.head)} + {py_str('x')} * {self.length - len(self.head)}"

    def capped(self) -> str:
        """The sample cut to :data:`LITERAL_MAX` (where only a literal can go)."""
        return (self.head + "x" * LITERAL_MAX)[:LITERAL_MAX]


def _string_sample(schema: dict[str, Any]) -> str | LongText:
    fmt = schema.get("format")
    by_format = {
        "date-time": "2024-01-02T03:04:05Z",
        "date": "2024-01-02",
        "time": "03:04:05",
        "uri": "https://example.com/",
        "url": "https://example.com/",
        "email": "user@example.com",
        "uuid": "00000000-0000-4000-8000-000000000000",
        "ipv4": "192.0.2.1",
        "ipv6": "2001:db8::1",
        "byte": "ZGF0YQ==",
        "hostname": "example.com",
    }
    value = by_format.get(fmt, "value") if isinstance(fmt, str) else "value"
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and not _matches(pattern, value):
        value = sample_for_pattern(pattern) or value
    min_len = schema.get("minLength")
    max_len = schema.get("maxLength")
    if isinstance(min_len, int) and min_len > LITERAL_MAX and len(value) < min_len:
        fits = not isinstance(max_len, int) or max_len >= min_len
        return LongText(value[: min(len(value), LITERAL_MAX)], min_len) if fits else value
    if isinstance(min_len, int) and len(value) < min_len:
        value = value + "x" * (min_len - len(value))
    if isinstance(max_len, int) and len(value) > max_len:
        value = value[:max_len]
    return value


def _number_sample(schema: dict[str, Any], default: float) -> Any:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value = default
    if isinstance(low, (int, float)) and not isinstance(low, bool) and value < low:
        value = low + (1 if "exclusiveMinimum" in schema else 0)
    if isinstance(high, (int, float)) and not isinstance(high, bool) and value > high:
        value = high - (1 if "exclusiveMaximum" in schema else 0)
    return int(value) if isinstance(default, int) else value
