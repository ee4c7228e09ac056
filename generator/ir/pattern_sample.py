"""A short string that matches a schema's ``pattern``, for sample values in generated tests.

Walks the pattern as Python's own regular-expression parser reads it and takes the first, shortest
way through: the smallest repeat count, the first branch, the first character a class admits.
The result is checked with :func:`re.search`; ``None`` when no sample could be made (the caller
falls back to leaving the value out or to a plain string).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["sample_for_pattern"]

try:  # the standard library's own parser (``sre_parse`` before Python 3.11)
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python without it: no samples, never an error
    _parser = None

_MAX_LENGTH = 200
_CATEGORY_SAMPLE = {"CATEGORY_DIGIT": "0", "CATEGORY_WORD": "a", "CATEGORY_SPACE": " "}
_CANDIDATES = "a0A_-.: "


def sample_for_pattern(pattern: str) -> str | None:
    """A string ``re.search(pattern, s)`` accepts, or ``None``."""
    if _parser is None:
        return None
    try:
        parsed = _parser.parse(pattern)
        text = _emit(list(parsed), 0)
    except (re.error, ValueError, RecursionError, OverflowError):
        return None
    if text is None or len(text) > _MAX_LENGTH:
        return None
    try:
        return text if re.search(pattern, text) else None
    except re.error:
        return None


def _emit(items: list[tuple[Any, Any]], depth: int) -> str | None:
    if depth > 20:
        return None
    out: list[str] = []
    for op, arg in items:
        piece = _one(op, arg, depth)
        if piece is None:
            return None
        out.append(piece)
    return "".join(out)


def _one(op: Any, arg: Any, depth: int) -> str | None:
    name = str(op)
    if name == "LITERAL":
        return chr(arg)
    if name == "ANY":
        return "a"
    if name == "AT":
        return ""
    if name == "IN":
        return _class_member(arg)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _high, body = arg
        piece = _emit(list(body), depth + 1)
        return None if piece is None else piece * int(low)
    if name == "SUBPATTERN":
        return _emit(list(arg[-1]), depth + 1)
    if name in ("ATOMIC_GROUP",):
        return _emit(list(arg), depth + 1)
    if name == "BRANCH":
        return _emit(list(arg[1][0]), depth + 1)
    if name in ("ASSERT", "ASSERT_NOT"):
        return ""
    return None  # back-references, conditionals: no sample


def _class_member(items: list[tuple[Any, Any]]) -> str | None:
    """The first character a character class admits (negated classes: a candidate outside it)."""
    negated = any(str(op) == "NEGATE" for op, _ in items)
    if negated:
        excluded = "".join(c for c in _CANDIDATES if _in_class(c, items))
        return next((c for c in _CANDIDATES if c not in excluded), None)
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            return chr(arg)
        if name == "RANGE":
            return chr(arg[0])
        if name == "CATEGORY":
            return _CATEGORY_SAMPLE.get(str(arg))
    return None


def _in_class(char: str, items: list[tuple[Any, Any]]) -> bool:
    for op, arg in items:
        name = str(op)
        if name == "LITERAL" and chr(arg) == char:
            return True
        if name == "RANGE" and arg[0] <= ord(char) <= arg[1]:
            return True
        if name == "CATEGORY" and _CATEGORY_SAMPLE.get(str(arg)) == char:
            return True
    return False
