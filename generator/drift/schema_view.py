"""A flattened, comparable view of one JSON Schema node.

References are followed, ``allOf`` members merged, 3.0 ``nullable`` and 3.1 ``"null"`` types (and
``oneOf``/``anyOf`` with a null member) folded into one ``nullable`` flag, and a union that is only
"X or null" unwrapped into X. Views are memoised per node, so each schema is flattened once.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from generator.diagnostics import join_pointer
from generator.document.refs import Resolver
from generator.document.schema_facts import BOUND_KEYWORDS, FactsMemo, SchemaFacts

JSON_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean"})
MAX_MERGE_MEMBERS = 256
_REF_NOTES = frozenset({"description", "summary"})  # beside a $ref, these narrow nothing


@dataclass(frozen=True, slots=True)
class Sub:
    """A child schema as written (maybe a ``$ref``) and where it is written."""

    node: Any
    pointer: str


@dataclass(frozen=True, slots=True)
class SchemaView:
    pointer: str
    identity: int
    """``id()`` of the node this view stands for after pure references: the memo key for walks."""
    types: frozenset[str]
    """Non-null JSON types; empty means "anything"."""
    nullable: bool
    enum: tuple[Any, ...] | None
    format: str | None
    properties: dict[str, Sub]
    required: frozenset[str]
    items: Sub | None
    additional: Sub | None
    variants: tuple[tuple[str, Sub], ...]
    read_only: bool
    write_only: bool
    external_ref: str | None
    bounds: tuple[tuple[str, float], ...] = ()
    """Numeric constraints (``minimum``, ``maxLength``...) in keyword order."""
    pattern: str | None = None
    default: tuple[Any, ...] = ()
    """``(value,)`` when the schema declares a default, else empty (a default may be null)."""

    @property
    def object_like(self) -> bool:
        return not self.types or "object" in self.types


ANY = SchemaView(
    "", 0, frozenset(), False, None, None, {}, frozenset(), None, None, (), False, False, None
)


def enum_key(value: Any) -> str:
    """A stable text for an enum value (JSON, keys sorted) so values compare and sort as text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@dataclass(slots=True)
class _Merge:
    """What the members of one schema (itself and its ``allOf`` parts) say, combined."""

    types: set[str] | None = None
    nullable: bool = False
    enum: list[Any] | None = None
    format: str | None = None
    properties: dict[str, Sub] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    items: Sub | None = None
    additional: Sub | None = None
    variants: list[tuple[str, Sub]] = field(default_factory=list)
    read_only: bool = False
    write_only: bool = False
    bounds: dict[str, float] = field(default_factory=dict)
    pattern: str | None = None
    default: tuple[Any, ...] = ()

    def add(self, member: SchemaFacts, mptr: str) -> None:
        mtypes = set(JSON_TYPES.intersection(member.types))
        if mtypes:  # allOf narrows: keep the common types (or all, when they conflict)
            self.types = (
                mtypes if self.types is None else (self.types & mtypes) or (self.types | mtypes)
            )
        self.nullable = self.nullable or member.nullable
        values = member.choices
        if values is not None:
            self.nullable = self.nullable or None in values
            self.enum = [v for v in values if v is not None]
        if member.format is not None:
            self.format = member.format
        if member.properties is not None:
            for name, sub in member.properties.items():
                self.properties[name] = Sub(sub, join_pointer(mptr, "properties", name))
        self.required.update(member.required)
        if isinstance(member.items, dict):
            self.items = Sub(member.items, join_pointer(mptr, "items"))
        if isinstance(member.additional, dict):
            extra = member.additional
            self.additional = Sub(extra, join_pointer(mptr, "additionalProperties"))
        self.read_only = self.read_only or member.read_only
        self.write_only = self.write_only or member.write_only
        for keyword, value in member.bounds.items():
            self.bounds[keyword] = float(value)
        if member.pattern is not None:
            self.pattern = member.pattern
        if member.default:
            self.default = member.default


