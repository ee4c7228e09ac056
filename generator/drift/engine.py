"""Compare two parsed OpenAPI documents: match operations, run every registered check, sort."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import generator.drift.rules  # noqa: F401 - importing registers every rule and check
from generator.diagnostics import CodegenError, Diagnostic
from generator.document.refs import Resolver
from generator.drift.context import DocumentPair, OperationPair
from generator.drift.model import Change, reaches
from generator.drift.operations import index_operations
from generator.drift.registry import DOCUMENT_CHECKS, OPERATION_CHECKS
from generator.drift.schema_view import ViewBuilder
from generator.drift.schema_walk import SchemaComparer


@dataclass(frozen=True, slots=True)
class DriftReport:
    changes: tuple[Change, ...]

    def count(self, level: str) -> int:
        return sum(1 for c in self.changes if c.level == level)

    def reaches(self, threshold: str) -> bool:
        """True when any change is at least as severe as ``threshold``."""
        return any(reaches(c.level, threshold) for c in self.changes)


def check_document(document: Any, file: str) -> dict[str, Any]:
    """The minimum the comparison relies on; anything else malformed is tolerated and skipped."""

    def fail(ptr: str, message: str) -> CodegenError:
        return CodegenError(Diagnostic("drift-invalid-document", "error", file, ptr, message))

    if not isinstance(document, dict):
        raise fail("", "not an OpenAPI document (the top level is not a mapping)")
    version = document.get("openapi")
    if version is None and "swagger" in document:
        raise fail(
            "/swagger", "Swagger 2.0 documents are not supported; convert to OpenAPI 3 first"
        )
    if not isinstance(version, str) or not version.startswith("3."):
        raise fail("/openapi", "not an OpenAPI 3.x document (openapi: 3.x.y is missing)")
    if "paths" in document and not isinstance(document["paths"], (dict, type(None))):
        raise fail("/paths", "paths is not a mapping")
    return document


def compare(
    old_doc: Any, new_doc: Any, *, old_file: str = "OLD", new_file: str = "NEW"
) -> DriftReport:
    """Every semantic change from ``old_doc`` to ``new_doc``, deduplicated and sorted."""
    old = check_document(old_doc, old_file)
    new = check_document(new_doc, new_file)
    old_resolver = Resolver(old, old_file, error_id="drift-invalid-ref")
    new_resolver = Resolver(new, new_file, error_id="drift-invalid-ref")
    old_resolver.check_all()
    new_resolver.check_all()
    old_views, new_views = ViewBuilder(old_resolver), ViewBuilder(new_resolver)
    docs = DocumentPair(
        old=old,
        new=new,
        old_file=old_file,
        new_file=new_file,
        old_resolver=old_resolver,
        new_resolver=new_resolver,
        old_views=old_views,
        new_views=new_views,
        old_ops=index_operations(old, old_file, old_resolver),
        new_ops=index_operations(new, new_file, new_resolver),
    )
    found: set[Change] = set()
    for document_check in DOCUMENT_CHECKS:
        found.update(document_check(docs))
    schemas = SchemaComparer(old_views, new_views)
    for identity in sorted(docs.new_ops.keys() & docs.old_ops.keys()):
        pair = OperationPair(docs, docs.old_ops[identity], docs.new_ops[identity], schemas)
        for operation_check in OPERATION_CHECKS:
            found.update(operation_check(pair))
        found.update(pair.schema_changes())
    return DriftReport(tuple(sorted(found, key=Change.sort_key)))
