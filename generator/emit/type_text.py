"""IR type references as Python type expressions: a field's, an argument's, a TypedDict item's.

Every type a generated module writes is spelled here, from IR type references only (never from
document text).
"""

from __future__ import annotations

from functools import lru_cache

from generator.emit.literals import py_literal
from generator.ir.types import (
    DictOf,
    ListOf,
    LiteralOf,
    ModelRef,
    Primitive,
    TypeRef,
    UnionOf,
)

_PRIMITIVES = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "Any": "Any",
    "None": "None",
    "datetime": "datetime.datetime",
    "date": "datetime.date",
    "bytes": "bytes",
}


# A large document's classes name the same few thousand types again and again: each type's
# expression is made once per run.
@lru_cache(maxsize=16384)
def py_type(t: TypeRef, models: str = "_models") -> str:
    """The Python type expression for a type reference; model classes via the ``models`` alias."""
    match t:
        case Primitive(name):
            return _PRIMITIVES[name]
        case ModelRef(name):
            return f"{models}.{name}" if models else name
        case ListOf(item):
            return f"list[{py_type(item, models)}]"
        case DictOf(value):
            return f"dict[str, {py_type(value, models)}]"
        case LiteralOf(values):
            return "Literal[" + ", ".join(py_literal(v) for v in values) + "]"
        case UnionOf(members):
            return " | ".join(py_type(m, models) for m in none_last(members))
    raise TypeError(f"unknown type reference {t!r}")


def py_optional_arg(t: TypeRef, inputs: dict[str, str]) -> str:
    """An optional argument's type: the value's, or ``NotGiven`` (``None`` stays last)."""
    text = py_input_type(t, inputs)
    if text == "None":
        return "NotGiven | None"
    if text.endswith(" | None"):
        return text.removesuffix(" | None") + " | NotGiven | None"
    return text + " | NotGiven"


def none_last(members: tuple[TypeRef, ...]) -> list[TypeRef]:
    """A union's members with ``None`` last, where the linter wants it."""
    return sorted(members, key=lambda m: m == Primitive("None"))


def py_input_type(
    t: TypeRef,
    inputs: dict[str, str],
    models: str = "_models",
    values: dict[str, TypeRef] | None = None,
) -> str:
    """An argument's type: like :func:`py_type`, but a class that has a TypedDict twin
    (``inputs``: class → twin) also takes the twin, a plain dict keyed by wire names.

    With ``values`` (value class → its type), the type of a TypedDict item: what JSON holds
    there, so a value class is its value's type and a date may be its ISO text too."""
    prefix = f"{models}." if models else ""
    match t:
        case ModelRef(name) if inputs.get(name):
            return f"{prefix}{name} | {prefix}{inputs[name]}"
        case ModelRef(name) if values is not None and name in values:
            return py_input_type(values[name], inputs, models, values)
        case Primitive("datetime" | "date") if values is not None:
            return f"str | {py_type(t, models)}"
        case ListOf(item):  # read-only and covariant, so a list[Model] is accepted as it is
            inner = py_input_type(item, inputs, models, values)
            plain = inner == py_type(item, models)
            return f"list[{inner}]" if plain else f"Sequence[{inner}]"
        case DictOf(value):
            inner = py_input_type(value, inputs, models, values)
            plain = inner == py_type(value, models)
            return f"dict[str, {inner}]" if plain else f"Mapping[str, {inner}]"
        case UnionOf(members):
            return " | ".join(py_input_type(m, inputs, models, values) for m in none_last(members))
    return py_type(t, models)


class ItemTypes:
    """One family's TypedDict item types (:func:`py_input_type` with its twins and value
    classes), each written once: a large document's twins repeat a few hundred types over
    thousands of items, and a union or a list is walked anew on every call."""

    __slots__ = ("_memo", "inputs", "values")

    def __init__(self, inputs: dict[str, str], values: dict[str, TypeRef]) -> None:
        self.inputs, self.values = inputs, values
        self._memo: dict[TypeRef, str] = {}

    def __call__(self, t: TypeRef) -> str:
        found = self._memo.get(t)
        if found is None:
            found = self._memo[t] = py_input_type(t, self.inputs, "", self.values)
        return found


@lru_cache(maxsize=16384)
def py_open_type(t: TypeRef, models: str = "") -> str:
    """A model field's type: like :func:`py_type`, but an enum of two or more values and a union
    of two or more members are ``Open[...]``, so a value or a variant a newer server adds is kept
    as ``Unknown`` instead of failing the response (``None`` stays outside the ``Open``)."""
    match t:
        case LiteralOf(values) if len(values) >= 2:
            return f"Open[{py_type(t, models)}]"
        case ListOf(item):
            return f"list[{py_open_type(item, models)}]"
        case DictOf(value):
            return f"dict[str, {py_open_type(value, models)}]"
        case UnionOf(members):
            present = [m for m in members if m != Primitive("None")]
            none = " | None" if len(present) < len(members) else ""
            if len(present) >= 2:
                return f"Open[{' | '.join(py_type(m, models) for m in present)}]{none}"
            return py_open_type(present[0], models) + none
    return py_type(t, models)
