"""A model field's statements, written in one call each: a large document has tens of thousands
of fields, and building each statement in the template's expression language cost about a third
of rendering a class (a macro call, a dozen attribute lookups and filter calls per field)."""

from __future__ import annotations

import functools
import keyword

from generator.emit.imports import used_names
from generator.emit.layout_cache import fit, fit_item
from generator.emit.literals import py_literal
from generator.emit.sanitize import clean_text, py_str
from generator.emit.type_text import ItemTypes, py_open_type
from generator.ir.types import Model, ModelField

# Where a class body's configuration and fields go when its template renders: text from a
# document reaches a body only through the escaping point (generator.emit.sanitize), which never
# lets a NUL through, so this marks one place in the body and nothing else.
FIELDS = "\x00fields\x00"
TWIN = "\x00twin\x00"  # where a class's TypedDict twin's items go (see twin_items)


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


Fields = tuple[str, frozenset[str]]  # statements, one per line, and the names they use


def class_fields(m: Model) -> tuple[Fields, Fields]:
    """A class module's configuration line and field statements, one per line (every line after
    the first indented by four, as the body's template places the first), and the names they
    use (see :func:`_code_names`); then the same in the family's stub, which type checkers read:
    each field's name, type and default only. Aliases, constraints and the configuration are
    rules pydantic applies at run time (a type checker gives ``__init__`` the attribute names
    either way), and the class docstring already lists each field's description; left out,
    they cost a user's first ``mypy`` run nothing to read. Each field's type and default are
    written once for both."""
    config = _config_line(m)
    config_names = _code_names(config)
    lines, names = [config], set(config_names)
    stub_lines: list[str] = []
    stub_names: set[str] = set()
    for f in m.fields:
        type_text = py_open_type(f.type, "")
        default = _default(f)
        text, constraints = _statement(f, type_text, default)
        lines.append(text)
        # what ``name: T = d`` uses is what T and d use: each remembered on its own, as a large
        # document's statements are nearly all different and their types and defaults are not
        used = _code_names(type_text) | _code_names(default)
        stub_names |= used
        if constraints is not None:  # ``Annotated[T, Field(<constraints>)]``
            used |= _ANNOTATED | _code_names(constraints)
        names |= used
        stub_lines.append(fit(f"{f.py_name}: {type_text}{default}", 4))
    if not m.fields:  # the configuration line keeps the class body from being empty
        stub_lines, stub_names = [config], set(config_names)
    ours = "\n    ".join(lines), frozenset(names)
    return ours, ("\n    ".join(stub_lines), frozenset(stub_names))


def _config_line(m: Model) -> str:
    extra = ', extra="allow"' if m.extra_allowed else ""
    return fit(
        f"model_config = ConfigDict(populate_by_name=True, protected_namespaces=(){extra})", 4
    )


def _default(f: ModelField) -> str:
    return "" if f.required else f" = {py_literal(f.default)}"


def field_statement(f: ModelField) -> str:
    """The class attribute of a model field, as the class body writes it (indented by four):
    ``name: T``; ``Annotated[T, Field(...)]`` when it has an alias, constraints or a description;
    ``= default`` when it is optional."""
    return _statement(f, py_open_type(f.type, ""), _default(f))[0]


_ANNOTATED = frozenset({"Annotated", "Field"})


def _statement(f: ModelField, type_text: str, default: str) -> tuple[str, str | None]:
    """:func:`field_statement` (``type_text``, ``default``: the field's, written), and, when
    the type is annotated, the constraints among its ``Field`` arguments (keyword arguments and
    literals: the alias and description are string literals, which use no name)."""
    if f.py_name != f.name or f.constraints or f.description:
        parts = [f"alias={py_str(f.name)}"] if f.py_name != f.name else []
        constraints = ", ".join(f"{key}={py_literal(value)}" for key, value in f.constraints)
        if constraints:
            parts.append(constraints)
        if f.description:
            parts.append(f"description={py_str(clean_text(f.description).strip())}")
        annotated = f"Annotated[{type_text}, Field({', '.join(parts)})]"
        return fit(f"{f.py_name}: {annotated}{default}", 4), constraints
    return fit(f"{f.py_name}: {type_text}{default}", 4), None


@functools.lru_cache(maxsize=4096)
def _code_names(code: str) -> frozenset[str]:
    """The names ``code`` uses (:func:`used_names`), remembered: a large document's fields
    repeat a few hundred types, defaults and constraints, and scanning each statement with its
    description cost about a tenth of rendering it."""
    return used_names(code)


def twin_type_strings(m: Model, items: ItemTypes) -> list[str]:
    """The type expressions a functional TypedDict twin writes as strings (its items, and
    ``NotRequired`` when a key is optional), whose names its module imports; none for a twin
    in class syntax, whose annotations are code."""
    if not functional_twin(m):
        return []
    strings = [items(f.type) for f in m.fields]
    return strings + ([] if all(f.required for f in m.fields) else ["NotRequired"])


def twin_items(m: Model, items: ItemTypes) -> Fields:
    """The items of a class's TypedDict twin, one per line (every line after the first indented
    as the body's template places the first), and the names they use: in class syntax, what
    each item's type uses (remembered per type, as :func:`class_fields` does); in the functional
    syntax, none (each type is a string). A class-syntax item is ``name: T`` (indented by
    four); a functional one, :func:`typed_dict_entry`."""
    if functional_twin(m):
        return "\n        ".join(typed_dict_entry(f, items) for f in m.fields), frozenset()
    lines: list[str] = []
    names: set[str] = set()
    for f in m.fields:
        item = _item(f, items)
        lines.append(fit(f"{f.name}: {item}", 4))
        names |= _code_names(item)
    return "\n    ".join(lines), frozenset(names)


def typed_dict_entry(f: ModelField, items: ItemTypes) -> str:
    """A field's item in a functional TypedDict twin (``"wire-name": "T",``, indented by eight):
    keyed by its wire name, its type as a string (the twin's module imports what it names only
    for type checkers)."""
    return fit_item(f"{py_str(f.name)}: {py_str(_item(f, items))}", 8, kind="entry")


def _item(f: ModelField, items: ItemTypes) -> str:
    item = items(f.type)
    return item if f.required else f"NotRequired[{item}]"
