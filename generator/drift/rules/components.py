"""Named component schemas, which the generated package exports as model classes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.diagnostics import one_line, pointer
from generator.drift.context import DocumentPair
from generator.drift.model import Change
from generator.drift.registry import define, document_check

COMPONENT_SCHEMA_REMOVED = define(
    "component-schema-removed",
    "warning",
    """The generated package stops exporting that model class, so code that imports it by name
    breaks; code that only uses what methods return does not, and renames often leave the shape
    intact (the operation rules report what callers actually see), hence a warning.""",
)


def _schemas(doc: dict[str, Any]) -> dict[str, Any]:
    components = doc.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    return schemas if isinstance(schemas, dict) else {}


@document_check
def component_schemas(docs: DocumentPair) -> Iterator[Change]:
    new = _schemas(docs.new)
    for name in _schemas(docs.old):
        if name not in new:
            ptr = pointer("components", "schemas", name)
            yield docs.change(
                COMPONENT_SCHEMA_REMOVED, ptr, f"component schema {one_line(name, 80)} removed"
            )
