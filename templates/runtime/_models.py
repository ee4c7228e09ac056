"""Response models that survive the ways real APIs change, and stay typed.

``BaseModel``
    Every generated model's base: unknown fields are kept (``model_extra``), and
    :meth:`BaseModel.to_dict` gives the model's JSON back, unknown fields included.

Lazy building (the default for responses, :mod:`._lazy`)
    A response model is made from its JSON object without validating it: each field is
    validated the first time it is read, and kept. A page of a hundred objects costs about what
    ``json.loads`` does; fields nobody reads cost nothing. Dumping, comparing or printing a model
    reads every field first.

``Open[X]`` and :class:`Unknown` (:mod:`._open`)
    A value the document does not list is kept as ``Unknown(value)`` instead of failing the
    whole response. With ``strict=True`` on the client it fails.

Lenient parsing (the default, :mod:`._lenient`)
    A response that fails validation is built anyway: each value that validates is validated,
    each that does not is kept as it came, and what differed goes to
    :func:`._differences.report`, the one rule every reader follows: a
    :class:`ResponseValidationWarning`, or with ``strict=True`` an ``APIResponseValidationError``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Self

import pydantic

from ._differences import ResponseValidationWarning
from ._field_names import aliases, field_keys
from ._lazy import build, install, lazy_builder, read_field
from ._lazy import raw_of as _raw
from ._lenient import adapter, construct
from ._loading import lazy_classes
from ._open import STRICT, Open, Unknown
from ._where import NOWHERE_PLACE, Where

__all__ = [
    "STRICT",
    "BaseModel",
    "Open",
    "ResponseValidationWarning",
    "Unknown",
    "Where",
    "adapter",
    "construct",
    "lazy_builder",
    "lazy_classes",
    "to_dict",
]


class BaseModel(pydantic.BaseModel):
    """A response or request model; unknown fields are kept, ``to_dict()`` returns the JSON."""

    model_config = pydantic.ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    @property
    def _request_id(self) -> str | None:
        """The request id the server answered this under, for calls that send one."""
        from ._request_ids import request_id_of

        return request_id_of(self)

    def to_dict(self) -> dict[str, Any]:
        """The model as JSON data: wire names, only the fields that were present, extras kept.

        A model built from a response gives that response's object exactly as received.
        """
        return to_dict(self)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        install(cls)  # its fields read lazily

    @classmethod
    def _from_json(cls, data: dict[str, Any], where: Where = NOWHERE_PLACE) -> Self:
        """An instance over ``data`` whose fields are validated when first read (see module).
        Only the raw object now; which fields were set and the unknown ones are worked out when
        first asked for (see __getattr__)."""
        built: Self = build(cls, data, where)
        return built

    def _fill_meta(self, data: dict[str, Any]) -> None:
        names = aliases(type(self))
        object.__setattr__(self, "__pydantic_fields_set__", {names[k] for k in data if k in names})
        object.__setattr__(
            self, "__pydantic_extra__", {k: v for k, v in data.items() if k not in names}
        )

    def _materialize(self) -> None:
        """Read every field (and those of nested lazy models) so pydantic sees a whole model."""
        if _raw(self) is None:
            return
        fields = type(self).model_fields
        for name in fields:  # nested models read earlier may still be partial: visit them all
            _materialize_value(
                self.__dict__[name] if name in self.__dict__ else getattr(self, name)
            )
        # declaration order, as a validated model has it
        object.__setattr__(self, "__dict__", {name: self.__dict__[name] for name in fields})

    if not TYPE_CHECKING:  # a type checker keeps seeing only the declared fields

        def __getattr__(self, name: str) -> Any:
            raw = _raw(self)
            cls = type(self)
            if raw is not None:
                if name in field_keys(cls):  # a field without a LazyField (see install)
                    value = read_field(self, name, raw)
                    self.__dict__[name] = value
                    return value
                if name in _META:
                    self._fill_meta(raw)
                    return object.__getattribute__(self, name)
                if "__pydantic_extra__" not in _set_slots(self):
                    self._fill_meta(raw)
            return super().__getattr__(name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseModel) or type(other) is not type(self):
            return NotImplemented
        self._materialize()
        other._materialize()
        return self.__dict__ == other.__dict__ and (self.__pydantic_extra__ or {}) == (
            other.__pydantic_extra__ or {}
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr_args__(self) -> Any:
        self._materialize()
        return super().__repr_args__()

    def __iter__(self) -> Any:
        self._materialize()
        return super().__iter__()

    def __getstate__(self) -> dict[Any, Any]:
        self._materialize()
        return super().__getstate__()

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        self._materialize()
        return super().model_dump(**kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        self._materialize()
        return super().model_dump_json(**kwargs)

    def model_copy(self, **kwargs: Any) -> Self:
        self._materialize()
        return super().model_copy(**kwargs)

    @classmethod
    def model_rebuild(cls, **kwargs: Any) -> bool | None:
        """Bind the classes this one names first: a process that unpickled an instance, or
        imported its class module directly, never went through the family's models module."""
        if not cls.__pydantic_complete__:
            module = sys.modules.get(cls.__module__)
            if module is not None:  # the public models module: loading through it binds
                getattr(module, cls.__name__, None)
        kwargs["_parent_namespace_depth"] = kwargs.get("_parent_namespace_depth", 2) + 1
        return super().model_rebuild(**kwargs)


_META = frozenset({"__pydantic_extra__", "__pydantic_fields_set__"})


def _set_slots(model: pydantic.BaseModel) -> set[str]:
    found = set()
    for name in _META:
        try:
            object.__getattribute__(model, name)
        except AttributeError:
            continue
        found.add(name)
    return found


def _materialize_value(value: Any) -> None:
    if isinstance(value, BaseModel):
        value._materialize()
    elif isinstance(value, list):
        for item in value:
            _materialize_value(item)


def to_dict(model: pydantic.BaseModel) -> dict[str, Any]:
    """JSON data of any model (see :meth:`BaseModel.to_dict`)."""
    raw = _raw(model)
    if isinstance(raw, dict):
        return raw
    data: dict[str, Any] = model.model_dump(
        mode="json", by_alias=True, exclude_unset=True, warnings=False
    )
    return data
