"""When an overlay action has become unnecessary: the document already has what it adds.

An action that adds an operation, a schema or a field is written for a document that lacks them.
Once the service's own document gains them it states them in its own words: descriptions,
summaries and examples differ from ours, so a merge would still "change" the document although
nothing the SDK is built from changes. :func:`has_structure` compares only what the SDK is built
from (keys, types, enums, ``required`` lists, references, extensions) and ignores prose, so such
an action is reported as redundant, named by its overlay file, and left unapplied: the newer
document is the authority on its own wording.

Arrays are compared as sets here (an enum value or a ``required`` entry that is already listed is
already there), which is also what keeps a redundant action from concatenating duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from generator.overlay.values import json_equal

PROSE = frozenset({"description", "summary", "example", "examples", "title"})
"""Keys whose values are wording, not structure: a newer document words them its own way."""
MARKS = frozenset({"x-cube-observed"})
"""Our own marks on what an action changed (learned from responses): a document never has them,
so they never keep an action from being redundant."""

_ADDITION = re.compile(r"(?:\.|\[')(paths|schemas|properties|enum|responses|components)'?\]?$")
"""Targets that name a collection: an action on one adds members (operations, schemas, fields,
enum values, responses). An action on a single node annotates it; when it carries prose, its
wording is its point, so only an exact repeat makes it redundant."""


def is_addition(target: str) -> bool:
    """Whether an action with this target adds members to a collection."""
    return _ADDITION.search(target.strip()) is not None


def has_structure(value: Any) -> bool:
    """Whether ``value`` says anything beyond prose (an update of descriptions only does not)."""
    if isinstance(value, dict):
        return any(
            k not in PROSE and (has_structure(v) or not _container(v)) for k, v in value.items()
        )
    if isinstance(value, list):
        return bool(value)
    return True


def contains(node: Any, value: Any) -> bool:
    """Whether ``node`` already holds every structural part of ``value`` (prose aside)."""
    if isinstance(value, dict):
        if not isinstance(node, dict):
            return False
        return all(
            k in PROSE or k in MARKS or (k in node and contains(node[k], v))
            for k, v in value.items()
        )
    if isinstance(value, list):
        if not isinstance(node, list):
            return False
        return all(any(contains(have, want) for have in node) for want in value)
    return json_equal(node, value)


def already_present(target: str, nodes: Iterable[Any], value: Any) -> bool:
    """True when an addition's update adds structure and every selected node already has it."""
    if not is_addition(target) and _has_prose(value):
        return False  # an annotation: its wording is its point
    selected = list(nodes)
    return bool(selected) and has_structure(value) and all(contains(n, value) for n in selected)


def retirable_files(outcomes: Iterable[Any]) -> list[str]:
    """Overlay files every one of whose actions was redundant: the whole file can be deleted."""
    statuses: dict[str, set[str]] = {}
    for outcome in outcomes:
        file = str(getattr(outcome, "overlay_file", ""))
        statuses.setdefault(file, set()).add(str(getattr(outcome, "status", "")))
    return [file for file, seen in statuses.items() if seen == {"redundant"}]


def _has_prose(value: Any) -> bool:
    if isinstance(value, dict):
        return any(k in PROSE or _has_prose(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_prose(v) for v in value)
    return False


def _container(value: Any) -> bool:
    return isinstance(value, dict | list)
