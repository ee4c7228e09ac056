"""Where a parsed JSON body differs from the type the document gives it, as shapes.

:func:`walk` follows the generated type (models, lists, maps, unions, ``Literal`` enums, scalars)
over the JSON value and lists each :class:`~._shape_values.Difference`; it reads every field, unlike
the lazy models, because a recording is complete or useless. Only shape recording calls it.

Each type is compiled once into a checker (a closure): a model's scalar and enum fields are
checked inline with ``isinstance`` and set lookups, unknown keys with one set comparison, and a
pointer string is only made for a nested value or a difference, so a body that matches the
document costs a small fraction of decoding it.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

import pydantic

from ._field_names import field_keys as _keys
from ._open import Unknown
from ._shape_terms import SCALARS as _SCALARS
from ._shape_terms import describe as _describe
from ._shape_terms import strip as _strip
from ._shape_terms import union_tag as _tag
from ._shape_terms import unknown_members as _extras
from ._shape_values import Difference, _shape_value, escape_token, json_type

__all__ = ["walk"]

Check = Callable[[Any, str, list[Difference]], None]
_NONE = type(None)
_SKIP, _SCALAR, _LITERAL, _NESTED = range(4)


def walk(tp: Any, data: Any, pointer: str, out: list[Difference]) -> None:
    """Append to ``out`` every difference between ``data`` and ``tp`` at ``pointer``."""
    checker(tp)(data, pointer, out)


Plan = tuple[int, Any, bool, str]


def _plan(tp: Any) -> Plan:
    """(how to check, what with, null allowed, what the document says) for one type."""
    tp = _strip(tp)
    nullable = False
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = typing.get_args(tp)
        nullable = _NONE in args
        members = [m for m in (_strip(a) for a in args) if m is not _NONE and m is not Unknown]
        if len(members) != 1:
            if not members:
                return _SKIP, None, True, "null"
            return _NESTED, _union_checker(tuple(members)), nullable, _describe(members)
        tp = members[0]
    if tp in (Any, object) or tp is _NONE:
        return _SKIP, None, True, "any"
    if typing.get_origin(tp) is Literal:
        values = typing.get_args(tp)
        return _LITERAL, frozenset((type(v), v) for v in values), nullable, "enum"
    if tp in _SCALARS:
        name, accepted = _SCALARS[tp]
        return _SCALAR, (accepted, tp is not bool), nullable, name
    return _NESTED, _Lazy(tp), nullable, _describe([tp])


class _Lazy:
    """The checker of a type, looked up on first use (models may name themselves)."""

    __slots__ = ("_check", "_tp")

    def __init__(self, tp: Any) -> None:
        self._tp = tp
        self._check: Check | None = None

    def __call__(self, data: Any, pointer: str, out: list[Difference]) -> None:
        self.resolved()(data, pointer, out)

    def resolved(self) -> Check:
        if self._check is None:
            self._check = checker(self._tp)
        return self._check


# How a value that surely matches is told at once (see _Fast): no call, no pointer made.
_JSON_SCALARS = frozenset({str, int, float, bool, _NONE})
Fast = tuple[int, Any]


def _fast(plan: Plan) -> Fast:
    """``plan``'s quick test: for a scalar, the exact types it takes (decoded JSON has no
    subclasses); for an enum, its ``(type, value)`` pairs; for a nested type, its checker
    (looked up now: called on a body, every checker it names exists). Every other value goes
    to :func:`_value`, which says what differs."""
    how, what, nullable, _ = plan
    if how == _SCALAR:
        return how, frozenset(what[0]) | ({_NONE} if nullable else set())
    if how == _LITERAL:
        return how, what | ({(_NONE, None)} if nullable else set())
    if how == _NESTED:
        return how, what.resolved() if isinstance(what, _Lazy) else what
    return how, None


def _matches(fast: Fast, value: Any) -> bool:
    """Whether ``value`` surely matches (False: ask :func:`_value`, which may still accept it)."""
    how, ok = fast
    if how == _SCALAR:
        return value.__class__ in ok
    if how == _LITERAL:
        return value.__class__ in _JSON_SCALARS and (value.__class__, value) in ok
    return how == _SKIP


def _value(plan: Plan, value: Any, pointer: str, out: list[Difference]) -> None:
    """Check one value against its plan (``pointer``: where it is)."""
    how, what, nullable, says = plan
    if value is None:
        if not nullable:
            out.append(Difference("null-not-allowed", pointer, says, "null"))
    elif how == _SCALAR:
        accepted, no_bool = what
        if not isinstance(value, accepted) or (no_bool and value.__class__ is bool):
            out.append(Difference("type-mismatch", pointer, says, json_type(value)))
    elif how == _LITERAL:
        if not isinstance(value, str | int | float | bool) or (type(value), value) not in what:
            seen = _shape_value(value)
            out.append(
                Difference("enum-value-unknown", pointer, "enum", json_type(value), None, seen)
            )
    elif how == _NESTED:
        what(value, pointer, out)


@functools.lru_cache(maxsize=2048)
def checker(tp: Any) -> Check:
    """The compiled checker of ``tp`` (see the module)."""
    bare = _strip(tp)
    origin = typing.get_origin(bare)
    if isinstance(bare, type) and issubclass(bare, pydantic.RootModel):
        root: Any = bare.model_fields["root"].annotation
        return checker(root)
    if isinstance(bare, type) and issubclass(bare, pydantic.BaseModel):
        return _model_checker(bare)
    if origin is list:
        return _list_checker(_plan((typing.get_args(bare) or (Any,))[0]))
    if origin is dict:
        args = typing.get_args(bare)
        return _map_checker(_plan(args[1] if len(args) == 2 else Any))
    plan = _plan(tp)
    return lambda data, pointer, out: _value(plan, data, pointer, out)


def _list_checker(item: Plan) -> Check:
    fast: Fast | None = None

    def check(data: Any, pointer: str, out: list[Difference]) -> None:
        nonlocal fast
        if data.__class__ is not list:
            out.append(Difference("type-mismatch", pointer, "array", json_type(data)))
            return
        at = pointer + "/-"
        how, ok = fast = fast or _fast(item)
        if how == _NESTED:
            for value in data:
                if value is None:
                    _value(item, value, at, out)
                else:
                    ok(value, at, out)
            return
        for value in data:
            if not _matches(fast, value):
                _value(item, value, at, out)

    return check


def _map_checker(item: Plan) -> Check:
    def check(data: Any, pointer: str, out: list[Difference]) -> None:
        if data.__class__ is not dict:
            out.append(Difference("type-mismatch", pointer, "object", json_type(data)))
            return
        at = pointer + "/*"  # a map's keys are data: never recorded
        for value in data.values():
            _value(item, value, at, out)

    return check


def _model_checker(cls: type[pydantic.BaseModel]) -> Check:
    rows = [
        (alias, name, info.is_required(), _plan(info.annotation), "/" + escape_token(alias))
        for name, (alias, info) in _keys(cls).items()
    ]
    known = frozenset(k for row in rows for k in row[:2])
    fast: list[tuple[str, str, bool, Plan, str, int, Any]] = []

    def check(data: Any, pointer: str, out: list[Difference]) -> None:
        if data.__class__ is not dict:
            out.append(Difference("type-mismatch", pointer, "object", json_type(data)))
            return
        if len(fast) != len(rows):  # the first body: the quick tests, once
            fast[:] = [(*row, *_fast(row[3])) for row in rows]
        for alias, name, required, plan, token, how, ok in fast:
            if alias in data:
                value = data[alias]
            elif name in data:
                value = data[name]
            else:
                if required:
                    out.append(
                        Difference("required-missing", pointer + token, "required", "absent")
                    )
                continue
            if how == _SCALAR:
                if value.__class__ in ok:
                    continue
            elif how == _LITERAL:
                if value.__class__ in _JSON_SCALARS and (value.__class__, value) in ok:
                    continue
            elif how == _NESTED:
                if value is not None:
                    ok(value, pointer + token, out)
                    continue
            else:
                continue
            _value(plan, value, pointer + token, out)
        if not known.issuperset(data):
            _extras(data, known, pointer, out)

    return check


def _union_checker(members: tuple[Any, ...]) -> Check:
    checks = [checker(m) for m in members]
    says = _describe(list(members))

    def check(data: Any, pointer: str, out: list[Difference]) -> None:
        tries: list[list[Difference]] = []
        for each in checks:
            found: list[Difference] = []
            each(data, pointer, found)
            if not found:
                return
            tries.append(found)
        models = [m for m in members if isinstance(m, type) and issubclass(m, pydantic.BaseModel)]
        tag = _tag(tuple(models))
        if tag is not None and isinstance(data, dict) and tag[0] in data:
            name, known = tag
            if data[name] not in known:
                seen = _shape_value(data[name])
                where = f"{pointer}/{escape_token(name)}"
                kind = json_type(data[name])
                out.append(
                    Difference("union-variant-unknown", where, "union tag", kind, None, seen)
                )
                return
        if all(f[0].kind == "type-mismatch" and f[0].pointer == pointer for f in tries):
            out.append(Difference("type-mismatch", pointer, says, json_type(data)))
            return
        closest: list[Difference] = min(tries, key=_count)  # the variant it comes closest to
        out.extend(closest)

    return check


def _count(found: list[Difference]) -> int:
    return len(found)
