"""A schema's type, nullability and format, for parameters, request and response properties.

The same change reads in opposite ways in the two directions: the client *sends* requests
(the server must accept at least what it accepted before) and *parses* responses (the client must
understand at least everything the server may now send).

A request or response body's root schema is reported as a property with an empty path (the
message names the body), so ``request-property-type-changed`` also covers "the body is now an
array instead of an object".
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.drift.context import Finding, SchemaPair
from generator.drift.registry import define, schema_check

REQUEST_SUBJECTS = ("request-parameter", "request-property")

for _subject in (*REQUEST_SUBJECTS, "response-property"):
    define(
        f"{_subject}-type-changed",
        "breaking",
        """The generated annotation changes to a type the old values do not fit: calls that
        pass the old type, or code that uses a parsed value as the old type, stop type-checking
        and the server (or the client's parser) rejects them.""",
    )
    define(
        f"{_subject}-format-changed",
        "warning",
        """Same JSON type, different format (say date-time to date): the generated annotation
        may change (datetime to date) and values valid before may be refused; worth a look, not
        proof of a break.""",
    )
for _subject in REQUEST_SUBJECTS:
    define(
        f"{_subject}-type-widened",
        "info",
        """The server now accepts more types than before (integer to number, or a type added
        to a union): everything the client sent before is still valid.""",
    )
    define(
        f"{_subject}-became-nullable",
        "info",
        """The server now also accepts null: values sent before are still valid.""",
    )
    define(
        f"{_subject}-became-not-nullable",
        "breaking",
        """``None`` disappears from the generated annotation and the server rejects null, so
        code that passed ``None`` stops type-checking and its requests fail.""",
    )
define(
    "response-property-type-narrowed",
    "info",
    """The server now sends a subset of the types it sent before (number to integer): every
    value is still one the client's code already handles.""",
)
define(
    "response-property-became-nullable",
    "breaking",
    """The value may now be null: the annotation gains ``| None``, code that used the value
    directly stops type-checking and fails on a null at run time.""",
)
define(
    "response-property-became-not-nullable",
    "info",
    """The server no longer sends null; code that handled ``None`` keeps working.""",
)


def covers(wide: frozenset[str], narrow: frozenset[str]) -> bool:
    """Every value of a ``narrow`` type is a value of a ``wide`` type; empty means any type."""
    if not wide:
        return True
    if not narrow:
        return False
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def describe(types: frozenset[str]) -> str:
    return " | ".join(sorted(types)) or "any"


@schema_check
def type_change(pair: SchemaPair) -> Iterator[Finding]:
    old, new = pair.old, pair.new
    if old.external_ref or new.external_ref or old.types == new.types:
        return
    if old.variants and new.variants:
        return  # a union gained or lost members: the variant rules say which, at their level
    text = f"type changed from {describe(old.types)} to {describe(new.types)}"
    if pair.direction == "request" and covers(new.types, old.types):
        yield pair.finding("type-widened", text)
    elif pair.direction == "response" and covers(old.types, new.types):
        yield pair.finding("type-narrowed", text)
    else:
        yield pair.finding("type-changed", text)


@schema_check
def nullability_change(pair: SchemaPair) -> Iterator[Finding]:
    if pair.old.nullable == pair.new.nullable:
        return
    if pair.new.nullable:
        yield pair.finding("became-nullable", "became nullable")
    else:
        yield pair.finding("became-not-nullable", "is no longer nullable")


@schema_check
def format_change(pair: SchemaPair) -> Iterator[Finding]:
    old, new = pair.old.format, pair.new.format
    if old and new and old != new and pair.old.types & pair.new.types:
        yield pair.finding("format-changed", f"format changed from {old} to {new}")
