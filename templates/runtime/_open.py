"""Values a document does not list, kept instead of failing: :class:`Unknown` and ``Open[X]``.

``Open[Literal["a", "b"]]`` (an enum) or ``Open[A | B]`` (a union of models) means
``X | Unknown`` to a type checker and at runtime: a value the document does not list is kept as
``Unknown(value)`` instead of failing the whole response. The known members are tried first, so
a known value costs nothing extra. Validating with ``{STRICT: True}`` as context refuses it.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, Union

import pydantic
from pydantic_core import PydanticCustomError, core_schema

__all__ = ["STRICT", "Open", "OpenMarker", "Unknown"]

T = TypeVar("T")
STRICT = "cube_client_strict"  # the validation-context key that turns Unknown and leniency off


class Unknown:
    """A value the document does not list (a new enum value, a new kind of object): ``.value``
    holds it as received. Compares equal to another ``Unknown`` with the same value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    if not TYPE_CHECKING:  # hidden from type checkers, so `status == "activ"` is still caught

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Unknown) and other.value == self.value

    def __hash__(self) -> int:
        return hash(repr(self.value))

    def __repr__(self) -> str:
        return f"Unknown({self.value!r})"

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: pydantic.GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
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
        raise PydanticCustomError(
            "unknown_value", "value {value!r} is not one the document lists", {"value": value}
        )
    return Unknown(value)


class OpenMarker:
    """Builds ``known | Unknown`` tried left to right, so known values never reach Python code."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: pydantic.GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        members = [m for m in typing.get_args(source) if m is not Unknown]
        inner: Any = members[0] if len(members) == 1 else Union[tuple(members)]  # noqa: UP007
        return core_schema.union_schema(
            [handler.generate_schema(inner), handler.generate_schema(Unknown)],
            mode="left_to_right",
        )


Open = Annotated[T | Unknown, OpenMarker()]
