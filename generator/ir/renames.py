"""Every name the generated code spells differently from the document, besides Python's own
conventions, reported once as information: parameters and body properties (the argument a
method takes), model properties (the attribute), server variables (the constructor argument)
and the TypedDict twins of request classes (``FooParam`` taken, so ``FooParam2``). Schemas,
operations and tags are reported where they are named (``schema-renamed`` and the others).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from generator.diagnostics import Diagnostic, escape_pointer_token, one_line
from generator.ir.naming import ClassName
from generator.ir.types import Family, Model
from generator.words import snake_case

RENAME_IDS = frozenset(
    {
        "parameter-renamed",
        "property-renamed",
        "server-variable-renamed",
        "input-class-renamed",
    }
)


def _respelled(text: str, made: str) -> bool:
    """Whether ``made`` is more than ``text`` in Python's spelling (a suffix, a prefix)."""
    return made != snake_case(text)


def renames(family: Family, pointers: Mapping[ClassName, str]) -> Iterator[Diagnostic]:
    """The renames of one built family; ``pointers``: each class's schema pointer."""
    file = family.source
    for var in family.server_variables:
        if _respelled(var.name, var.py_name):
            yield Diagnostic(
                "server-variable-renamed", "info", file,
                "/servers/0/variables/" + escape_pointer_token(var.name),
                f"server variable {_q(var.name)} is the client argument {var.py_name}",
            )  # fmt: skip
    for resource in family.resources:
        for op in resource.operations:
            where = f"{resource.attr}.{op.py_name}"
            for p in op.parameters:
                if _respelled(p.name, p.py_name):
                    yield Diagnostic(
                        "parameter-renamed", "info", file, op.pointer,
                        f"{p.location} parameter {_q(p.name)} is the argument {p.py_name} of "
                        f"{where}",
                    )  # fmt: skip
            for f in (op.body.fields or ()) if op.body else ():
                if _respelled(f.name, f.py_name):
                    yield Diagnostic(
                        "parameter-renamed", "info", file, op.pointer,
                        f"body property {_q(f.name)} is the argument {f.py_name} of {where}",
                    )  # fmt: skip
    for m in family.models:
        if not isinstance(m, Model):
            continue
        at = pointers.get(m.name, "")
        for field in m.fields:
            if _respelled(field.name, field.py_name):
                yield Diagnostic(
                    "property-renamed", "info", file,
                    at + "/properties/" + escape_pointer_token(field.name) if at else "",
                    f"property {_q(field.name)} of {m.name} is the attribute {field.py_name}",
                )  # fmt: skip
        if m.input_name and m.input_name != f"{m.name}Param":
            yield Diagnostic(
                "input-class-renamed", "info", file, at,
                f"the input class of {m.name} is {m.input_name}: {m.name}Param is taken",
            )  # fmt: skip


def _q(text: str) -> str:
    return one_line(repr(text), 80)
