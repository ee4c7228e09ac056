"""Test cases for what was learned from the service's responses (``x-cube-observed``; the IR's
samples carry the body and the learned fields, :mod:`generator.ir.sample_book`).

A learned overlay action (:mod:`generator.observed.learned`) marks each schema it changes. For an
operation answering such a model, the generated tests replay a body built from the learned
shapes (the new field with a sample of its type, the learned enum value, a null where null was
learned) against a strict client: the body must parse, and each learned field must read as a
typed attribute, so a later change that drops what was learned fails the package's own tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from generator.ir.types import Operation, OperationSamples


@dataclass(frozen=True, slots=True)
class ObservedCase:
    status: int
    body_code: str  # the response body, as Python source
    # (wire name, expected value as Python source) per learned field
    checks: tuple[tuple[str, str], ...]
    subject: str = "value"  # the model read: the body, or the first item of a list body


def observed_case(
    op: Operation, found: OperationSamples, source: Callable[[Any], str]
) -> ObservedCase | None:
    """The replayed body of ``op`` when its JSON response model has learned fields (the IR's
    samples hold the body and the learned names), else None (``source``: JSON data as escaped
    Python source)."""
    body = found.observed_body
    if not found.observed_fields or not isinstance(body, dict):
        return None
    checks = tuple(
        (name, source(body[name])) for name in found.observed_fields if _simple(body[name])
    )
    if not checks:
        return None
    if found.observed_listed:
        return ObservedCase(int(op.success.status), source([body]), checks, "value[0]")
    return ObservedCase(int(op.success.status), source(body), checks)


def _simple(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
