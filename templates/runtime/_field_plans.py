"""Which raw JSON values a field keeps as they are, worked out once per field.

Most fields of a response are plain scalars (``str``, ``int | None``, an enum's ``Literal``)
whose decoded JSON value, when it has the documented type, already *is* the validated value.
Knowing that once per field lets a first read skip the field's own validator. A class's plain
fields are kept together (:func:`class_plan`): one pydantic-core call of strict schemas takes
an object's raw values that already are their typed values, and the defaults of the absent
ones, where a Python test per field cost more than the whole call. Everything else (models,
lists, dates, a constraint not understood here) is left to the validator, as is every value the
strict schemas refuse, so what a read returns, warns or records never depends on which path it
took.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union

import annotated_types
from pydantic.fields import FieldInfo
from pydantic_core import SchemaValidator, core_schema

from ._open import OpenMarker, Unknown

__all__ = ["IMMUTABLE", "SCALARS", "Accepts", "Keep", "accepts", "class_plan"]

SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})
"""The types of JSON scalars as ``json.loads`` makes them (hashable, so an enum can list them)."""
_ANY: frozenset[type] = SCALARS | {dict, list}
_INF = float("inf")
IMMUTABLE = frozenset({type(None), bool, int, float, str, bytes, tuple})


@dataclass(slots=True)
class Accepts:
    """The raw values a field keeps as they are."""

    plain: set[type] = field(default_factory=set)  # every value of these exact types
    listed: dict[Any, type] = field(default_factory=dict)  # an enum's values, with their types
    bounded: type | None = None  # ``int``, kept when ``low <= value <= high``
    low: float = -_INF
    high: float = _INF


def accepts(annotation: Any, metadata: list[Any]) -> Accepts | None:
    """What a field of this type (with pydantic's metadata for it) keeps as it is, or None
    when its values must all go through the validator."""
    found = Accepts()
    return found if _collect(annotation, tuple(metadata), found) else None


def _collect(tp: Any, metadata: tuple[Any, ...], found: Accepts) -> bool:
    """Add what ``tp`` keeps as is to ``found``; False when that cannot be told by type."""
    while typing.get_origin(tp) is Annotated:
        tp, *more = typing.get_args(tp)
        metadata += tuple(more)
    bounds = _bounds(metadata)
    if bounds is None:
        return False
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return all(_collect(member, metadata, found) for member in typing.get_args(tp))
    if tp is Unknown:  # what none of the other members accepts: the validator's to build
        return True
    if tp is type(None):  # constraints bind the other members, never null
        found.plain.add(tp)
        return True
    if bounds != (-_INF, _INF):
        return tp is int and found.bounded is None and _bound(found, bounds)
    if origin is Literal:
        values = typing.get_args(tp)
        if bool in map(type, values) and not {int, float}.isdisjoint(map(type, values)):
            return False  # True and 1 are one key to a dict, and one value to a literal
        found.listed.update((v, type(v)) for v in values if type(v) in SCALARS)
        return all(type(v) in SCALARS for v in values)
    if tp is Any:
        found.plain |= _ANY
        return True
    if tp in SCALARS:
        found.plain.add(tp)
        return True
    return False


def _bound(found: Accepts, bounds: tuple[float, float]) -> bool:
    found.bounded = int
    found.low, found.high = bounds
    return True


def _bounds(metadata: tuple[Any, ...]) -> tuple[float, float] | None:
    """The closed integer range the metadata allows, or None for metadata not understood here."""
    low, high = -_INF, _INF
    for item in metadata:
        if isinstance(item, OpenMarker):
            continue
        if isinstance(item, annotated_types.Ge) and type(item.ge) is int:
            low = max(low, item.ge)
        elif isinstance(item, annotated_types.Gt) and type(item.gt) is int:
            low = max(low, item.gt + 1)
        elif isinstance(item, annotated_types.Le) and type(item.le) is int:
            high = min(high, item.le)
        elif isinstance(item, annotated_types.Lt) and type(item.lt) is int:
            high = min(high, item.lt - 1)
        else:
            return None
    return low, high


Keep = Callable[[dict[str, Any]], dict[str, Any]]
"""A class's plain fields as a JSON object has them: the typed value of each whose raw value
already is it (under the field's name), the default of each absent one that has a shared one."""


def class_plan(fields: list[tuple[str, str, FieldInfo]]) -> Keep:
    """The :data:`Keep` of a class's fields (name, wire name, info): one pydantic-core
    validator, made of strict schemas that take exactly the values :func:`accepts` names as they
    are (a value any of them refuses is left out, for the field's own validator when read)."""
    fields_schema: dict[str, core_schema.TypedDictField] = {}
    for name, key, info in fields:
        found = accepts(info.annotation, info.metadata)
        schema = None if found is None else _schema(found)
        if schema is None:
            continue
        if info.default_factory is None and type(info.default) in IMMUTABLE:
            if not info.is_required():
                schema = core_schema.with_default_schema(
                    schema, default=info.default, on_error="omit"
                )
        if schema["type"] != "default":
            schema = core_schema.with_default_schema(schema, on_error="omit")
        alias = key if key != name else None
        fields_schema[name] = core_schema.typed_dict_field(
            schema, required=False, validation_alias=alias
        )
    typed = core_schema.typed_dict_schema(fields_schema, extra_behavior="ignore", total=False)
    keep: Keep = SchemaValidator(typed).validate_python
    return keep


_STRICT = ((str, core_schema.str_schema), (bool, core_schema.bool_schema),
           (int, core_schema.int_schema), (float, core_schema.float_schema))  # fmt: skip


def _schema(found: Accepts) -> core_schema.CoreSchema | None:
    """A strict schema that takes the values ``found`` keeps, and gives each back as it is
    (None: it keeps none)."""
    if dict in found.plain:  # ``Any``
        return core_schema.any_schema()
    choices: list[core_schema.CoreSchema] = [
        make(strict=True) for kind, make in _STRICT if kind in found.plain
    ]
    if found.listed:
        choices.append(core_schema.literal_schema(list(found.listed)))
    if found.bounded is not None and int not in found.plain:
        low = None if found.low == -_INF else int(found.low)
        high = None if found.high == _INF else int(found.high)
        choices.append(core_schema.int_schema(strict=True, ge=low, le=high))
    nullable = type(None) in found.plain
    if not choices:
        return core_schema.none_schema() if nullable else None
    one = choices[0] if len(choices) == 1 else core_schema.union_schema([*choices], mode="smart")
    return core_schema.nullable_schema(one) if nullable else one
