"""Python literals of document values and the exception class of a status: what the templates'
filters and the generated tests' case builder both need (so neither imports the other)."""

from __future__ import annotations

import math

from generator.emit.sanitize import py_str


def py_literal(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({py_str(repr(value))})"
    return py_str(value)


_ERROR_CLASSES = {
    "400": "BadRequestError",
    "401": "AuthenticationError",
    "403": "PermissionDeniedError",
    "404": "NotFoundError",
    "409": "ConflictError",
    "422": "UnprocessableEntityError",
    "429": "RateLimitError",
}


def error_class(status: str) -> str:
    """The exception class the runtime raises for a documented status (``5XX`` included)."""
    if status[:1] == "5":
        return "InternalServerError"
    return _ERROR_CLASSES.get(status, "APIStatusError")
