"""Lazily read models: built over their JSON object, each field validated when first read.

A response model is made from its JSON object without validating it (like pydantic's
``model_construct``, but cheaper): a page of a hundred objects costs about what ``json.loads``
does. Each declared field is a :class:`LazyField` on its class, and a value, once typed, is kept
in the instance, so every later read is a plain attribute hit.

The first read of any field of an instance keeps every field whose raw value already is its
typed value (a ``str`` for ``str``, a listed enum value, an integer in range; see
:mod:`._field_plans`), in one pydantic-core call; nested models, built when their field is first
read, keep theirs as they are built. Every other field (dates, anything the strict check
refuses) is validated when it is read, and only then: a value that fails is
kept as it came and reported through :func:`._differences.report`, the one rule every reader
follows, named by its JSON pointer (see :mod:`._where`).
"""

from __future__ import annotations

import functools
import types
import typing
import weakref
from collections.abc import Callable
from typing import Annotated, Any, Union

import pydantic

from ._differences import LISTENERS, MISSING, Difference, Kind, child, report
from ._field_names import aliases, field_keys, member_names
from ._field_plans import IMMUTABLE, Keep, class_plan
from ._lenient import adapter, complete, construct
from ._open import Unknown
from ._where import NOWHERE_PLACE, Where

__all__ = ["LazyField", "build", "install", "lazy_builder", "raw_of", "read_field"]

RAW = "_cube_raw"  # keys of a lazy model's private dict: its JSON object,
AT = "_cube_at"  # and where it was found (a Where)
_LAZY: weakref.WeakSet[type] = weakref.WeakSet()  # the classes built lazily (see install)
_PRIVATE: Any = vars(pydantic.BaseModel)["__pydantic_private__"]  # its slot, set in C
_DICT: Any = vars(pydantic.BaseModel)["__dict__"]  # an instance's dict, set whole in C
_NEW, _PUT, _FILL = object.__new__, _PRIVATE.__set__, _DICT.__set__  # bound once, not per list


class LazyField:
    """A declared field of a lazily built model, put on its class by :func:`install`.

    A non-data descriptor: once a value is kept in the instance's ``__dict__``, Python finds it
    there without calling this again. On the class, and on an instance built by pydantic
    (whose ``__dict__`` has every field), it is as if it were not there. The instance's first
    read (its ``__dict__`` still empty) keeps all its plain fields at once: a type test each,
    where a read through here each would cost a call each.
    """

    __slots__ = ("name", "owner")

    def __init__(self, owner: type[pydantic.BaseModel], name: str) -> None:
        self.owner = owner
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            raise AttributeError(self.name)  # pydantic's classes have no field attributes
        try:
            private = obj.__pydantic_private__
            raw = private[RAW]
        except (AttributeError, KeyError, TypeError):
            raise AttributeError(self.name) from None  # not built lazily: pydantic's lookup
        kept = obj.__dict__
        if type(obj) is self.owner:
            keep, aliased, nested = _TABLES.get(self.owner) or _table(self.owner)
            if not kept:  # the instance's first read: keep its plain fields (see module)
                if not aliased or aliased.isdisjoint(raw):  # else: a member under its own name
                    kept = keep(raw)  # a new dict: the instance's own from now on
                    _FILL(obj, kept)
                    if self.name in kept:
                        return kept[self.name]
            found = nested.get(self.name)
            if found is not None and found[0] in raw:  # a model, or a list of them
                key, reader = found
                where = private[AT]
                value = kept[self.name] = reader(
                    raw[key], Where(where.context, where, key, None, raw)
                )
                return value
        value = kept[self.name] = read_field(obj, self.name, raw)
        return value


_Table = tuple[Keep, frozenset[str], dict[str, tuple[str, "Reader"]]]
_TABLES: dict[type, _Table] = {}  # _table by class: a first read's one dict lookup


