"""Where rule modules register what they know: rule definitions and the checks that emit them.

A rule module calls :func:`define` (kept in ``rule_book``) for each rule id it owns (the id, its
level and why) and decorates its check functions with :func:`document_check`,
:func:`operation_check` or :func:`schema_check`. The engine only walks documents and calls
whatever is registered; nothing here imports the comparer (``schema_walk``) that runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from generator.drift.context import DocumentPair, Finding, OperationPair, SchemaPair
from generator.drift.model import Change
from generator.drift.rule_book import RULES, define

__all__ = [
    "DOCUMENT_CHECKS",
    "OPERATION_CHECKS",
    "RULES",
    "SCHEMA_CHECKS",
    "define",
    "document_check",
    "operation_check",
    "schema_check",
]

DocumentCheck = Callable[[DocumentPair], Iterable[Change]]
OperationCheck = Callable[[OperationPair], Iterable[Change]]
SchemaCheck = Callable[[SchemaPair], Iterable[Finding]]

DOCUMENT_CHECKS: list[DocumentCheck] = []
OPERATION_CHECKS: list[OperationCheck] = []
SCHEMA_CHECKS: list[SchemaCheck] = []

F = TypeVar("F")


def _register(registry: list[F]) -> Callable[[F], F]:
    def decorator(check: F) -> F:
        registry.append(check)
        return check

    return decorator


document_check = _register(DOCUMENT_CHECKS)
"""Runs once per comparison with both documents (servers, security schemes, operation sets)."""
operation_check = _register(OPERATION_CHECKS)
"""Runs once per operation present in both documents."""
schema_check = _register(SCHEMA_CHECKS)
"""Runs once per pair of matched schema nodes (body roots, properties, items, union members)."""
