"""The Overlay Specification's merge rules, as pure functions over JSON values.

Merging an ``update`` (or a copied value) into a target node, recursively:
- a property only in the target stays; a property only in the update is inserted;
- primitive replaces primitive, array is concatenated to array, object merges into object;
- any other pairing is an error (1.1.0, Action Object).
At the top level an array target also accepts an object or primitive, which is appended.
Each function reports whether it changed anything, which is how redundant actions are found.
"""

from __future__ import annotations

import copy
from typing import Any

from generator.overlay.values import json_equal, json_type, kind

Path = tuple[str | int, ...]


class MergeConflict(Exception):
    """An update value that cannot merge with the target value; ``path`` is relative to the update
    value (for the overlay pointer) and to the target node (for the document pointer)."""

    def __init__(self, path: Path, target: Any, value: Any) -> None:
        self.path = path
        self.target = target
        self.value = value
        super().__init__(f"cannot merge {json_type(value)} into {json_type(target)}")


def merge_object(target: dict[str, Any], update: dict[str, Any], path: Path = ()) -> bool:
    """Merge ``update`` into ``target`` in place; values taken from ``update`` are copied."""
    changed = False
    for key, new in update.items():
        if key not in target:
            target[key] = copy.deepcopy(new)
            changed = True
            continue
        old = target[key]
        old_kind, new_kind = kind(old), kind(new)
        if old_kind != new_kind:
            raise MergeConflict((*path, key), old, new)
        if old_kind == "object":
            changed = merge_object(old, new, (*path, key)) or changed
        elif old_kind == "array":
            if new:
                old.extend(copy.deepcopy(new))
                changed = True
        elif not json_equal(old, new):
            target[key] = new
            changed = True
    return changed


def merge_node(node: Any, value: Any) -> tuple[Any, bool]:
    """Apply ``value`` to one selected node: returns the node's new value and whether it changed.

    Objects and arrays are changed in place (so other selected nodes inside them stay valid);
    a primitive node is returned replaced, for the caller to store through its parent.
    """
    node_kind = kind(node)
    if node_kind == "object":
        if not isinstance(value, dict):
            raise MergeConflict((), node, value)
        return node, merge_object(node, value)
    if node_kind == "array":
        if isinstance(value, list):
            node.extend(copy.deepcopy(value))
            return node, bool(value)
        node.append(copy.deepcopy(value))
        return node, True
    if kind(value) != "primitive":
        raise MergeConflict((), node, value)
    return value, not json_equal(node, value)
