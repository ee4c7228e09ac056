"""Operations whose shapes the service has not published: the package README lists them.

An operation is *open* when nothing about its payloads is typed: it takes no body or a body
whose schema is an open object without properties, and it answers with an open object without
properties. Its client method exists and sends the body it is given as a free-form object; its
answer keeps every field. Listing them tells a user which methods are typed in name only.
"""

from __future__ import annotations

from generator.ir.types import (
    ANY,
    DictOf,
    Family,
    Model,
    ModelKind,
    ModelRef,
    Operation,
    ValueModel,
)


def _open(model: ModelKind) -> bool:
    """An object of any fields: a free-form map, or a class without attributes that keeps extras."""
    if isinstance(model, ValueModel):
        return model.type == DictOf(ANY)
    return isinstance(model, Model) and not model.fields and model.extra_allowed


def _open_names(family: Family) -> frozenset[str]:
    """The family's classes of any fields, by name: one pass over the models, not one per
    operation (a class name is unique in its family)."""
    return frozenset(m.name for m in family.models if _open(m))


def _is_open(op: Operation, open_names: frozenset[str]) -> bool:
    """Whether neither the request body nor the success answer of ``op`` has a typed field
    (``open_names``: the family's, :func:`_open_names`)."""
    body = op.body
    if body is not None and (body.fields or not body.model or body.model not in open_names):
        return False
    success = op.success.type
    return isinstance(success, ModelRef) and success.name in open_names


def open_operations(family: Family) -> list[Operation]:
    names = _open_names(family)
    return [op for op in family.operations if _is_open(op, names)]
