"""Sample values for generated tests, derived from a family's schemas while the IR is built:
valid by construction, deterministic and small (depth, item count and string length are
bounded). :mod:`generator.ir.sample_book` keeps what the tests need of them in the IR."""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from generator.document.schema_facts import FactsMemo, Number, SchemaFacts
from generator.ir.pattern_sample import sample_for_pattern
from generator.ir.schemas import CATALOG_PREFIX, is_scalar_like
from generator.ir.types import (
    DictOf,
    ListOf,
    LiteralOf,
    LongText,
    ModelRef,
    Primitive,
    TypeRef,
    UnionOf,
)

SAMPLE_DATETIME = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
_MAX_DEPTH = 4
MAX_ITEMS = 3  # items in an array sample: a larger minItems fails the test loudly, not OOM


def py_value(t: TypeRef) -> object:
    """A Python value of type ``t`` (no schema needed: scalars, literals and their lists)."""
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
            return [py_value(item)]
        case UnionOf(members):
            return py_value(next(m for m in members if m != Primitive("None")))
        case _:
            return "value"


class Samples:
    """Samples of IR types (``for_type``) and of catalogue schemas (``json``).

    A sample is never changed once made (one that needs a change is copied first), so a class's
    sample at one depth is made once and handed out again: a large document names the same
    classes from hundreds of operations."""

    def __init__(self, schemas: Mapping[str, Any], known: FactsMemo | None = None) -> None:
        self.schemas = schemas
        self.facts = known if known is not None else FactsMemo()  # ``known``: read while building
        self._named: dict[tuple[str, int], Any] = {}

    def for_type(self, t: TypeRef, depth: int) -> Any:
        match t:
            case ModelRef(name):
                return self.named(name, depth)
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
                return py_value(t)

    def json(self, schema: Any, depth: int) -> Any:
        """A JSON value valid against a catalogue schema, deterministic and small."""
        if not isinstance(schema, dict):
            return {}
        f = self.facts.get(id(schema)) or self.facts(schema)
        if f.ref is not None and f.ref.startswith(CATALOG_PREFIX):
            return self.named(f.ref[len(CATALOG_PREFIX) :], depth)
        if f.const:
            return f.const[0]
        if f.enum:
            return f.enum[0]
        if f.default and f.default[0] is not None:
            return f.default[0]
        if f.union:
            value = self._union(f, depth)
            if isinstance(value, dict) and f.properties is not None:
                return {**self._object(f, depth), **value}
            return value
        if f.all_of:
            merged: dict[str, Any] = {}
            for member in f.all_of:
                part = self.json(member, depth + 1)
                if isinstance(part, dict):
                    merged.update(part)
            if f.properties is not None:
                merged.update(self._object(f, depth))
            return merged
        kind = f.types[0] if f.types else "null" if f.null_type else None
        if kind == "object" or f.properties is not None:
            return self._object(f, depth)
        if kind == "array":
            return self._array(f, depth)
        if kind == "string":
            return _string_sample(f)
        if kind == "integer":
            return _number_sample(f, 3)
        if kind == "number":
            return _number_sample(f, 1.5)
        if kind == "boolean":
            return True
        return None if kind == "null" else "value"

    def named(self, name: str, depth: int) -> Any:
        """A sample of the catalogue schema ``name`` (``{}`` for an object beyond the depth);
        the same object for the same name and depth (not to be changed)."""
        key = (name, depth)
        if key in self._named:
            return self._named[key]
        found = self._named[key] = self._named_afresh(name, depth)
        return found

    def _named_afresh(self, name: str, depth: int) -> Any:
        target = self.schemas.get(name)
        deep = depth >= _MAX_DEPTH * 2 and not (
            isinstance(target, dict) and is_scalar_like(self.facts(target))
        )
        return {} if deep else self.json(target, depth + 1)

    def _array(self, f: SchemaFacts, depth: int) -> list[Any]:
        min_items = f.whole("minItems")
        if depth > _MAX_DEPTH and not min_items:
            return []
        item = self.json(f.items, depth + 1)
        return [item] * min(max(1, 1 if min_items is None else min_items), MAX_ITEMS)

    def _union(self, f: SchemaFacts, depth: int) -> Any:
        mapping = f.discriminator_mapping
        if mapping:
            key, target = next(iter(mapping.items()))
            catalog = isinstance(target, str) and target.startswith(CATALOG_PREFIX)
            value = self.named(target[len(CATALOG_PREFIX) :], depth + 1) if catalog else "value"
            if isinstance(value, dict) and f.discriminator_property is not None:
                value = {**value, f.discriminator_property: key}  # a copy: samples are shared
            return value
        first = next((m for m in f.union if not self._is_null(m)), f.union[0])
        return self.json(first, depth + 1)

    def _object(self, f: SchemaFacts, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, sub in (f.properties or {}).items():
            if name in f.required or depth < _MAX_DEPTH:
                out[name] = self.json(sub, depth + 1)
        return out

    def _is_null(self, schema: Any) -> bool:
        if not isinstance(schema, dict):
            return False
        f = self.facts.get(id(schema)) or self.facts(schema)
        return f.null_type and not f.types


def _matches(pattern: str, value: str) -> bool:
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return False


LITERAL_MAX = 256
"""Longest string sample written into a test as a literal; a longer ``minLength`` is met by a
:class:`LongText`, built when the test runs (a 200,000,000-character literal made a test file
of gigabytes)."""


def _string_sample(f: SchemaFacts) -> str | LongText:
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
    value = by_format.get(f.format, "value") if f.format is not None else "value"
    if f.pattern is not None and not _matches(f.pattern, value):
        value = sample_for_pattern(f.pattern) or value
    min_len = f.whole("minLength")
    max_len = f.whole("maxLength")
    if min_len is not None and min_len > LITERAL_MAX and len(value) < min_len:
        fits = max_len is None or max_len >= min_len
        return LongText(value[: min(len(value), LITERAL_MAX)], min_len) if fits else value
    if min_len is not None and len(value) < min_len:
        value = value + "x" * (min_len - len(value))
    if max_len is not None and len(value) > max_len:
        value = value[:max_len]
    return value


def _number_sample(f: SchemaFacts, default: float) -> Any:
    low, high = f.lower, f.upper
    value: Number = default
    if low is not None and value < low.value:
        value = low.value + (1 if low.exclusive else 0)
    if high is not None and value > high.value:
        value = high.value - (1 if high.exclusive else 0)
    return int(value) if isinstance(default, int) else value
