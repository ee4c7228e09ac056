"""The honest callers of a generated package: for every public surface of one family (each
resource, each method with its required arguments, each optional argument, each model class,
each field read and written), the code a user writes against it, as data the callers template
renders. Type-checked against a newer package, each says whether that surface still works."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from generator.ir.types import (
    Family,
    ModelField,
    ModelKind,
    Operation,
    Resource,
    TypeRef,
    ValueModel,
)

CallKind = Literal["resource", "method", "argument", "model", "read", "write"]


@dataclass(frozen=True, slots=True)
class Call:
    kind: CallKind
    python: str  # the surface in the SDK's words: ``client.roles.update_role(name=...)``
    resource: Resource | None = None
    op: Operation | None = None
    model: ModelKind | None = None
    field: ModelField | None = None
    args: tuple[tuple[str, TypeRef], ...] = ()  # keyword arguments the call passes, typed


def calls(family: Family) -> list[Call]:
    """Every surface of ``family`` with its caller, resources first, then models."""
    out: list[Call] = []
    for resource in family.resources:
        out.append(Call("resource", f"client.{resource.attr}", resource=resource))
        for op in resource.operations:
            out += _operation_calls(resource, op)
    for model in family.models:
        out += _model_calls(model)
    return out


def _arguments(op: Operation) -> tuple[list[tuple[str, TypeRef]], list[tuple[str, TypeRef]]]:
    """The keyword arguments of ``op``: (required, optional), as the generated method takes them."""
    required: list[tuple[str, TypeRef]] = [
        (p.py_name, p.type) for p in op.other_params if p.required
    ]
    optional: list[tuple[str, TypeRef]] = [
        (p.py_name, p.type) for p in op.other_params if not p.required
    ]
    body = op.body
    if body is not None and body.fields is not None:
        required += [(f.py_name, f.type) for f in body.fields if f.required]
        optional += [(f.py_name, f.type) for f in body.fields if not f.required]
    elif body is not None:
        (required if body.required else optional).append(("body", body.type))
    return required, optional


def _operation_calls(resource: Resource, op: Operation) -> list[Call]:
    required, optional = _arguments(op)
    method = f"client.{resource.attr}.{op.py_name}"
    out = [Call("method", f"{method}(...)", resource, op, args=tuple(required))]
    for name, t in optional:
        args = (*required, (name, t))
        out.append(Call("argument", f"{method}({name}=...)", resource, op, args=args))
    return out


def _model_calls(model: ModelKind) -> list[Call]:
    name = f"models.{model.name}"
    out = [Call("model", name, model=model)]
    if isinstance(model, ValueModel):
        return [*out, Call("write", f"{name}(...)", model=model)]
    required = [(f.py_name, f.type) for f in model.fields if f.required]
    for f in model.fields:
        out.append(Call("read", f"{name}.{f.py_name}", model=model, field=f))
        args = tuple(required) if f.required else (*required, (f.py_name, f.type))
        out.append(Call("write", f"{name}({f.py_name}=...)", model=model, field=f, args=args))
    return out
