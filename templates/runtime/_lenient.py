"""Lenient building: a value that fails validation is built anyway, and what differed is said.

A response that fails validation (a ``null`` where the document says never, a required field
missing, a number where a string was documented) is built by :func:`construct`: each value that
validates is validated, each that does not is kept as it came. What differed is described as
:class:`._differences.Difference` values (with the JSON pointer of each), for the caller to hand
to :func:`._differences.report`, the one rule every reader follows.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Annotated, Any, Union

import pydantic

from ._differences import MISSING, Context, Difference, Kind, bound_broken, child
from ._open import Unknown

__all__ = ["NOWHERE", "adapter", "complete", "construct"]

NOWHERE = Context("", "")  # the call of a value built outside any response


@functools.lru_cache(maxsize=512)
def adapter(tp: Any) -> pydantic.TypeAdapter[Any]:
    """The (cached) validator of a type."""
    return pydantic.TypeAdapter(tp)


def complete(cls: type[pydantic.BaseModel]) -> None:
    """Resolve the class's forward references before its fields are read.

    A field written ``Annotated[Later | None, Field(alias="wireName")]`` whose type is defined
    further down the module cannot be evaluated when its class is created: until the class is
    rebuilt, pydantic knows neither the field's type nor its alias, and a reader looking the
    wire name up would miss a value the server sent.
    """
    if not cls.__pydantic_complete__:
        cls.model_rebuild()  # the package's models bind their module first (see BaseModel)


def construct(
    tp: Any, data: Any, pointer: str = "", context: Context = NOWHERE
) -> tuple[Any, list[Difference]]:
    """Build ``tp`` from JSON ``data`` without failing: ``(value, differences)``; ``pointer``
    is where ``data`` sits in the body and ``context`` the call it came from."""
    found: list[Difference] = []
    value = _Builder(context, found).build(tp, data, pointer)
    return value, found


def _validates(tp: Any, data: Any) -> tuple[bool, Any]:
    """``(True, value)``, or ``(False, pydantic's errors)`` when ``data`` is no ``tp``."""
    try:
        return True, adapter(tp).validate_python(data)
    except pydantic.ValidationError as exc:
        return False, exc.errors(include_url=False)


def _strip_annotated(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _type_name(tp: Any) -> str:
    if typing.get_origin(tp) is typing.Literal:
        return "one of " + ", ".join(repr(v) for v in typing.get_args(tp))
    name = getattr(tp, "__name__", None)
    return str(name) if name else repr(tp).replace("typing.", "")


class _Builder:
    """:func:`construct`'s walk: each value that fails is kept and described."""

    def __init__(self, context: Context, found: list[Difference]) -> None:
        self.context = context
        self.found = found

    def differs(self, kind: Kind, pointer: str, expected: Any, seen: Any) -> None:
        text = expected if isinstance(expected, str) else _type_name(expected)
        self.found.append(Difference(kind, pointer, text, seen, self.context))

    def build(self, tp: Any, data: Any, pointer: str) -> Any:
        ok, value = _validates(tp, data)
        if ok:
            if isinstance(value, Unknown):
                self.differs(_unknown_kind(data), pointer, _listed(tp), data)
            return value
        bare = _strip_annotated(tp)
        if bare is not tp and data is not None:  # the type fits but a bound may not
            bounds = [b for b in map(bound_broken, value) if b is not None]
            fits, value = _validates(bare, data) if bounds else (False, None)
            if fits:
                self.differs(Kind.OUT_OF_BOUNDS, pointer, " and ".join(bounds), data)
                return value
        tp = bare
        origin = typing.get_origin(tp)
        if origin in (Union, types.UnionType):
            members = [m for m in typing.get_args(tp) if m is not type(None)]
            if data is None:
                self.differs(Kind.NULL, pointer, tp, None)
                return None
            models = [
                m for m in members if isinstance(m, type) and issubclass(m, pydantic.BaseModel)
            ]
            if isinstance(data, dict) and models:
                return self.build(models[0], data, pointer)
            if Unknown in members:
                self.differs(_unknown_kind(data), pointer, _listed(tp), data)
                return Unknown(data)
            if len(members) == 1:
                return self.build(members[0], data, pointer)
        elif isinstance(tp, type) and issubclass(tp, pydantic.RootModel):
            complete(tp)
            root = self.build(tp.model_fields["root"].annotation, data, pointer)
            return tp.model_construct(root)
        elif isinstance(tp, type) and issubclass(tp, pydantic.BaseModel) and isinstance(data, dict):
            return self.model(tp, data, pointer)
        elif origin is list and isinstance(data, list):
            (item,) = typing.get_args(tp) or (Any,)
            return [self.build(item, v, child(pointer, i)) for i, v in enumerate(data)]
        elif origin is dict and isinstance(data, dict):
            args = typing.get_args(tp)
            item = args[1] if len(args) == 2 else Any
            return {k: self.build(item, v, child(pointer, k)) for k, v in data.items()}
        if data is None:
            self.differs(Kind.NULL, pointer, tp, None)
        elif typing.get_origin(tp) is typing.Literal:
            self.differs(Kind.UNKNOWN_ENUM_VALUE, pointer, tp, data)
        else:
            self.differs(Kind.WRONG_TYPE, pointer, tp, data)
        return data

    def model(self, cls: type[pydantic.BaseModel], data: dict[str, Any], pointer: str) -> Any:
        complete(cls)
        values: dict[str, Any] = {}
        used: set[str] = set()
        for name, field in cls.model_fields.items():
            key = field.alias or name
            if key not in data and name in data:
                key = name
            if key in data:
                used.add(key)
                values[name] = self.build(field.annotation, data[key], child(pointer, key))
            elif field.is_required():
                self.differs(Kind.MISSING, child(pointer, key), "required", MISSING)
                values[name] = None
        fields_set = {n for n, f in cls.model_fields.items() if (f.alias or n) in used or n in used}
        extra = {k: v for k, v in data.items() if k not in used}
        for key, value in extra.items():
            self.differs(Kind.EXTRA_FIELD, child(pointer, key), cls, value)
        if cls.model_config.get("extra") == "allow":
            values.update(extra)
        return cls.model_construct(_fields_set=fields_set, **values)


def _unknown_kind(data: Any) -> Kind:
    return Kind.UNKNOWN_VARIANT if isinstance(data, dict) else Kind.UNKNOWN_ENUM_VALUE


def _listed(tp: Any) -> str:
    """The known members of ``Open[...]``, for a value that is none of them."""
    tp = _strip_annotated(tp)
    members = [m for m in typing.get_args(tp) if m is not Unknown and m is not type(None)]
    return " | ".join(_type_name(m) for m in members) or _type_name(tp)
