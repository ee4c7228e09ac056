"""What the shape walk (:mod:`._shape_walk`) says about a type and a body in the document's
terms: a type's JSON name, the members of an object the document does not list, and the tag
that tells a union's variants apart. None of it needs the walk's checkers."""

from __future__ import annotations

import datetime
import functools
import typing
import uuid
from typing import Annotated, Any, Literal

import pydantic

from ._field_names import field_keys as _keys
from ._shape_values import MAX_NAME, Difference, escape_token, json_type, string_format

__all__ = ["SCALARS", "describe", "strip", "union_tag", "unknown_members"]

SCALARS: dict[Any, tuple[str, tuple[type, ...]]] = {
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


def strip(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def describe(members: list[Any]) -> str:
    names = []
    for member in members:
        origin = typing.get_origin(member)
        if origin is Literal:
            names.append("enum")
        elif member in SCALARS:
            names.append(SCALARS[member][0])
        elif origin is list:
            names.append("array")
        else:
            names.append("object")
    return " | ".join(dict.fromkeys(names)) or "any"


def unknown_members(
    data: dict[str, Any], known: frozenset[str], pointer: str, out: list[Difference]
) -> None:
    """Each member of ``data`` not in ``known`` (its name, never its value, is recorded)."""
    for key, value in data.items():
        if key not in known and len(key) <= MAX_NAME:
            where = f"{pointer}/{escape_token(key)}"
            kind = json_type(value)
            out.append(
                Difference("property-unknown", where, "not listed", kind, string_format(value))
            )


@functools.cache
def union_tag(models: tuple[type[pydantic.BaseModel], ...]) -> tuple[str, frozenset[Any]] | None:
    """The field every variant types as one constant (the union's tag), with its values."""
    if len(models) < 2:
        return None
    constants: list[dict[str, Any]] = []
    for model in models:
        mine = {}
        for name, (alias, info) in _keys(model).items():
            tp = strip(info.annotation)
            if typing.get_origin(tp) is Literal and len(typing.get_args(tp)) == 1:
                mine[alias or name] = typing.get_args(tp)[0]
        constants.append(mine)
    shared = set.intersection(*(set(c) for c in constants))
    if not shared:
        return None
    name = sorted(shared)[0]
    return name, frozenset(c[name] for c in constants)
