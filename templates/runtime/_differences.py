"""The one rule for a response that differs from its document, applied at one point.

Every reader — JSON bodies, pages and their items, fields read lazily, JSON lines, server-sent
events — describes each difference it finds as a :class:`Difference` (what kind, the JSON pointer
of the value in the body, what the document says, what was seen, and which call) and hands them
to :func:`report`. That function is the rule:

lenient (the default)
    the value is kept as received and one :class:`ResponseValidationWarning` names each field by
    its JSON pointer and the call it came from;
strict (``strict=True`` on the client)
    :class:`APIResponseValidationError` is raised, carrying the differences.

Two kinds are part of the document's own promise of forward compatibility and are never
warned about: a field the document does not name (kept in ``model_extra``) and, when lenient, a
value outside a listed enum or union (kept as ``Unknown``). Strict mode refuses the latter.

Every difference, of any kind, first goes to the listeners added with :func:`add_listener`
(every call's), then to its own call's recorder (:attr:`Context.hear`): a client that records the
shapes a server sends hears its own calls here, and no other client's.
"""

from __future__ import annotations

import enum
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import httpx2

from ._exceptions import APIResponseValidationError

__all__ = [
    "Context",
    "Difference",
    "Kind",
    "ResponseValidationWarning",
    "add_listener",
    "remove_listener",
    "report",
]


class ResponseValidationWarning(UserWarning):
    """A response differed from the document and was kept as received (lenient mode)."""


class Kind(enum.StrEnum):
    """What differs."""

    EXTRA_FIELD = "extra-field"  # a member the document does not name
    UNKNOWN_ENUM_VALUE = "unknown-enum-value"  # a value outside the listed ones
    NULL = "null"  # null where the document does not allow it
    MISSING = "missing"  # a required member absent
    WRONG_TYPE = "wrong-type"  # e.g. a number where a string is documented
    UNKNOWN_VARIANT = "unknown-variant"  # an object matching none of a union's members
    OUT_OF_BOUNDS = "out-of-bounds"  # the documented type, outside a bound (minimum, maxLength…)


# Kinds the document's forward-compatibility rules accept without a word when lenient.
_QUIET = frozenset({Kind.EXTRA_FIELD, Kind.UNKNOWN_ENUM_VALUE, Kind.UNKNOWN_VARIANT})


Hear = Callable[["Difference"], None]
"""Who is told of a difference: a listener, or a call's recorder."""