def _table(cls: type[pydantic.BaseModel]) -> _Table:
    """How a first read finds the fields of ``cls`` (see :class:`LazyField`): the plan of the
    fields whose raw value may be its typed value (see :func:`._field_plans.class_plan`); the
    names of aliased fields, which a server may also send (``populate_by_name``); and the lazy
    builders of model fields, with their wire names."""
    plain, nested = [], {}
    for name, (key, field) in field_keys(cls).items():
        reader = _field_reader(cls, name)[0]
        if reader is not None:
            nested[name] = (key, reader)
        else:
            plain.append((name, key, field))
    aliased = frozenset(name for name, (key, _) in field_keys(cls).items() if key != name)
    table = _TABLES[cls] = (class_plan(plain), aliased, nested)
    return table


def install(cls: type[pydantic.BaseModel]) -> None:
    """Make ``cls`` lazily buildable: a :class:`LazyField` per field, but where a base already
    gives the name another meaning (a mixin's property), which the class's ``__getattr__`` then
    reads through :func:`read_field`."""
    _LAZY.add(cls)
    for name in cls.__pydantic_fields__:
        given = next((vars(base)[name] for base in cls.__mro__ if name in vars(base)), None)
        if given is None or isinstance(given, LazyField):
            setattr(cls, name, LazyField(cls, name))


def raw_of(model: pydantic.BaseModel) -> Any:
    """The JSON object a lazily built model reads its fields from (None for other models)."""
    private = object.__getattribute__(model, "__pydantic_private__")
    return private.get(RAW) if private else None


def _where(model: pydantic.BaseModel) -> Where:
    private = object.__getattribute__(model, "__pydantic_private__")
    where = private.get(AT) if private else None
    return where if isinstance(where, Where) else NOWHERE_PLACE


def build(cls: type[Any], data: dict[str, Any], where: Where, eager: bool = False) -> Any:
    """An instance of ``cls`` over ``data`` whose fields are validated when first read
    (``eager``: its plain fields kept now, see :func:`_lazy_target`)."""
    obj = object.__new__(cls)
    _PRIVATE.__set__(obj, {RAW: data, AT: where})
    if eager:
        keep, aliased, _ = _TABLES.get(cls) or _table(cls)
        if not aliased or aliased.isdisjoint(data):
            _FILL(obj, keep(data))
    if LISTENERS and not member_names(cls).issuperset(data):
        _report_extras(cls, data, where)
    return obj


def read_field(model: pydantic.BaseModel, name: str, raw: dict[str, Any]) -> Any:
    """Field ``name`` of a lazily built model, typed: a lazy model, or what its validator makes
    of it, or its default; what differs from the document is reported."""
    cls = type(model)
    key, field = field_keys(cls)[name]
    at = key if key in raw or name not in raw else name
    if at in raw:  # its place in the body is worked out only if something is reported
        value = raw[at]
        lazy, tp, check = _field_reader(cls, name)
        if lazy is not None:
            return lazy(value, _where(model).at(at, raw))
        try:
            typed = check(value)
        except pydantic.ValidationError:
            return _fallback(tp, value, _where(model).at(at, raw))
        if LISTENERS and isinstance(typed, Unknown):
            _fallback(tp, value, _where(model).at(at, raw))  # tells the listeners what was new
        return typed
    if field.is_required():
        where = _where(model).at(key, raw)
        report([Difference(Kind.MISSING, where.pointer(), "required", MISSING, where.context)])
        return None
    if field.default_factory is None and type(field.default) in IMMUTABLE:
        return field.default  # shared safely: nothing can change it
    return field.get_default(call_default_factory=True)


def _report_extras(cls: type[pydantic.BaseModel], data: dict[str, Any], where: Where) -> None:
    """Members the document does not name, for the listeners (never a warning)."""
    names = aliases(cls)
    extra = [k for k in data if k not in names]
    if extra:
        base = where.pointer_of(data)
        report(
            Difference(Kind.EXTRA_FIELD, child(base, k), cls.__name__, data[k], where.context)
            for k in extra
        )


