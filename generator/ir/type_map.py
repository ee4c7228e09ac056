"""Schema → Python type reference, over the catalogue (:mod:`generator.ir.schemas`).

Only the naming pass (:mod:`generator.ir.naming_pass`) types schemas: a schema that needs a class
of its own (an inline object, a discriminated union) is hoisted into the catalogue then, under a
name made from the site's hint. The builder reads the pass's results and types nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generator.document.schema_facts import SchemaFacts
from generator.ir.schemas import MAX_DEPTH, SchemaCatalog, is_class, is_scalar_like
from generator.ir.types import (
    ANY,
    NONE,
    DictOf,
    ListOf,
    LiteralOf,
    ModelRef,
    Primitive,
    TypeRef,
    UnionOf,
)

_FORMATS: dict[str, Primitive] = {
    "date-time": Primitive("datetime"),
    "date": Primitive("date"),
    "binary": Primitive("bytes"),
}
_STR = Primitive("str")
_TYPES: dict[str, Primitive] = {
    "string": Primitive("str"),
    "integer": Primitive("int"),
    "number": Primitive("float"),
    "boolean": Primitive("bool"),
    "null": NONE,
}


class TypeMap:
    """Types of schemas of one document, with the classes its catalogue names."""

    def __init__(self, catalog: SchemaCatalog) -> None:
        self.catalog = catalog
        self.facts = catalog.facts
        self._refs: dict[str, ModelRef] = {}  # one reference per class: a type is never changed

    def type_of(self, schema: Any, hint: str, depth: int = 0) -> TypeRef:
        """The Python type a value of ``schema`` has; a part that needs a class of its own (an
        inline object, a discriminated union) is hoisted into the catalogue as ``hint``, which
        only the naming pass may do."""
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return ANY
        f = self.facts.get(id(schema)) or self.facts(schema)
        if f.ref is not None:
            name = self.catalog.ref_name(f.ref) if f.ref.startswith("#") else None
            if name is None:
                return ANY
            target = self.catalog.models.get(name)
            if isinstance(target, dict) and is_scalar_like(self.facts(target)):
                return self.type_of(target, hint, depth + 1)
            found = self._refs.get(name)
            if found is None:
                found = self._refs[name] = ModelRef(name)
            return found
        if f.null_type and not f.types:
            return NONE  # `type: null` alone: the `None` branch of a nullable union
        result = self._base_type(schema, f, hint, depth)
        return _with_none(result) if f.null_type or f.nullable_keyword else result

    def _base_type(self, schema: dict[str, Any], f: SchemaFacts, hint: str, depth: int) -> TypeRef:
        if f.const:
            return _literal(f.const)
        if f.enum:
            return _literal(f.enum)
        if f.union:
            if f.discriminator is not None or is_class(f):
                return ModelRef(self.catalog.hoist(schema, hint, read=f))
            return union_of(
                [self.type_of(m, f"{hint}Option{i + 1}", depth + 1) for i, m in enumerate(f.union)]
            )
        if f.all_of is not None and len(f.all_of) == 1 and not f.properties:
            return self.type_of(f.all_of[0], hint, depth + 1)
        if len(f.types) > 1:  # each type on its own (a class hoisted from it says its type)
            return union_of(
                [self._kind_type({**schema, "type": t}, f, t, hint, depth) for t in f.types]
            )
        return self._kind_type(schema, f, f.types[0] if f.types else None, hint, depth)

    def _kind_type(
        self, schema: dict[str, Any], f: SchemaFacts, kind: str | None, hint: str, depth: int
    ) -> TypeRef:
        """The type of a schema of one JSON type ``kind`` (``None``: not given)."""
        if kind == "array" or (kind is None and f.items is not None):
            return ListOf(self.type_of(f.items, hint + "Item", depth + 1))
        if is_class(f):
            return ModelRef(self.catalog.hoist(schema, hint))
        if kind == "object" or (kind is None and f.additional is not None):
            if isinstance(f.additional, dict) and f.additional:
                return DictOf(self.type_of(f.additional, hint + "Value", depth + 1))
            return DictOf(ANY)
        if kind == "string":
            return _FORMATS.get(f.format, _STR) if f.format else _STR
        if kind in _TYPES:
            return _TYPES[kind]
        return ANY


def _literal(values: Sequence[Any]) -> TypeRef:
    """``Literal[...]`` of an enum's values, each once (``1`` and ``True`` are two), with
    ``None`` when null is one; ``Any`` when a value is no string, integer or boolean. One pass:
    a large document has thousands of small enums."""
    out: list[str | int | bool] = []
    seen: set[tuple[type, str | int | bool]] = set()
    none = beyond = False
    for v in values:
        if v is None:
            none = True
        elif not isinstance(v, (str, int, bool)):
            return ANY  # enums of objects or floats: no Literal can say it
        elif (type(v), v) not in seen:
            seen.add((type(v), v))
            out.append(v)
            beyond = beyond or _beyond_literal(v)
    lit: TypeRef = LiteralOf(tuple(out)) if out else NONE
    if beyond:  # mypy refuses Literal[9223372036854775807]
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in out)
        lit = Primitive("int") if ints else ANY
    return _with_none(lit) if none and out else lit


def _beyond_literal(value: object) -> bool:
    """An integer too large for a ``Literal`` that mypy accepts (it checks them as C longs)."""
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63 - 1


def _with_none(t: TypeRef) -> TypeRef:
    if t in (ANY, NONE):
        return t
    return union_of([t, NONE])


def union_of(members: list[TypeRef]) -> TypeRef:
    """One flat union of ``members``: ``Any`` swallows it, ``None`` goes last."""
    if len(members) == 2 and members[1] is NONE:  # ``T | None``, the most common union
        first = members[0]
        if isinstance(first, (ModelRef, ListOf, DictOf, LiteralOf)) or (
            isinstance(first, Primitive) and first.name not in ("Any", "None")
        ):
            return UnionOf((first, NONE))
    flat: list[TypeRef] = []
    none = False
    for m in members:
        for x in m.members if isinstance(m, UnionOf) else (m,):
            if isinstance(x, Primitive) and x.name in ("Any", "None"):
                if x.name == "Any":
                    return ANY
                none = True  # None last reads best: ``X | None``
            elif x not in flat:
                flat.append(x)
    if none:
        flat.append(NONE)
    return flat[0] if len(flat) == 1 else UnionOf(tuple(flat))
