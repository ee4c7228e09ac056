"""Jinja rendering: one strict environment, filters that escape, and type-expression rendering.

Templates receive IR values only. Every string that came from a document reaches a template slot
through one of the escaping filters (``py_str``, ``docstring``, ``comment``, ``md``,
``md_code``); type expressions are rendered here from IR type references, never from document
text.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping, Sequence
from functools import cache
from typing import Any

import jinja2

from generator import TEMPLATES, runstate
from generator.emit.imports import (
    class_module_imports,
    import_block,
    name_kind,
    natural,
    spec_imports,
)
from generator.emit.layout import fit_return, fits_at
from generator.emit.layout_cache import fit, fit_item
from generator.emit.literals import error_class, py_literal
from generator.emit.model_fields import (
    described,
    functional_twin,
    twin_type_strings,
)
from generator.emit.open_shapes import open_operations
from generator.emit.readme_calls import example_args
from generator.emit.sanitize import clean_text, comment_text, docstring_body, py_str, toml_str
from generator.emit.template_cache import TemplateCache, private_cache
from generator.emit.type_text import (
    ItemTypes,
    py_input_type,
    py_open_type,
    py_optional_arg,
    py_type,
)
from generator.ir.types import (
    DictOf,
    ListOf,
    Model,
    ModelRef,
    Operation,
    Primitive,
    Rule,
    TypeRef,
    UnionOf,
    ValueModel,
)


def input_imports(
    model: Model, inputs: dict[str, str], values: dict[str, TypeRef]
) -> set[tuple[str, str]]:
    """(class, name) pairs a class module imports for a TypedDict twin's item types: each
    class and twin those types name (value classes expanded), with the class whose module
    holds it."""
    found: set[tuple[str, str]] = set()
    seen: set[str] = set()

    def walk(t: TypeRef) -> None:
        match t:
            case ModelRef(name) if name in inputs:
                found.update({(name, name), (name, inputs[name])})
            case ModelRef(name) if name in values and name not in seen:
                seen.add(name)
                walk(values[name])
            case ModelRef(name):
                found.add((name, name))
            case ListOf(item) | DictOf(item):
                walk(item)
            case UnionOf(members):
                for m in members:
                    walk(m)

    for f in model.fields:
        walk(f.type)
    return found


def py_tuple(values: tuple[object, ...] | list[object]) -> str:
    """A tuple literal of escaped scalars: ``()``, ``("a",)``, ``("a", "b")``."""
    items = [py_literal(v) for v in values]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def py_rule(rule: Rule) -> str:
    """A request rule as the runtime's nested-tuple literal.

    ``("oneOf", (("required", ("a",)), ("required", ("b",))))``
    """
    if rule.kind == "required":
        return f'("required", {py_tuple(rule.names)})'
    inner = [py_rule(r) for r in rule.rules]
    return f"({py_str(rule.kind)}, ({', '.join(inner)}{',' if len(inner) == 1 else ''}))"


def markdown_text(value: object) -> str:
    """Prose for a generated README: no raw HTML, no template or link syntax survives."""
    text = " ".join(clean_text(value, 400).split())
    for ch in "\\`*_[]<>|{}#":
        text = text.replace(ch, "\\" + ch)
    return text


def markdown_code(value: object, *, table: bool = False) -> str:
    """A code span for a generated README: backslashes are literal there, so the text is fenced
    with more backticks than it holds; in a table a ``|`` is escaped (GFM strips that escape)."""
    text = " ".join(clean_text(value, 400).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`"):
        text = f" {text} "
    if table:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def uses_type(ops: tuple[Operation, ...], name: str) -> bool:
    """Whether any signature in ``ops`` mentions ``Literal``/``datetime``/``Any`` (for imports)."""
    needle = {"Literal": "Literal[", "datetime": "datetime.", "Any": "Any"}[name]
    for op in ops:
        types: list[TypeRef] = [p.type for p in op.parameters] + [op.success.type]
        if op.success.kind == "event-stream":
            types.append(op.success.item_type)
        if op.body is not None:
            types.append(op.body.type)
            types.extend(f.type for f in op.body.fields or ())
        if op.pagination is not None:
            types.append(op.pagination.item_type)
        if any(needle in py_type(t) for t in types):
            return True
    return False


def defined(models: Sequence[Model | ValueModel]) -> set[str]:
    """The names a class module defines: its classes and their TypedDict twins."""
    return {m.name for m in models} | {m.input_name for m in models if m.input_name}


def outside_refs(models: Sequence[Model | ValueModel]) -> tuple[str, ...]:
    """The classes a class module's classes name that other modules define."""
    return tuple(sorted({r for m in models for r in m.refs} - defined(models)))


def primary_class(models: Sequence[Model | ValueModel]) -> str:
    """The class a module is named after: the others were hoisted from inside its schema and
    carry its name as their prefix, so it has the shortest name."""
    return min((m.name for m in models), key=lambda n: (len(n), natural(n)))


