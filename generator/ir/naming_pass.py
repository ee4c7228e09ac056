"""The naming pass: every class a family's IR names, named before the IR is built.

Type mapping gives a site's schema a class of its own where it needs one (an inline object, a
discriminated union). This pass types every site the builder will, in the builder's order
(operation by operation its parameters, body, responses and pages, then every class's
properties, then the input twins of the classes a request can carry), so each name is the one
that order gives, and freezes the catalogue. The builder makes the IR from these types and never
types a schema itself; a frozen catalogue refuses to name anything
(:class:`~generator.ir.schemas.NotNamed`).
"""

from __future__ import annotations

import dataclasses

from generator.ir.context import BuildContext
from generator.ir.models import ClassTypes, input_names, refs_of, type_classes
from generator.ir.naming import ClassName
from generator.ir.operations import Named, TypedOperation, operation_hint, typed_operation


@dataclasses.dataclass(frozen=True)
class FamilyTypes:
    """What the builder reads: each operation's types, in order, each class's, and the names
    of the TypedDict twins of the classes a request can carry."""

    operations: list[TypedOperation]
    classes: dict[ClassName, ClassTypes]
    inputs: dict[ClassName, ClassName]


def name_classes(ctx: BuildContext, named: list[Named], *, models: bool = True) -> FamilyTypes:
    """Type (and so name every class needed by) the operations ``named`` and, with ``models``,
    every class and its input twin; then freeze the catalogue."""
    ops = [typed_operation(ctx, found, operation_hint(py_name)) for found, _, py_name, _ in named]
    if not models:
        ctx.catalog.freeze()
        return FamilyTypes(ops, {}, {})
    classes = type_classes(ctx.types)
    roots = {r for op in ops for r in _request_classes(op)}
    inputs = input_names(classes, roots, ctx.catalog.ns)
    ctx.catalog.freeze()
    return FamilyTypes(ops, classes, inputs)


def _request_classes(op: TypedOperation) -> set[ClassName]:
    """The classes an operation's arguments name: its parameters and its body. A path parameter
    names none: it is always one scalar (the builder types any other as ``str``)."""
    _, others = op.parameters
    types = [t for _, _, t in others.values() if t is not None]
    if op.body is not None:
        body = op.body
        types += [t for _, _, t in body.fields] if body.fields is not None else [body.type]
    return {r for t in types for r in refs_of(t)}
