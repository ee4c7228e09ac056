"""A family's ``models.pyi``: every model class of the family declared in one module, the way
type checkers and editors read the family (one module to analyse, not one per class).

The class bodies are the ones the class modules hold (rendered once, in :mod:`.package`); this
module lays them out as a stub and works out the stub's imports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from generator.emit.imports import class_module_imports
from generator.emit.model_fields import twin_type_strings
from generator.emit.type_text import ItemTypes
from generator.ir.types import Model, ValueModel


def stub_imports(
    names: frozenset[str],
    pkg: str,
    models: Sequence[Model | ValueModel],
    items: ItemTypes,
) -> str:
    """The import block of a family's ``models.pyi``: what its class bodies use (``names``, the
    union of what each uses; every class is defined there, so no class is imported)."""
    strings: list[str] = []
    for m in models:
        if isinstance(m, Model) and m.input_name:
            strings += twin_type_strings(m, items)
    return class_module_imports(names, pkg, [], [], strings)


def stub_body(body: str) -> str:
    """A class body as a stub lays it out: one blank line between top-level statements."""
    return re.sub(r"\n\n\n(?=\S)", "\n\n", body)