def class_imports(
    names: frozenset[str],
    pkg: str,
    models: Sequence[Model | ValueModel],
    modules: dict[str, str],
    items: ItemTypes,
) -> str:
    """A class module's import block (see :func:`class_module_imports`; ``names`` are those its
    bodies use): the classes a value class that does not reach itself names are imported at
    run time (its base names them), every other class only for type checkers, with what the
    TypedDict twins' items name; none the module defines itself."""
    own = defined(models)
    runtime_refs = {
        r
        for m in models
        if isinstance(m, ValueModel) and not m.recursive
        for r in m.refs
        if r not in own
    }
    late_refs = {r for m in models for r in m.refs if r not in own and r not in runtime_refs}
    typed: set[tuple[str, str]] = set()
    strings: list[str] = []
    for m in models:
        if isinstance(m, Model) and m.input_name:
            typed |= input_imports(m, items.inputs, items.values)
            strings += twin_type_strings(m, items)
    runtime: list[tuple[str, str | None]] = [(f".{modules[r]}", r) for r in sorted(runtime_refs)]
    late: list[tuple[str, str | None]] = [(f".{modules[r]}", r) for r in sorted(late_refs)]
    late += [
        (f".{modules[owner]}", name)
        for owner, name in sorted(typed)
        if name not in own and name not in runtime_refs
    ]
    return class_module_imports(names, pkg, runtime, late, strings)


def sort_all(names: list[str]) -> list[str]:
    """``__all__`` in the linter's order: constants, classes, then the rest, each natural."""

    return sorted(names, key=lambda n: (name_kind(n), natural(n)))


def model_imports(models: tuple[Model | ValueModel, ...]) -> list[tuple[str, str | None]]:
    """(module, name) of every class and twin a family's models module names."""
    out: list[tuple[str, str | None]] = [(f"._classes.{m.module}", m.name) for m in models]
    return out + [(f"._classes.{m.module}", m.input_name) for m in models if m.input_name]


def refs_entries(refs: tuple[str, ...], modules: dict[str, str]) -> str:
    return ", ".join(f"{py_str(r)}: {py_str(modules[r])}" for r in refs)


def _binary(t: TypeRef) -> bool:
    return t == Primitive("bytes") or (isinstance(t, UnionOf) and Primitive("bytes") in t.members)


class _Environment(jinja2.Environment):
    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one plain dict, not a chain over the environment's: every
        global is set before the first template loads, and a chain is walked in Python twice
        per render (about a tenth of rendering a class module)."""
        return {**self.globals, **(d or {})}


@cache
def environment() -> jinja2.Environment:
    env = _Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        # templates do not change while a run renders thousands of files from them: no stat
        # of the template file on every render
        auto_reload=False,
    )
    env.filters.update(
        py_str=py_str,
        toml_str=toml_str,
        fit=fit,
        fit_item=fit_item,
        fit_return=fit_return,
        fits_at=fits_at,
        chomp=lambda text: str(text).rstrip("\n"),
        docstring=docstring_body,
        comment=comment_text,
        md=markdown_text,
        md_code=markdown_code,
        py_type=py_type,
        py_open_type=py_open_type,
        py_input_type=py_input_type,
        py_optional_arg=py_optional_arg,
        py_literal=py_literal,
        py_tuple=py_tuple,
    )
    env.globals["uses_type"] = uses_type
    env.globals["open_operations"] = open_operations
    env.globals["example_args"] = example_args
    env.filters["prose"] = lambda text: clean_text(text).strip()
    env.globals["class_imports"] = class_imports
    env.filters["outside_refs"] = outside_refs
    env.filters["primary_class"] = primary_class
    env.globals["spec_imports"] = spec_imports
    env.globals["model_imports"] = model_imports
    env.globals["import_block"] = import_block
    env.filters["sort_all"] = sort_all
    env.globals["refs_entries"] = refs_entries
    env.tests["functional_twin"] = functional_twin
    env.filters["described"] = described
    env.filters["error_class"] = error_class
    env.filters["py_rule"] = py_rule
    env.globals["resource_of"] = lambda family, op: next(
        r for r in family.resources if op in r.operations
    )
    env.tests["model"] = lambda t: isinstance(t, ModelRef)
    env.tests["object_model"] = lambda m: isinstance(m, Model)
    env.tests["binary"] = _binary
    env.tests["binary_field"] = lambda f: _binary(f.type)
    env.tests["list_of_models"] = lambda t: isinstance(t, ListOf) and isinstance(t.item, ModelRef)
    return env


def use_template_cache() -> None:
    """Keep compiled templates in the private run state (see
    :mod:`generator.emit.template_cache`); none where it cannot be private."""
    env = environment()
    top, _ = runstate.locate()
    if isinstance(env.bytecode_cache, TemplateCache) and env.bytecode_cache.folder.parent == top:
        return
    env.bytecode_cache = private_cache()


def load_templates() -> None:
    """Compile (or read from the cache) every template now, so that a child process forked
    afterwards renders without compiling, and so never writes to the cache."""
    env = environment()
    for name in env.list_templates(extensions=["jinja"]):
        env.get_template(name)


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
