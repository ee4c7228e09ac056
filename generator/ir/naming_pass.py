"""The naming pass: every class a family's IR names, named before the IR is built.

Type mapping gives a site's schema a class of its own where it needs one (an inline object, a
discriminated union). This pass types every site the builder will, in the builder's order
(operation by operation its parameters, body, responses and pages, then every class's
properties), so each name is the one that order gives, and freezes the catalogue. The builder
makes the IR from these types and never types a schema itself; a frozen catalogue refuses to
name anything (:class:`~generator.ir.schemas.NotNamed`).
"""

from __future__ import annotations

import dataclasses

from generator.ir.context import BuildContext
from generator.ir.models import ClassTypes, type_classes
from generator.ir.naming import ClassName
from generator.ir.operations import Named, TypedOperation, operation_hint, typed_operation


@dataclasses.dataclass(frozen=True)
class Typed:
    """What the builder reads: each operation's types, in order, and each class's."""

    operations: list[TypedOperation]
    classes: dict[ClassName, ClassTypes]


def name_classes(ctx: BuildContext, named: list[Named], *, models: bool = True) -> Typed:
    """Type (and so name every class needed by) the operations ``named`` and, with ``models``,
    every class; then freeze the catalogue."""
    ops = [typed_operation(ctx, found, operation_hint(py_name)) for found, _, py_name in named]
    classes = type_classes(ctx.types) if models else {}
    ctx.catalog.freeze()
    return Typed(ops, classes)
