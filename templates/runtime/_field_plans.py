"""Which raw JSON values a field keeps as they are, worked out once per field.

Most fields of a response are plain scalars (``str``, ``int | None``, an enum's ``Literal``)
whose decoded JSON value, when it has the documented type, already *is* the validated value.
Knowing that once per field lets a first read skip the validator: a ``type(value)`` test and a
dict lookup instead of a trip through pydantic-core. Everything else (models, lists, dates, a
constraint not understood here) is left to the validator, as is every value the test refuses,
so what a read returns, warns or records never depends on which path it took.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union

import annotated_types

from ._open import OpenMarker, Unknown

__all__ = ["SCALARS", "Accepts", "accepts"]

SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})
"""The types of JSON scalars as ``json.loads`` makes them (hashable, so an enum can list them)."""
_ANY: frozenset[type] = SCALARS | {dict, list}
_INF = float("inf")


@dataclass(slots=True)
class Accepts:
    """The raw values a field keeps as they are."""

    plain: set[type] = field(default_factory=set)  # every value of these exact types
    listed: dict[Any, type] = field(default_factory=dict)  # an enum's values, with their types
    bounded: type | None = None  # ``int``, kept when ``low <= value <= high``
    low: float = -_INF
    high: float = _INF

    def by_type(self) -> dict[type, Check]:
        """The test of a raw value, by its exact type: ``True`` (every value of the type), or
        a C-level membership test (an enum's values, an integer range)."""
        tests: dict[type, Check] = dict.fromkeys(self.plain, True)
        for kind in {type(v) for v in self.listed} - self.plain:
            tests[kind] = frozenset(v for v in self.listed if type(v) is kind).__contains__
        if self.bounded is not None and self.bounded not in tests:
            high = min(self.high, _BIG)
            tests[self.bounded] = range(int(max(self.low, -_BIG)), int(high) + 1).__contains__
        return tests


Check = Callable[[Any], bool] | bool
_BIG = 2**63  # an integer bound past this one is left to the validator


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
