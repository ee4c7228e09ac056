"""Response models that survive the ways real APIs change, and stay typed.

``BaseModel``
    Every generated model's base: unknown fields are kept (``model_extra``), and
    :meth:`BaseModel.to_dict` gives the model's JSON back, unknown fields included.

Lazy building (the default for responses)
    A response model is made from its JSON object without validating it (like pydantic's
    ``model_construct``, but cheaper): each field is validated the first time it is read, and
    kept. A page of a hundred objects costs about what ``json.loads`` does; fields nobody reads
    cost nothing. Dumping, comparing or printing a model reads every field first.

``Open[X]`` and :class:`Unknown`
    ``Open[Literal["a", "b"]]`` (an enum) or ``Open[A | B]`` (a union of models) means
    ``X | Unknown`` to a type checker and at runtime: a value the document does not list is kept
    as ``Unknown(value)`` instead of failing the whole response. The known members are tried
    first, so a known value costs nothing extra. With ``strict=True`` on the client it fails.

Lenient parsing (the default)
    A response that fails validation (a ``null`` where the document says never, a required field
    missing, a number where a string was documented) is built anyway by :func:`construct`: each
    value that validates is validated, each that does not is kept as it came. What differed is
    described as :class:`._differences.Difference` values (with the JSON pointer of each) and
    handed to :func:`._differences.report`, the one rule every reader follows: a
    :class:`ResponseValidationWarning`, or with ``strict=True`` an ``APIResponseValidationError``.
    A lazily read model remembers where in which response it was found, so a field read later
    is named by its real place in the body.
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
import types
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Self, TypeVar, Union

import pydantic
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError, core_schema

from ._differences import (
    LISTENERS,
    MISSING,
    Context,
    Difference,
    Kind,
    ResponseValidationWarning,
    child,
    report,
)

__all__ = [
    "BaseModel",
    "Open",
    "ResponseValidationWarning",
    "Unknown",
    "adapter",
    "construct",
    "lazy_classes",
    "to_dict",
]

T = TypeVar("T")
STRICT = "cube_client_strict"  # the validation-context key that turns Unknown and leniency off


_RAW = "_cube_raw"
_AT = "_cube_at"  # where the raw object was found: a :class:`Where`


@functools.lru_cache(maxsize=512)
def adapter(tp: Any) -> pydantic.TypeAdapter[Any]:
    """The (cached) validator of a type."""
    return pydantic.TypeAdapter(tp)


class Where:
    """Where a value was found: the call, and its JSON pointer, worked out only when asked for.

    ``items`` is set for the list a page of models came from; all its models share one
    :class:`Where`, and an item's index is looked up only if something about it is reported.
    """

    __slots__ = ("context", "items", "key", "parent", "parent_raw")

    def __init__(
        self,
        context: Context,
        parent: Where | str = "",
        key: str | int | None = None,
        items: list[Any] | None = None,
        parent_raw: Any = None,
    ) -> None:
        self.context = context
        self.parent = parent
        self.parent_raw = parent_raw
        self.key = key
        self.items = items

    def pointer(self) -> str:
        parent = self.parent
        base = parent.pointer_of(self.parent_raw) if isinstance(parent, Where) else parent
        return base if self.key is None else child(base, self.key)

    def pointer_of(self, raw: Any) -> str:
        """The pointer of ``raw``: this place, or its index in :attr:`items`."""
        if self.items is None:
            return self.pointer()
        index = next((i for i, item in enumerate(self.items) if item is raw), None)
        return self.pointer() if index is None else child(self.pointer(), index)

    def at(self, key: str | int, raw: Any = None) -> Where:
        """The place of ``key`` inside the value found here (``raw``: that value, for lists)."""
        return Where(self.context, self, key, None, raw)


_NOWHERE = Where(Context("", ""))


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
    def _from_json(cls, data: dict[str, Any], where: Where = _NOWHERE) -> Self:
        """An instance over ``data`` whose fields are validated when first read (see module)."""
        obj = cls.__new__(cls)
        # Only the raw object now; which fields were set and the unknown ones are worked out
        # when first asked for (see __getattr__).
        object.__setattr__(obj, "__pydantic_private__", {_RAW: data, _AT: where})
        if LISTENERS:
            _report_extras(cls, data, where)
        return obj

    def _fill_meta(self, data: dict[str, Any]) -> None:
        names = _aliases(type(self))
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
                entry = _keys(cls).get(name)
                if entry is not None:
                    value = _read_field(cls, name, raw, entry, self)
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


def _raw(model: pydantic.BaseModel) -> Any:
    private = object.__getattribute__(model, "__pydantic_private__")
    return private.get(_RAW) if private else None


def _where(model: pydantic.BaseModel) -> Where:
    private = object.__getattribute__(model, "__pydantic_private__")
    where = private.get(_AT) if private else None
    return where if isinstance(where, Where) else _NOWHERE


def _report_extras(cls: type[pydantic.BaseModel], data: dict[str, Any], where: Where) -> None:
    """Members the document does not name, for the listeners (never a warning)."""
    names = _aliases(cls)
    extra = [k for k in data if k not in names]
    if extra:
        base = where.pointer_of(data)
        report(
            Difference(Kind.EXTRA_FIELD, child(base, k), cls.__name__, data[k], where.context)
            for k in extra
        )


def _complete(cls: type[pydantic.BaseModel]) -> None:
    """Resolve the class's forward references before its fields are read.

    A field written ``Annotated[Later | None, Field(alias="wireName")]`` whose type is defined
    further down the module cannot be evaluated when its class is created: until the class is
    rebuilt, pydantic knows neither the field's type nor its alias, and a reader looking the
    wire name up would miss a value the server sent.
    """
    if not cls.__pydantic_complete__:
        cls.model_rebuild()  # binds the module first (see BaseModel.model_rebuild)


_bind_lock = threading.RLock()


def lazy_classes(
    namespace: dict[str, Any], package: str, modules: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A models module's ``__getattr__`` and ``__dir__``: a class is imported from its own
    module (``package.<module>``) the first time it is named, with the classes it reaches bound
    where they are named; no other class is built. Importing every model of a large API at the
    first call would cost hundreds of milliseconds.

    The classes report the models module as theirs (``__module__``), so pydantic resolves their
    annotations in its namespace: binding a class module also copies its names there."""

    def get(name: str) -> Any:
        if name == "__all__":  # what ``import *`` takes: every class, loaded or not
            return sorted(modules)
        module_name = modules.get(name)
        if module_name is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{module_name}")
        _bind(module, namespace)
        value = getattr(module, name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted({*modules, *(n for n in namespace if n.startswith("__"))})

    return get, names


def _bind(module: types.ModuleType, public: dict[str, Any]) -> None:
    """Give ``module`` and every class module it reaches the classes their annotations name
    (listed in ``_REFS``), so pydantic can resolve them when it builds a validator; and copy
    each one's names into ``public``, the namespace of the models module the classes name as
    theirs, where pydantic looks them up."""
    with _bind_lock:
        stack = [module]
        while stack:
            space = vars(stack.pop())
            if space.get("_BOUND"):
                continue
            space["_BOUND"] = True
            for name, sub in space.get("_REFS", {}).items():
                target = importlib.import_module(f"{space['__package__']}.{sub}")
                space.setdefault(name, getattr(target, name))
                stack.append(target)
            for name, value in space.items():
                if not name.startswith("_"):
                    public.setdefault(name, value)


@functools.cache
def _aliases(cls: type[pydantic.BaseModel]) -> dict[str, str]:
    """Wire name to field name (the field name too, as ``populate_by_name`` allows)."""
    _complete(cls)
    names = {name: name for name in cls.model_fields}
    names.update({f.alias: name for name, f in cls.model_fields.items() if f.alias})
    return names


Reader = Callable[[Any, Where], Any]


@functools.cache
def _field_reader(
    cls: type[pydantic.BaseModel], name: str
) -> tuple[Reader | None, Any, Callable[[Any], Any]]:
    """How to turn the raw value of one field into its typed value: a lazy builder for model
    fields, else the field's type and its validator."""
    _complete(cls)
    field = cls.model_fields[name]
    tp: Any = field.annotation
    if field.metadata:
        tp = Annotated[(tp, *field.metadata)]
    return _lazy_target(tp), tp, adapter(tp).validator.validate_python


def _lazy_target(tp: Any) -> Reader | None:
    """A lazy builder for ``Model``, ``Model | None`` and ``list[Model]`` of this module's models;
    it takes the value and where it was found."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        model = tp

        def one(value: Any, where: Where) -> Any:
            if isinstance(value, dict):
                return model._from_json(value, where)
            return _fallback(model, value, where)

        return one
    if origin in (Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _lazy_target(next(a for a in args if a is not type(None)))
        if inner is not None:
            some = inner
            return lambda value, where: None if value is None else some(value, where)
    if origin is list and len(args) == 1:
        if isinstance(args[0], type) and issubclass(args[0], BaseModel):
            return functools.partial(_model_list, args[0], tp)
        item = _lazy_target(args[0])
        if item is not None:
            each = item
            return lambda value, where: (
                [each(v, where.at(i)) for i, v in enumerate(value)]
                if isinstance(value, list)
                else _fallback(tp, value, where)
            )
    return None


def _model_list(model: type[BaseModel], tp: Any, value: Any, where: Where) -> Any:
    """``list[Model]``, the commonest response: the loop of :meth:`BaseModel._from_json` inlined."""
    if not isinstance(value, list):
        return _fallback(tp, value, where)
    new = object.__new__
    put = object.__setattr__
    shared = Where(where.context, where, None, value)  # every item's place, by its index
    out = []
    for index, item in enumerate(value):
        if type(item) is dict:
            obj = new(model)
            put(obj, "__pydantic_private__", {_RAW: item, _AT: shared})
            out.append(obj)
        else:
            out.append(_fallback(model, item, where.at(index)))
    if LISTENERS:
        for item in value:
            if type(item) is dict:
                _report_extras(model, item, shared)
    return out


def _fallback(tp: Any, value: Any, where: Where) -> Any:
    built, found = construct(tp, value, where.pointer(), where.context)
    report(found)
    return built


@functools.lru_cache(maxsize=1024)
def lazy_builder(tp: Any) -> Reader | None:
    """A lazy builder for a response type, or None when it must be validated whole."""
    return _lazy_target(tp)


@functools.cache
def _keys(cls: type[pydantic.BaseModel]) -> dict[str, tuple[str, FieldInfo]]:
    """Field name → (its wire name, its info), read once per class after its forward references
    are resolved (so every alias is known)."""
    _complete(cls)
    return {name: (f.alias or name, f) for name, f in cls.__pydantic_fields__.items()}


def _read_field(
    cls: type[pydantic.BaseModel],
    name: str,
    raw: dict[str, Any],
    entry: tuple[str, FieldInfo],
    model: pydantic.BaseModel,
) -> Any:
    key, field = entry
    if key not in raw:
        key = name
    if key in raw:  # its place in the body is worked out only if something is reported
        lazy, tp, check = _field_reader(cls, name)
        value = raw[key]
        if lazy is not None:
            return lazy(value, _where(model).at(key, raw))
        try:
            typed = check(value)
        except pydantic.ValidationError:
            return _fallback(tp, value, _where(model).at(key, raw))
        if LISTENERS and isinstance(typed, Unknown):
            _fallback(tp, value, _where(model).at(key, raw))  # tells the listeners what was new
        return typed
    if field.is_required():
        where = _where(model).at(field.alias or name, raw)
        report([Difference(Kind.MISSING, where.pointer(), "required", MISSING, where.context)])
        return None
    if field.default_factory is None and type(field.default) in _IMMUTABLE:
        return field.default  # shared safely: nothing can change it
    return field.get_default(call_default_factory=True)


_IMMUTABLE = frozenset({type(None), bool, int, float, str, bytes, tuple})


def to_dict(model: pydantic.BaseModel) -> dict[str, Any]:
    """JSON data of any model (see :meth:`BaseModel.to_dict`)."""
    raw = _raw(model)
    if isinstance(raw, dict):
        return raw
    data: dict[str, Any] = model.model_dump(
        mode="json", by_alias=True, exclude_unset=True, warnings=False
    )
    return data


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


class _OpenMarker:
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


Open = Annotated[T | Unknown, _OpenMarker()]


# --------------------------------------------------------------------------- lenient building


def construct(
    tp: Any, data: Any, pointer: str = "", context: Context = _NOWHERE.context
) -> tuple[Any, list[Difference]]:
    """Build ``tp`` from JSON ``data`` without failing: ``(value, differences)``; ``pointer``
    is where ``data`` sits in the body and ``context`` the call it came from."""
    found: list[Difference] = []
    value = _Builder(context, found).build(tp, data, pointer)
    return value, found


def _validates(tp: Any, data: Any) -> tuple[bool, Any]:
    try:
        return True, adapter(tp).validate_python(data)
    except pydantic.ValidationError:
        return False, None


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
        tp = _strip_annotated(tp)
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
            _complete(tp)
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
        _complete(cls)
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
