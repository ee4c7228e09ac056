"""Where a parsed JSON body differs from the type the document gives it, as shapes.

:func:`walk` follows the generated type (models, lists, maps, unions, ``Literal`` enums, scalars)
over the JSON value and lists each :class:`~._shapes.Difference`; it reads every field, unlike
the lazy models, because a recording is complete or useless. Only shape recording calls it.
"""

from __future__ import annotations

import datetime
import functools
import types
import typing
import uuid
from typing import Annotated, Any, Literal, Union

import pydantic

from ._models import Unknown, _keys
from ._shapes import MAX_NAME, Difference, _shape_value, escape_token, json_type, string_format

__all__ = ["walk"]

_NONE = type(None)
_SCALARS: dict[Any, tuple[str, tuple[type, ...]]] = {
    str: ("string", (str,)),
    int: ("integer", (int,)),
    float: ("number", (int, float)),
    bool: ("boolean", (bool,)),
    bytes: ("string", (str,)),
    datetime.datetime: ("string", (str,)),
    datetime.date: ("string", (str,)),
    datetime.time: ("string", (str,)),
    uuid.UUID: ("string", (str,)),
}


def _strip(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def walk(tp: Any, data: Any, pointer: str, out: list[Difference]) -> None:
    """Append to ``out`` every difference between ``data`` and ``tp`` at ``pointer``."""
    tp = _strip(tp)
    origin = typing.get_origin(tp)
    if data is None and origin not in (Union, types.UnionType) and tp not in (Any, object, _NONE):
        out.append(Difference("null-not-allowed", pointer, _describe([tp]), "null"))
    elif origin in (Union, types.UnionType):
        _union(typing.get_args(tp), data, pointer, out)
    elif origin is Literal:
        if not any(data == v and type(data) is type(v) for v in typing.get_args(tp)):
            seen = _shape_value(data)
            out.append(
                Difference("enum-value-unknown", pointer, "enum", json_type(data), None, seen)
            )
    elif isinstance(tp, type) and issubclass(tp, pydantic.RootModel):
        walk(tp.model_fields["root"].annotation, data, pointer, out)
    elif isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        _model(tp, data, pointer, out)
    elif origin is list:
        if not isinstance(data, list):
            out.append(Difference("type-mismatch", pointer, "array", json_type(data)))
            return
        (item,) = typing.get_args(tp) or (Any,)
        for value in data:
            walk(item, value, pointer + "/-", out)
    elif origin is dict:
        if not isinstance(data, dict):
            out.append(Difference("type-mismatch", pointer, "object", json_type(data)))
            return
        args = typing.get_args(tp)
        for value in data.values():  # a map's keys are data: never recorded
            walk(args[1] if len(args) == 2 else Any, value, pointer + "/*", out)
    elif tp in _SCALARS:
        name, accepted = _SCALARS[tp]
        if not isinstance(data, accepted) or (tp is not bool and isinstance(data, bool)):
            out.append(Difference("type-mismatch", pointer, name, json_type(data)))


def _union(args: tuple[Any, ...], data: Any, pointer: str, out: list[Difference]) -> None:
    members = [m for m in (_strip(a) for a in args) if m is not _NONE and m is not Unknown]
    if data is None:
        if _NONE not in args:
            out.append(Difference("null-not-allowed", pointer, _describe(members), "null"))
        return
    if len(members) == 1:
        walk(members[0], data, pointer, out)
        return
    tries: list[list[Difference]] = []
    for member in members:
        found: list[Difference] = []
        walk(member, data, pointer, found)
        if not found:
            return
        tries.append(found)
    models = [m for m in members if isinstance(m, type) and issubclass(m, pydantic.BaseModel)]
    tag = _tag(tuple(models))
    if tag is not None and isinstance(data, dict) and tag[0] in data:
        name, known = tag
        if data[name] not in known:
            seen = _shape_value(data[name])
            out.append(
                Difference(
                    "union-variant-unknown",
                    f"{pointer}/{escape_token(name)}",
                    "union tag",
                    json_type(data[name]),
                    None,
                    seen,
                )
            )
            return
    if all(f[0].kind == "type-mismatch" and f[0].pointer == pointer for f in tries):
        out.append(Difference("type-mismatch", pointer, _describe(members), json_type(data)))
        return
    closest: list[Difference] = min(tries, key=_count)  # the variant it comes closest to
    out.extend(closest)


def _count(found: list[Difference]) -> int:
    return len(found)


@functools.cache
def _tag(models: tuple[type[pydantic.BaseModel], ...]) -> tuple[str, frozenset[Any]] | None:
    """The field every variant types as one constant (the union's tag), with its values."""
    if len(models) < 2:
        return None
    constants: list[dict[str, Any]] = []
    for model in models:
        mine = {}
        for name, (alias, info) in _keys(model).items():
            tp = _strip(info.annotation)
            if typing.get_origin(tp) is Literal and len(typing.get_args(tp)) == 1:
                mine[alias or name] = typing.get_args(tp)[0]
        constants.append(mine)
    shared = set.intersection(*(set(c) for c in constants))
    if not shared:
        return None
    name = sorted(shared)[0]
    return name, frozenset(c[name] for c in constants)


def _describe(members: list[Any]) -> str:
    names = []
    for member in members:
        origin = typing.get_origin(member)
        if origin is Literal:
            names.append("enum")
        elif member in _SCALARS:
            names.append(_SCALARS[member][0])
        elif origin is list:
            names.append("array")
        else:
            names.append("object")
    return " | ".join(dict.fromkeys(names)) or "any"


@functools.cache
def _fields(
    cls: type[pydantic.BaseModel],
) -> tuple[tuple[tuple[str, str, Any, bool], ...], frozenset[str]]:
    """(wire name, field name, type, required) per field, and every name a key may use."""
    rows = tuple(
        (alias, name, info.annotation, info.is_required())
        for name, (alias, info) in _keys(cls).items()
    )
    return rows, frozenset(k for row in rows for k in row[:2])


def _model(cls: type[pydantic.BaseModel], data: Any, pointer: str, out: list[Difference]) -> None:
    if not isinstance(data, dict):
        out.append(Difference("type-mismatch", pointer, "object", json_type(data)))
        return
    rows, known = _fields(cls)
    for alias, name, tp, required in rows:
        key = alias if alias in data else name
        if key in data:
            walk(tp, data[key], f"{pointer}/{escape_token(alias)}", out)
        elif required:
            out.append(
                Difference(
                    "required-missing", f"{pointer}/{escape_token(alias)}", "required", "absent"
                )
            )
    for key, value in data.items():
        if key not in known and len(key) <= MAX_NAME:
            out.append(
                Difference(
                    "property-unknown",
                    f"{pointer}/{escape_token(key)}",
                    "not listed",
                    json_type(value),
                    string_format(value),
                )
            )
