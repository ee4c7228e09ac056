"""Validation constraints: numeric bounds (``minimum``, ``maxLength``, ``maxItems``...) and
``pattern``.

A request constraint that tightens rejects values callers sent before; a response constraint that
loosens lets the server send values the generated models (which carry the constraints as field
validators) may refuse to parse.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.diagnostics import one_line
from generator.document.schema_facts import LOWER_BOUNDS
from generator.drift.context import Finding, SchemaPair
from generator.drift.registry import define, schema_check

for _subject in ("request-parameter", "request-property"):
    define(
        f"{_subject}-constraint-tightened",
        "breaking",
        """A bound moved inwards (or appeared): values callers sent before, say a 200-character
        name or a page size of 500, are now rejected by the server and by the model's
        validators.""",
    )
    define(
        f"{_subject}-constraint-relaxed",
        "info",
        """A bound moved outwards (or disappeared): everything valid before is still valid.""",
    )
    define(
        f"{_subject}-pattern-changed",
        "warning",
        """The regular expression changed: whether old values still match cannot be decided in
        general, so a person should look.""",
    )
define(
    "response-property-constraint-relaxed",
    "warning",
    """The server may now send values outside the old bounds; a client whose models validate
    the old bounds rejects them. Only a problem when such a value is sent, hence a warning.""",
)
define(
    "response-property-constraint-tightened",
    "info",
    """The server promises narrower values; everything the client accepted before still fits.""",
)
define(
    "response-property-pattern-changed",
    "warning",
    """The regular expression changed: a client validating the old pattern may refuse values
    that match only the new one.""",
)


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


@schema_check
def bounds(pair: SchemaPair) -> Iterator[Finding]:
    old, new = dict(pair.old.bounds), dict(pair.new.bounds)
    for keyword in sorted(old.keys() | new.keys()):
        before, after = old.get(keyword), new.get(keyword)
        if before == after:
            continue
        lower = keyword in LOWER_BOUNDS
        if before is None or after is None:
            tightened = before is None
        else:
            tightened = after > before if lower else after < before
        was = "none" if before is None else _number(before)
        now = "none" if after is None else _number(after)
        text = f"{keyword} changed from {was} to {now}"
        yield pair.finding("constraint-tightened" if tightened else "constraint-relaxed", text)
    if pair.old.pattern != pair.new.pattern and pair.new.pattern is not None:
        was = "none" if pair.old.pattern is None else one_line(pair.old.pattern, 80)
        now = one_line(pair.new.pattern, 80)
        yield pair.finding("pattern-changed", f"pattern changed from {was} to {now}")
