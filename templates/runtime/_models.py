"""Response models that survive the ways real APIs change, and stay typed.

``BaseModel``
    Every generated model's base: unknown fields are kept (``model_extra``), and
    :meth:`BaseModel.to_dict` gives the model's JSON back, unknown fields included.

``Open[X]`` and :class:`Unknown`
    ``Open[Literal["a", "b"]]`` (an enum) or ``Open[A | B]`` (a union of models) means
    ``X | Unknown`` to a type checker and at runtime: a value the document does not list is kept
    as ``Unknown(value)`` instead of failing the whole response. The known members are tried
    first, so a known value costs nothing extra. With ``strict=True`` on the client it fails.

Lenient parsing (the default)
    A response that fails validation (a ``null`` where the document says never, a required field
    missing, a number where a string was documented) is built anyway by :func:`construct`: each
    value that validates is validated, each that does not is kept as it came, with one
    :class:`ResponseValidationWarning` naming what differed. ``strict=True`` raises
    ``APIResponseValidationError`` instead.
"""

from __future__ import annotations

import types
import typing
import warnings
from typing import Annotated, Any, TypeVar, Union

import pydantic
from pydantic_core import PydanticCustomError, core_schema

__all__ = ["BaseModel", "Open", "ResponseValidationWarning", "Unknown", "construct", "to_dict"]

T = TypeVar("T")
STRICT = "cube_client_strict"  # the validation-context key that turns Unknown and leniency off


class ResponseValidationWarning(UserWarning):
    """A response differed from the document and was kept as received (lenient mode)."""


class BaseModel(pydantic.BaseModel):
    """A response or request model; unknown fields are kept, ``to_dict()`` returns the JSON."""

    model_config = pydantic.ConfigDict(extra="allow", populate_by_name=True)

    def to_dict(self) -> dict[str, Any]:
        """The model as JSON data: wire names, only the fields that were present, extras kept."""
        return to_dict(self)


def to_dict(model: pydantic.BaseModel) -> dict[str, Any]:
    """JSON data of any model (see :meth:`BaseModel.to_dict`)."""
    data: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    return data


class Unknown:
    """A value the document does not list (a new enum value, a new kind of object): ``.value``
    holds it as received. Compares equal to another ``Unknown`` with the same value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unknown) and other.value == self.value

    def __hash__(self) -> int:
        return hash(repr(self.value))

    def __repr__(self) -> str:
        return f"Unknown({self.value!r})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: pydantic.GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.with_info_plain_validator_function(
            _to_unknown,
            serialization=core_schema.plain_serializer_function_ser_schema(_unknown_value),
        )


def _unknown_value(value: Any) -> Any:
    return value.value if isinstance(value, Unknown) else value


def _to_unknown(value: Any, info: core_schema.ValidationInfo) -> Unknown:
    if isinstance(value, Unknown):
        return value
    if isinstance(info.context, dict) and info.context.get(STRICT):
        raise PydanticCustomError("unknown_value", "value {value!r} is not one the document lists", {"value": value})
    return Unknown(value)


class _OpenMarker:
    """Builds ``known | Unknown`` tried left to right, so known values never reach Python code."""

    def __get_pydantic_core_schema__(self, source: Any, handler: pydantic.GetCoreSchemaHandler) -> core_schema.CoreSchema:
        members = [m for m in typing.get_args(source) if m is not Unknown]
        inner: Any = members[0] if len(members) == 1 else Union[tuple(members)]  # noqa: UP007
        return core_schema.union_schema(
            [handler.generate_schema(inner), handler.generate_schema(Unknown)],
            mode="left_to_right",
        )


Open = Annotated[T | Unknown, _OpenMarker()]


# --------------------------------------------------------------------------- lenient building


def construct(tp: Any, data: Any, path: str = "") -> tuple[Any, list[str]]:
    """Build ``tp`` from JSON ``data`` without failing: ``(value, problems)``."""
    problems: list[str] = []
    value = _build(tp, data, path, problems)
    return value, problems


def _validates(tp: Any, data: Any) -> tuple[bool, Any]:
    from ._response import _adapter

    try:
        return True, _adapter(tp).validate_python(data)
    except pydantic.ValidationError:
        return False, None


def _strip_annotated(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _build(tp: Any, data: Any, path: str, problems: list[str]) -> Any:
    ok, value = _validates(tp, data)
    if ok:
        return value
    tp = _strip_annotated(tp)
    origin = typing.get_origin(tp)
    where = path or "the top level"
    if origin in (Union, types.UnionType):
        members = [m for m in typing.get_args(tp) if m is not type(None)]
        if data is None:
            problems.append(f"{where}: null")
            return None
        models = [m for m in members if isinstance(m, type) and issubclass(m, pydantic.BaseModel)]
        if isinstance(data, dict) and models:
            return _build(models[0], data, path, problems)
        if Unknown in members:
            return Unknown(data)
        if len(members) == 1:
            return _build(members[0], data, path, problems)
    elif isinstance(tp, type) and issubclass(tp, pydantic.BaseModel) and isinstance(data, dict):
        return _build_model(tp, data, path, problems)
    elif origin is list and isinstance(data, list):
        (item,) = typing.get_args(tp) or (Any,)
        return [_build(item, v, f"{path}[{i}]", problems) for i, v in enumerate(data)]
    elif origin is dict and isinstance(data, dict):
        args = typing.get_args(tp)
        item = args[1] if len(args) == 2 else Any
        return {k: _build(item, v, f"{path}.{k}" if path else str(k), problems) for k, v in data.items()}
    problems.append(f"{where}: {'null' if data is None else type(data).__name__ + ' ' + _short(data)} kept as received")
    return data


def _short(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 40 else text[:37] + "..."


def _build_model(cls: type[pydantic.BaseModel], data: dict[str, Any], path: str, problems: list[str]) -> Any:
    values: dict[str, Any] = {}
    used: set[str] = set()
    for name, field in cls.model_fields.items():
        key = field.alias or name
        if key not in data and name in data:
            key = name
        sub = f"{path}.{key}" if path else key
        if key in data:
            used.add(key)
            values[name] = _build(field.annotation, data[key], sub, problems)
        elif field.is_required():
            problems.append(f"{sub}: required field missing, read as None")
            values[name] = None
    fields_set = {n for n, f in cls.model_fields.items() if (f.alias or n) in used or n in used}
    extra = {k: v for k, v in data.items() if k not in used}
    if cls.model_config.get("extra") == "allow":
        values.update(extra)
    return cls.model_construct(_fields_set=fields_set, **values)


def warn(problems: list[str], what: str) -> None:
    """One warning for every difference found in one response."""
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        warnings.warn(
            ResponseValidationWarning(f"{what}: response kept as received where it differs from the document: {shown}"),
            stacklevel=4,
        )