Reader = Callable[[Any, Where], Any]
"""A lazy builder: takes a raw value and its place (a :class:`Where` made for it alone)."""


@functools.cache
def _field_reader(
    cls: type[pydantic.BaseModel], name: str
) -> tuple[Reader | None, Any, Callable[[Any], Any]]:
    """How to turn the raw value of one field into its typed value: a lazy builder for model
    fields, else the field's type and its validator."""
    complete(cls)
    field = cls.__pydantic_fields__[name]
    tp: Any = field.annotation
    if field.metadata:
        tp = Annotated[(tp, *field.metadata)]
    return _lazy_target(tp), tp, adapter(tp).validator.validate_python


def _lazy_target(tp: Any, eager: bool = True) -> Reader | None:
    """A lazy builder for ``Model``, ``Model | None`` and ``list[Model]`` of lazily built models.

    ``eager``: the models are a field's value, built when that field is first read; their plain
    fields are kept as they are built (one pydantic-core call each, see :func:`_table`), so
    reading them never calls a :class:`LazyField`. A response's own models (``eager`` False)
    keep theirs at their first read, so a call whose models nobody reads stays cheap."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if isinstance(tp, type) and tp in _LAZY:
        model = tp

        def one(value: Any, where: Where) -> Any:
            if isinstance(value, dict):
                return build(model, value, where, eager)
            return _fallback(model, value, where)

        return one
    if origin in (Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _lazy_target(next(a for a in args if a is not type(None)), eager)
        if inner is not None:
            some = inner
            return lambda value, where: None if value is None else some(value, where)
    if origin is list and len(args) == 1:
        if isinstance(args[0], type) and args[0] in _LAZY:
            model_list, listed = _model_list, args[0]
            return lambda value, where: model_list(listed, tp, eager, value, where)
        item = _lazy_target(args[0], eager)
        if item is not None:
            each = item
            return lambda value, where: (
                [each(v, where.at(i)) for i, v in enumerate(value)]
                if isinstance(value, list)
                else _fallback(tp, value, where)
            )
    return None


def _model_list(model: type[Any], tp: Any, eager: bool, value: Any, where: Where) -> Any:
    """``list[Model]``, the commonest response: the loop of :func:`build` inlined. Every item
    shares ``where``, the list's own place: an item's index is looked up only if reported."""
    if not isinstance(value, list):
        return _fallback(tp, value, where)
    if where.items is not None or where is NOWHERE_PLACE:  # not this list's own: make it so
        where = Where(where.context, where.pointer())
    where.items = value
    keep, aliased, _ = (_TABLES.get(model) or _table(model)) if eager else _NO_TABLE
    names = member_names(model) if LISTENERS else None
    odd: list[dict[str, Any]] | None = None  # objects with members the document does not name
    out: list[Any] = []
    for item in value:
        if type(item) is dict:
            obj = _NEW(model)
            _PUT(obj, {RAW: item, AT: where})
            if keep is not None and (not aliased or aliased.isdisjoint(item)):
                _FILL(obj, keep(item))
            out.append(obj)
            if names is not None and not names.issuperset(item):
                odd = odd if odd is not None else []
                odd.append(item)
        else:  # its index is len(out)
            out.append(_fallback(model, item, Where(where.context, where.pointer(), len(out))))
    for item in odd or ():
        _report_extras(model, item, where)
    return out


_NO_TABLE: tuple[None, None, None] = (None, None, None)  # a response's own models: kept when read


def _fallback(tp: Any, value: Any, where: Where) -> Any:
    built, found = construct(tp, value, where.pointer(), where.context)
    report(found)
    return built


@functools.lru_cache(maxsize=1024)
def lazy_builder(tp: Any) -> Reader | None:
    """A lazy builder for a response type, or None when it must be validated whole."""
    return _lazy_target(tp, eager=False)
