"""Test cases for what was learned from the service's responses (``x-cube-observed``).

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

from generator.emit.samples import Samples
from generator.ir.types import ListOf, ModelRef, Operation

MARK = "x-cube-observed"


@dataclass(frozen=True, slots=True)
class ObservedCase:
    status: int
    body_code: str  # the response body, as Python source
    # (wire name, expected value as Python source) per learned field
    checks: tuple[tuple[str, str], ...]
    subject: str = "value"  # the model read: the body, or the first item of a list body


def observed_case(
    op: Operation, schemas: dict[str, Any], samples: Samples, source: Callable[[Any], str]
) -> ObservedCase | None:
    """The replayed body of ``op`` when its JSON response model has learned fields, else None
    (``source``: JSON data as escaped Python source)."""
    if op.pagination or op.job or op.success.kind != "json" or not op.success.status.isdigit():
        return None
    model, listed = op.success.type, isinstance(op.success.type, ListOf)
    if isinstance(model, ListOf):
        model = model.item
    if not isinstance(model, ModelRef):
        return None
    schema = schemas.get(model.name)
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return None
    learned = {n: s for n, s in ((n, _target(s, schemas)) for n, s in props.items()) if s}
    sample = samples.for_type(model, 0)
    if not learned or not isinstance(sample, dict):
        return None
    body = dict(sample)
    for name, sub in learned.items():
        enum = sub.get("enum")
        if isinstance(enum, list) and enum:
            body[name] = enum[-1]  # the learned value is appended last
        elif sub.get("nullable") is True:
            body[name] = None
        else:
            body[name] = samples.json(sub, 1)
    checks = tuple((name, source(body[name])) for name in learned if _simple(body[name]))
    if not checks:
        return None
    if listed:
        return ObservedCase(int(op.success.status), source([body]), checks, "value[0]")
    return ObservedCase(int(op.success.status), source(body), checks)


def _target(node: Any, schemas: dict[str, Any]) -> dict[str, Any] | None:
    """The marked schema of a property: its own, or the named schema it refers to."""
    if not isinstance(node, dict):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(("#/components/schemas/", "#/x-catalog/")):
        named = schemas.get(ref.rsplit("/", 1)[-1])
        node = named if isinstance(named, dict) else node
    return node if node.get(MARK) is True else None


def _simple(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
