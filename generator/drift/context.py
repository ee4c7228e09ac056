"""What checks receive: the two documents, a matched operation, or a matched pair of schemas."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from generator.document.refs import Resolver
from generator.drift.model import Change, Rule
from generator.drift.operations import OperationView
from generator.drift.rule_book import RULES
from generator.drift.schema_view import SchemaView, Sub, ViewBuilder

Direction = Literal["request", "response"]


@dataclass(frozen=True, slots=True)
class Finding:
    """A schema-level difference, relative to the schema pair where it was found: ``path`` is the
    property path below that pair (``("data", "[]", "name")``), ``text`` the part after it."""

    rule: Rule
    pointer: str
    path: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class SchemaPair:
    old: SchemaView
    new: SchemaView
    direction: Direction
    subject: str
    """Rule id prefix for the node itself: ``request-parameter``, ``request-property``,
    ``response-property``."""
    old_views: ViewBuilder
    new_views: ViewBuilder

    def finding(self, event: str, text: str, *, removal: bool = False) -> Finding:
        rule = RULES[f"{self.subject}-{event}"]
        return Finding(rule, self.old.pointer if removal else self.new.pointer, (), text)

    def property_finding(self, event: str, name: str, sub: Sub, text: str) -> Finding:
        rule = RULES[f"{self.direction}-property-{event}"]
        return Finding(rule, sub.pointer, (name,), text)


class SchemaComparison(Protocol):
    """What an operation's checks use to compare two schemas (``schema_walk.SchemaComparer``);
    named here so that the pairs, and the rules that read them, never import the comparer."""

    def compare(
        self, old: Sub, new: Sub, direction: Direction, subject: str
    ) -> tuple[Finding, ...]: ...


@dataclass(slots=True)
class DocumentPair:
    old: dict[str, Any]
    new: dict[str, Any]
    old_file: str
    new_file: str
    old_resolver: Resolver
    new_resolver: Resolver
    old_views: ViewBuilder
    new_views: ViewBuilder
    old_ops: dict[str, OperationView]
    new_ops: dict[str, OperationView]

    def change(self, rule: Rule, ptr: str, message: str, operation: str | None = None) -> Change:
        return Change(rule.id, rule.level, operation, ptr, message)


@dataclass(slots=True)
class OperationPair:
    docs: DocumentPair
    old: OperationView
    new: OperationView
    schemas: SchemaComparison
    _schema_changes: dict[tuple[str, str, str], list[Change]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.new.label

    def change(self, rule: Rule, ptr: str, message: str) -> Change:
        return Change(rule.id, rule.level, self.label, ptr, message)

    def compare_schemas(
        self, old: Sub, new: Sub, direction: Direction, subject: str, where: str
    ) -> None:
        """Record the changes between two schemas, each message prefixed with ``where`` and the
        property path; the engine collects them with :meth:`schema_changes` once every check of
        the operation has run, so a schema reached twice is reported once."""
        for found in self.schemas.compare(old, new, direction, subject):
            place = where + (f" at `{format_path(found.path)}`" if found.path else "")
            change = Change(
                found.rule.id, found.rule.level, self.label, found.pointer, f"{place}: {found.text}"
            )
            self._schema_changes.setdefault((found.rule.id, found.pointer, found.text), []).append(
                change
            )

    def schema_changes(self) -> Iterator[Change]:
        """One change per rule, pointer and finding: a component schema reached from several
        places in one operation is reported once, at its shortest path, with a count."""
        for copies in self._schema_changes.values():
            unique = sorted(set(copies), key=lambda c: (len(c.message), c.message))
            first = unique[0]
            if len(unique) > 1:
                more = len(unique) - 1
                note = f" (and {more} more place{'s' if more > 1 else ''} in this operation)"
                first = Change(
                    first.id, first.level, first.operation, first.pointer, first.message + note
                )
            yield first
        self._schema_changes.clear()


def format_path(path: tuple[str, ...]) -> str:
    out = ""
    for part in path:
        if part.startswith("[") or part.startswith("<") or part == "{}":
            out += part if part != "{}" else "{*}"
        else:
            out += ("." if out else "") + part
    return out