@dataclass(frozen=True, slots=True)
class Context:
    """Which call a difference was found in."""

    method: str
    path: str  # the document's path template when known (``/api/v1/deployments/{id}``)
    status: int | None = None
    media_type: str = ""
    operation: str = ""  # the operation id when known
    part: str = ""  # where in a streamed body: ``line 3``, ``event 2``, ``page 4``
    # The recorder of the call's client (``record_shapes``): hears this call's differences only.
    hear: Hear | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        response: httpx2.Response,
        path: str = "",
        part: str = "",
        operation: str = "",
        hear: Hear | None = None,
    ) -> Context:
        request = response.request
        media = response.headers.get("content-type", "").split(";")[0].strip()
        url_path = path or request.url.path
        return cls(request.method, url_path, response.status_code, media, operation, part, hear)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled without its recorder (a process's own): an error carrying it can cross to
        another process."""
        return (Context, tuple(getattr(self, f.name) for f in fields(self) if f.compare))

    def __str__(self) -> str:
        notes = ", ".join(n for n in (self.operation, self.part) if n)
        return f"{self.method} {self.path}" + (f" ({notes})" if notes else "")


class _Missing(enum.Enum):
    MISSING = "missing"

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing.MISSING  # ``seen`` of a missing field


@dataclass(frozen=True, slots=True)
class Difference:
    """One value that differs from the document."""

    kind: Kind
    pointer: str  # JSON pointer of the value in the body ("" for the body itself)
    expected: str  # what the document says: a type name, the enum's values, "required"...
    seen: Any  # the value as received (:data:`MISSING` when absent)
    context: Context

    def describe(self) -> str:
        where = self.pointer or "the body"
        if self.kind is Kind.MISSING:
            return f"{where}: required field missing"
        return f"{where}: {_short(self.seen)} where the document says {self.expected}"


def _short(value: Any) -> str:
    if value is None:
        return "null"
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{type(value).__name__} {text}"


# Who wants every difference; readers test it (a list's truth, no call) before looking for the
# kinds that cost a scan to find (extra members, values kept as ``Unknown``). A recorder is not
# one of them: it hears its own calls' differences through their context, so a client that
# records costs the others nothing.
LISTENERS: list[Hear] = []


def add_listener(listener: Hear) -> None:
    """Call ``listener`` with every difference found from now on (of every kind)."""
    LISTENERS.append(listener)


def remove_listener(listener: Hear) -> None:
    LISTENERS.remove(listener)


def report(
    differences: Iterable[Difference],
    *,
    strict: bool = False,
    response: httpx2.Response | None = None,
    body: object = None,
) -> None:
    """Apply the rule to what one reader found in one value: warn, or raise when ``strict``."""
    found = list(differences)
    for difference in found:
        own = difference.context.hear
        for listener in (*LISTENERS, own) if own is not None else tuple(LISTENERS):
            try:
                listener(difference)
            except Exception as exc:  # a listener's failure never fails the call it observes
                warnings.warn(f"a difference listener failed: {exc!r}", RuntimeWarning, 2)
    shown = [d for d in found if d.kind not in _QUIET or (strict and d.kind != Kind.EXTRA_FIELD)]
    if not shown:
        return
    if strict and response is not None:
        error = APIResponseValidationError(
            _message(shown, strict=True), response=response, body=body
        )
        error.differences = tuple(shown)
        raise error
    warnings.warn(ResponseValidationWarning(_message(shown)), stacklevel=3)


def _message(found: Sequence[Difference], strict: bool = False) -> str:
    listed = "; ".join(d.describe() for d in found[:5])
    more = f"; and {len(found) - 5} more" if len(found) > 5 else ""
    outcome = "does not match the document" if strict else "differs from the document, kept"
    return f"{found[0].context}: response {outcome}: {listed}{more}"


def child(pointer: str, key: str | int) -> str:
    """The JSON pointer of ``key`` under ``pointer`` (RFC 6901 escaping)."""
    return f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"


def from_errors(
    errors: Sequence[Any], body: Any, context: Context, at: str = ""
) -> list[Difference]:
    """The differences a validator's errors describe (pydantic's ``exc.errors()``), one per value.

    An error's location names union members and tags as well as keys; following it through
    ``body`` keeps only the keys and indexes that are really there, so the pointer is the
    value's place in the body.
    """
    found: dict[str, Difference] = {}
    for error in errors:
        missing = error.get("type") == "missing"
        pointer, value = _follow(body, error.get("loc", ()), at, missing)
        if pointer in found:
            continue  # a union reports each member that failed: one difference per value
        kind, expected = _kind(error, value, missing)
        found[pointer] = Difference(kind, pointer, expected, MISSING if missing else value, context)
    # An object that is none of a union's members: one difference, not one per member's field.
    variants = [p for p, d in found.items() if d.kind is Kind.UNKNOWN_VARIANT]
    return [d for p, d in found.items() if not any(p.startswith(v + "/") for v in variants)]


def _follow(body: Any, loc: Sequence[Any], at: str, missing: bool) -> tuple[str, Any]:
    pointer, value = at, body
    for index, part in enumerate(loc):
        if isinstance(value, dict) and isinstance(part, str) and part in value:
            pointer, value = child(pointer, part), value[part]
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            pointer, value = child(pointer, part), value[part]
        elif missing and index == len(loc) - 1 and isinstance(part, str):
            return child(pointer, part), None  # the member that is not there
    return pointer, value


def _kind(error: Any, value: Any, missing: bool) -> tuple[Kind, str]:
    kind = str(error.get("type", ""))
    if missing:
        return Kind.MISSING, "required"
    if value is None:
        return Kind.NULL, "not null"
    expected = error.get("ctx", {}).get("expected") if isinstance(error.get("ctx"), dict) else None
    if kind in ("literal_error", "enum", "unknown_value"):
        return (Kind.UNKNOWN_VARIANT if isinstance(value, dict) else Kind.UNKNOWN_ENUM_VALUE), str(
            expected or "one of the listed values"
        )
    if kind.startswith("union_tag"):
        return Kind.UNKNOWN_VARIANT, str(expected or "one of the union's members")
    bound = bound_broken(error)
    if bound is not None:
        return Kind.OUT_OF_BOUNDS, bound
    name = kind.removesuffix("_type").removesuffix("_parsing").replace("_", " ")
    return Kind.WRONG_TYPE, str(expected or _TYPE_NAMES.get(name, name))


_TYPE_NAMES = {"model": "an object", "model attributes": "an object", "dict": "an object"}


# pydantic's error types for a bound the document sets: the context key and how we say it
_BOUNDS = {
    "greater_than": ("gt", "> {}"),
    "greater_than_equal": ("ge", ">= {}"),
    "less_than": ("lt", "< {}"),
    "less_than_equal": ("le", "<= {}"),
    "multiple_of": ("multiple_of", "a multiple of {}"),
    "too_short": ("min_length", "at least {} long"),
    "string_too_short": ("min_length", "at least {} long"),
    "too_long": ("max_length", "at most {} long"),
    "string_too_long": ("max_length", "at most {} long"),
    "string_pattern_mismatch": ("pattern", "matching {!r}"),
}


def bound_broken(error: Any) -> str | None:
    """The bound ``error`` (one of pydantic's) says a value broke, in our words; None when it
    is another kind of error."""
    rule = _BOUNDS.get(str(error.get("type", "")))
    ctx = error.get("ctx")
    if rule is None or not isinstance(ctx, dict) or rule[0] not in ctx:
        return None
    bound = ctx[rule[0]]
    if isinstance(bound, float) and bound.is_integer():
        bound = int(bound)  # the document's 360, not pydantic's 360.0
    return rule[1].format(bound)
