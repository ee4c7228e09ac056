"""A model class's names, worked out once per class after its forward references resolve (so
every alias is known): each field's wire name, and every name a member of its objects may have
(the wire name, or the field's own name as ``populate_by_name`` allows)."""

from __future__ import annotations

import functools

import pydantic
from pydantic.fields import FieldInfo

from ._lenient import complete

__all__ = ["aliases", "field_keys", "member_names"]


@functools.cache
def aliases(cls: type[pydantic.BaseModel]) -> dict[str, str]:
    """Wire name to field name (the field name too, as ``populate_by_name`` allows)."""
    complete(cls)
    names = {name: name for name in cls.__pydantic_fields__}
    names.update({f.alias: name for name, f in cls.__pydantic_fields__.items() if f.alias})
    return names


def member_names(cls: type[pydantic.BaseModel]) -> frozenset[str]:
    """Every name a member of ``cls``'s objects may have: one set test tells whether an object
    has members the document does not name (most have none)."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = frozenset(aliases(cls))
    return names


_NAMES: dict[type, frozenset[str]] = {}


@functools.cache
def field_keys(cls: type[pydantic.BaseModel]) -> dict[str, tuple[str, FieldInfo]]:
    """Field name → (its wire name, its info), read once per class after its forward references
    are resolved (so every alias is known)."""
    complete(cls)
    return {name: (f.alias or name, f) for name, f in cls.__pydantic_fields__.items()}