class ViewBuilder:
    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._memo: dict[int, tuple[Any, SchemaView]] = {}
        self._building: set[int] = set()
        self.facts = FactsMemo()

    def _has_siblings(self, node: Any) -> bool:
        """A ``$ref`` with keywords beside it that say something (3.1): they narrow the target."""
        return isinstance(node, dict) and self.facts(node).siblings_of_ref(_REF_NOTES)

    def is_null_schema(self, node: Any, ptr: str) -> bool:
        target, _ = self.resolver.resolve(node, ptr)
        if not isinstance(target, dict):
            return False
        f = self.facts(target)
        if f.null_type and JSON_TYPES.isdisjoint(f.types):
            return True
        return f.enum is not None and len(f.enum) == 1 and f.enum[0] is None

    def view(self, node: Any, ptr: str) -> SchemaView:
        key = id(node)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        if key in self._building:  # a union that contains itself: stop here
            return ANY
        self._building.add(key)
        try:
            built = self._build(node, ptr)
        finally:
            self._building.discard(key)
        self._memo[key] = (node, built)
        return built

    def _build(self, node: Any, ptr: str) -> SchemaView:
        if self._has_siblings(node):  # 3.1 allows keywords beside $ref: they narrow the target
            target, target_ptr = node, ptr
        else:
            target, target_ptr = self.resolver.resolve(node, ptr)
        identity = id(target)
        if not isinstance(target, dict):
            return ANY  # booleans (3.1) and malformed nodes compare as "anything"
        read = self.facts(target)
        if read.ref is not None and not read.siblings_of_ref(_REF_NOTES):  # another file
            return SchemaView(
                target_ptr, id(target), frozenset(), False, None, None, {}, frozenset(),
                None, None, (), False, False, read.ref,
            )  # fmt: skip
        merged = _Merge()
        for member, mptr in self._flatten(target, target_ptr):
            merged.add(self.facts(member), mptr)
            merged.nullable = merged.nullable or self._union_has_null(member, mptr)
            merged.variants.extend(self._variants(member, mptr))
        types = merged.types
        if merged.variants and not types:
            types = self._union_types(merged.variants)
        final_types = set(types or ())
        if not final_types:
            if merged.properties:
                final_types = {"object"}
            elif merged.items is not None:
                final_types = {"array"}
        return SchemaView(
            pointer=target_ptr,
            identity=identity,
            types=frozenset(final_types),
            nullable=merged.nullable,
            enum=tuple(merged.enum) if merged.enum is not None else None,
            format=merged.format,
            properties=merged.properties,
            required=frozenset(merged.required),
            items=merged.items,
            additional=merged.additional,
            variants=tuple(merged.variants),
            read_only=merged.read_only,
            write_only=merged.write_only,
            external_ref=None,
            bounds=tuple((k, merged.bounds[k]) for k in BOUND_KEYWORDS if k in merged.bounds),
            pattern=merged.pattern,
            default=merged.default,
        )

    def _union_has_null(self, member: dict[str, Any], mptr: str) -> bool:
        return any(
            self.is_null_schema(m, join_pointer(mptr, keyword, i))
            for keyword, union in self.facts(member).unions
            for i, m in enumerate(union)
        )

    def _union_types(self, variants: list[tuple[str, Sub]]) -> set[str] | None:
        """The types a union admits, or ``None`` when one member admits anything."""
        found: set[str] = set()
        for _, sub in variants:
            types = self.view(sub.node, sub.pointer).types
            if not types:
                return None
            found |= types
        return found or None

    def _flatten(self, node: dict[str, Any], ptr: str) -> list[tuple[dict[str, Any], str]]:
        """The node and its ``allOf`` members (recursively, each once), and the single non-null
        member of a ``oneOf``/``anyOf`` that is only "X or null"."""
        out: list[tuple[dict[str, Any], str]] = []
        seen: set[int] = set()
        stack: list[tuple[Any, str]] = [(node, ptr)]
        while stack and len(out) < MAX_MERGE_MEMBERS:
            raw, rptr = stack.pop()
            pending: list[tuple[Any, str]] = []
            if self._has_siblings(raw):
                member, mptr = raw, rptr
                pending.append(({"$ref": self.facts(raw).ref}, rptr))
            else:
                member, mptr = self.resolver.resolve(raw, rptr)
            if not isinstance(member, dict) or id(member) in seen:
                continue
            seen.add(id(member))
            out.append((member, mptr))
            f = self.facts(member)
            if f.all_of is not None:
                pending.extend((m, join_pointer(mptr, "allOf", i)) for i, m in enumerate(f.all_of))
            for keyword, union in f.unions:
                real = [
                    (m, join_pointer(mptr, keyword, i))
                    for i, m in enumerate(union)
                    if not self.is_null_schema(m, join_pointer(mptr, keyword, i))
                ]
                if len(real) == 1:
                    pending.append(real[0])
            stack.extend(reversed(pending))
        return out

    def _variants(self, member: dict[str, Any], mptr: str) -> list[tuple[str, Sub]]:
        """Named members of a real union (two or more non-null alternatives)."""
        found: list[tuple[str, Sub]] = []
        for keyword, union in self.facts(member).unions:
            real = [
                Sub(m, join_pointer(mptr, keyword, i))
                for i, m in enumerate(union)
                if not self.is_null_schema(m, join_pointer(mptr, keyword, i))
            ]
            if len(real) < 2:
                continue
            names = [self._variant_name(sub) for sub in real]
            counts: Counter[str] = Counter()
            for name, sub in zip(names, real, strict=True):
                counts[name] += 1
                found.append((name if counts[name] == 1 else f"{name}#{counts[name]}", sub))
        return found

    def _variant_name(self, sub: Sub) -> str:
        node = sub.node
        if isinstance(node, dict):
            f = self.facts(node)
            if f.ref is not None:
                return f.ref.rsplit("/", 1)[-1]
            if f.title is not None:
                return f.title
        view = self.view(node, sub.pointer)
        return "|".join(sorted(view.types)) or "any"
