"""Members added to or removed from a ``oneOf``/``anyOf`` union (matched by ``$ref`` name, title,
or type), the null member excluded: that one is nullability, handled with the type rules."""

from __future__ import annotations

from collections.abc import Iterator

from generator.drift.context import Finding, SchemaPair
from generator.drift.registry import define, schema_check

for _subject in ("request-parameter", "request-property"):
    define(
        f"{_subject}-variant-removed",
        "breaking",
        """A shape callers may be sending leaves the union: the generated annotation no longer
        admits it and the server rejects it.""",
    )
    define(
        f"{_subject}-variant-added",
        "info",
        """Callers may send one more shape; every shape they sent before is still accepted.""",
    )
define(
    "response-property-variant-added",
    "warning",
    """The server may return a shape the client's code does not handle: ``isinstance`` chains
    and exhaustive matches miss it. Nothing breaks until it is sent, hence a warning.""",
)
define(
    "response-property-variant-removed",
    "info",
    """The server stops sending one shape; code that handles it keeps working.""",
)


@schema_check
def union_members(pair: SchemaPair) -> Iterator[Finding]:
    if not pair.old.variants or not pair.new.variants:
        return
    old = dict(pair.old.variants)
    new = dict(pair.new.variants)
    for name in new:
        if name not in old:
            yield pair.finding("variant-added", f"union member {name} added")
    for name in old:
        if name not in new:
            yield pair.finding("variant-removed", f"union member {name} removed", removal=True)
