"""Values added to or removed from an ``enum`` (or ``const``).

Generated clients turn enums into ``Literal`` types or enum classes: a request value the server no
longer accepts breaks callers, and a response value the client has never seen can break exhaustive
handling (and strict parsing) even though no single line of calling code changed.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.diagnostics import one_line
from generator.drift.context import Finding, SchemaPair
from generator.drift.registry import define, schema_check
from generator.drift.schema_view import enum_key

for _subject in ("request-parameter", "request-property"):
    define(
        f"{_subject}-enum-value-removed",
        "breaking",
        """A value callers may be sending is no longer accepted: it leaves the generated
        ``Literal``/enum, so code that uses it stops type-checking and the server rejects it.""",
    )
    define(
        f"{_subject}-enum-value-added",
        "info",
        """Callers gain a value they may send; everything they sent before is still valid.""",
    )
define(
    "response-property-enum-value-added",
    "warning",
    """The server may now return a value the client has never seen: an exhaustive ``match`` or
    a strict enum parser fails on it. Nothing breaks until that value is sent, hence a warning.""",
)
define(
    "response-property-enum-value-removed",
    "info",
    """The server stops sending a value; code that handles it keeps working (dead branch).""",
)


@schema_check
def enum_values(pair: SchemaPair) -> Iterator[Finding]:
    if pair.old.enum is None or pair.new.enum is None:
        return
    old = {enum_key(v): v for v in pair.old.enum}
    new = {enum_key(v): v for v in pair.new.enum}
    for key in sorted(new.keys() - old.keys()):
        yield pair.finding("enum-value-added", f"enum value {one_line(key, 80)} added")
    for key in sorted(old.keys() - new.keys()):
        yield pair.finding(
            "enum-value-removed", f"enum value {one_line(key, 80)} removed", removal=True
        )
