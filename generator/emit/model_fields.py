"""A model field's statements, written in one call each: a large document has tens of thousands
of fields, and building each statement in the template's expression language cost about a third
of rendering a class (a macro call, a dozen attribute lookups and filter calls per field)."""

from __future__ import annotations

import keyword

from generator.emit.layout_cache import fit, fit_item
from generator.emit.literals import py_literal
from generator.emit.sanitize import clean_text, py_str
from generator.emit.type_text import py_input_type, py_open_type
from generator.ir.types import Model, ModelField, TypeRef


def described(fields: tuple[ModelField, ...]) -> list[ModelField]:
    """The fields with a description (the class docstring lists them as attributes)."""
    return [f for f in fields if f.description]


def key_identifier(name: str) -> bool:
    """Whether a wire name can be a TypedDict class-syntax key."""
    return name.isidentifier() and not keyword.iskeyword(name)


def functional_twin(model: Model) -> bool:
    """Whether a class's TypedDict twin takes the functional syntax: a wire name is no key a
    class body can write."""
    return not all(key_identifier(f.name) for f in model.fields)


def field_statement(f: ModelField) -> str:
    """The class attribute of a model field, as the class body writes it (indented by four):
    ``name: T``; ``Annotated[T, Field(...)]`` when it has an alias, constraints or a description;
    ``= default`` when it is optional."""
    type_text = py_open_type(f.type, "")
    if f.py_name != f.name or f.constraints or f.description:
        parts = [f"alias={py_str(f.name)}"] if f.py_name != f.name else []
        parts += [f"{key}={py_literal(value)}" for key, value in f.constraints]
        if f.description:
            parts.append(f"description={py_str(clean_text(f.description).strip())}")
        type_text = f"Annotated[{type_text}, Field({', '.join(parts)})]"
    default = "" if f.required else f" = {py_literal(f.default)}"
    return fit(f"{f.py_name}: {type_text}{default}", 4)


def typed_dict_entry(f: ModelField, inputs: dict[str, str], values: dict[str, TypeRef]) -> str:
    """A field's item in a functional TypedDict twin (``"wire-name": "T",``, indented by eight):
    keyed by its wire name, its type as a string (the twin's module imports what it names only
    for type checkers)."""
    return fit_item(f"{py_str(f.name)}: {py_str(_item(f, inputs, values))}", 8, kind="entry")


def typed_dict_field(f: ModelField, inputs: dict[str, str], values: dict[str, TypeRef]) -> str:
    """A field's item in a class-syntax TypedDict twin (``name: T``, indented by four)."""
    return fit(f"{f.name}: {_item(f, inputs, values)}", 4)


def _item(f: ModelField, inputs: dict[str, str], values: dict[str, TypeRef]) -> str:
    item = py_input_type(f.type, inputs, "", values)
    return item if f.required else f"NotRequired[{item}]"
