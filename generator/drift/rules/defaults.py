"""Default values: what the server assumes when a value is left out."""

from __future__ import annotations

from collections.abc import Iterator

from generator.diagnostics import one_line
from generator.drift.context import Finding, SchemaPair
from generator.drift.registry import define, schema_check
from generator.drift.schema_view import enum_key

for _subject in ("request-parameter", "request-property"):
    define(
        f"{_subject}-default-changed",
        "warning",
        """Calls that leave the value out still type-check, but the server now fills in
        something else (a page size of 100 instead of 20, say), so they silently behave
        differently.""",
    )
define(
    "response-property-default-changed",
    "info",
    """Documentation of what an absent value means in a response; the client's parsing and
    types are unchanged.""",
)


@schema_check
def default_value(pair: SchemaPair) -> Iterator[Finding]:
    old, new = pair.old.default, pair.new.default
    if old == new or not old or not new:
        return  # a default added or removed is a required/optional question, covered elsewhere
    if enum_key(old[0]) != enum_key(new[0]):
        was, now = one_line(enum_key(old[0]), 60), one_line(enum_key(new[0]), 60)
        yield pair.finding("default-changed", f"default changed from {was} to {now}")
