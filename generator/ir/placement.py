"""Which private module defines each model class: a class hoisted from inside another class's
schema is defined in the module of the outermost class holding it.

An inline object is only ever used by the class around it, so the two load together anyway; one
module per component schema (not per class) keeps a large document's package to hundreds of
files instead of thousands, which is most of what writing and installing it costs.

A value class's base (``RootModel[A | B]``) names its classes when its module runs, so the module
imports theirs at run time; grouping could close a ring of such imports (two modules each
defining a value class of the other's classes). The modules on such a ring are split back into
one module per class, the layout that never has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from generator.ir.naming import ClassName, Namespace
from generator.ir.types import ModelKind, ValueModel
from generator.words import snake_case


def module_names(
    models: Sequence[ModelKind],
    refs: Mapping[ClassName, frozenset[ClassName]],
    owners: Mapping[ClassName, ClassName],
) -> dict[ClassName, str]:
    """Class → its module (unique in the family, case-insensitively, so the files differ on any
    file system). ``refs``: the classes each names; ``owners``: the class each hoisted class
    came from (:attr:`~generator.ir.schemas.SchemaCatalog.owners`)."""
    known = {m.name for m in models}
    top = {m.name: _outermost(m.name, owners, known) for m in models}
    split: set[ClassName] = set()
    while True:
        modules = _named(models, {n: n if n in split else t for n, t in top.items()})
        ring = _on_import_rings(models, refs, modules)
        if not ring:
            return modules
        split |= {n for n, module in modules.items() if module in ring}


def _outermost(
    name: ClassName, owners: Mapping[ClassName, ClassName], known: set[ClassName]
) -> ClassName:
    """The outermost class ``name`` was hoisted from (itself when none); an owner that is not a
    class of the family (a schema generated as a plain type) ends the walk."""
    seen = {name}
    while (owner := owners.get(name)) is not None and owner in known and owner not in seen:
        seen.add(owner)
        name = owner
    return name


def _named(
    models: Sequence[ModelKind], group: Mapping[ClassName, ClassName]
) -> dict[ClassName, str]:
    """Each class's module, named after the class it is grouped under, claimed in class order."""
    names = Namespace()
    by_group: dict[ClassName, str] = {}
    for m in models:
        if group[m.name] == m.name:
            by_group[m.name] = names.identifier(snake_case(m.name) or "model", prefix="model")
    return {m.name: by_group[group[m.name]] for m in models}


def _on_import_rings(
    models: Sequence[ModelKind],
    refs: Mapping[ClassName, frozenset[ClassName]],
    modules: Mapping[ClassName, str],
) -> set[str]:
    """The modules on a ring of run-time imports: a value class that does not reach itself
    imports, when its module runs, the modules of the classes it names."""
    edges: dict[str, set[str]] = {}
    for m in models:
        if isinstance(m, ValueModel) and not m.recursive:
            here = modules[m.name]
            edges.setdefault(here, set()).update(
                modules[r] for r in refs[m.name] if modules[r] != here
            )
    ring: set[str] = set()
    for start, targets in edges.items():
        stack, seen = list(targets), set()
        while stack:
            cur = stack.pop()
            if cur == start:
                ring.add(start)
                break
            if cur not in seen:
                seen.add(cur)
                stack.extend(edges.get(cur, ()))
    return ring
