"""Client-side checks of request bodies whose schema says which properties go together.

One mechanism for every operation: the document's ``oneOf``/``anyOf``/``allOf``/``not`` rules
over ``required`` property sets (e.g. "exactly one of ``dashboardId`` / ``dashboardPublicId``",
"``branchName`` or ``branchId``, not both") reach the client as a small rule tree, checked
before anything is sent, so the caller gets one precise :class:`RequestValidationError` instead
of a 400 after a round trip. The payload is then validated against its model.

Rule trees are nested tuples: ``("required", (name, ...))``, ``("not", (rule,))``, and
``("oneOf" | "anyOf" | "allOf", (rule, ...))``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic

from ._exceptions import RequestValidationError
from ._models import STRICT, adapter

__all__ = ["RequestValidationError", "check_rule", "validate_body"]

Rule = tuple[Any, ...]


def _holds(rule: Rule, present: frozenset[str]) -> bool:
    kind, args = rule
    if kind == "required":
        return set(args) <= present
    if kind == "not":
        return not _holds(args[0], present)
    matched = sum(_holds(r, present) for r in args)
    if kind == "oneOf":
        return matched == 1
    if kind == "anyOf":
        return matched >= 1
    return matched == len(args)


def _describe(rule: Rule) -> str:
    kind, args = rule
    if kind == "required":
        return "+".join(args) or "nothing"
    if kind == "not":
        return f"not {_describe(args[0])}"
    parts = [_describe(r) for r in args]
    # A branch "a and not b" reads as just "a" in a list of alternatives.
    parts = [p.split(" and not ")[0] for p in parts] if kind in ("oneOf", "anyOf") else parts
    return " and ".join(parts) if kind == "allOf" else " | ".join(parts)


def _wanted(rule: Rule) -> tuple[str, ...]:
    """The properties a branch asks for (its ``required``, not what it forbids)."""
    kind, args = rule
    if kind == "required":
        return tuple(args)
    if kind == "allOf":
        return tuple(n for r in args if r[0] != "not" for n in _wanted(r))
    return ()


def _failure(rule: Rule, present: frozenset[str]) -> str:
    """Why ``rule`` does not hold, in the caller's terms."""
    kind, args = rule
    if kind == "allOf":
        return next(_failure(r, present) for r in args if not _holds(r, present))
    if kind == "oneOf":
        chosen = [_describe(r).split(" and not ")[0] for r in args if set(_wanted(r)) <= present]
        got = f"got {' and '.join(chosen)}" if chosen else "got none of them"
        return f"send exactly one of: {_describe(rule)} ({got})"
    if kind == "anyOf":
        return f"send at least one of: {_describe(rule)}"
    if kind == "not":
        return f"do not send {_describe(args[0])} together"
    missing = [n for n in args if n not in present]
    return f"send {', '.join(missing)}"


def check_rule(rule: Rule | None, payload: Mapping[str, object]) -> None:
    """Raise :class:`RequestValidationError` unless ``payload``'s properties satisfy ``rule``."""
    if rule is None:
        return
    present = frozenset(k for k, v in payload.items() if v is not None)
    if not _holds(rule, present):
        raise RequestValidationError(_failure(rule, present))


def validate_body(
    model: Any, rule: Rule | None, payload: Mapping[str, object]
) -> dict[str, object]:
    """Return ``payload`` unchanged after checking its rule and its model (strictly: a value
    the document does not list is refused here, though responses may carry one)."""
    check_rule(rule, payload)
    try:
        adapter(model).validate_python(dict(payload), context={STRICT: True})
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise RequestValidationError(f"invalid request body at {where}: {first['msg']}") from None
    return dict(payload)
