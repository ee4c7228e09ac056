"""Apply overlays to a document: the Overlay Specification's semantics plus drift reporting.

``apply_overlays`` is pure: it deep-copies the document, applies every action of every overlay in
order (each to the result of the previous one), and returns the new document with one
:class:`ActionOutcome` per action and diagnostics. Problems with the overlay itself (bad JSONPath,
incompatible merge, ambiguous copy source) raise :class:`CodegenError`; drift (a target that matches
nothing, an update the document already contains) is reported, never raised, so a caller can list
every stale action at once.

Where 1.0.0 and 1.1.0 differ in wording, 1.1.0's rules are applied to both: 1.1.0 spells out what
1.0.0 left open (concatenating arrays, replacing and removing primitive values), and the OAI's own
1.0.0 compliant sets already rely on it (``remove-example`` removes a string with overlay 1.0.0).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from generator.diagnostics import CodegenError, Diagnostic, Level, one_line, pointer
from generator.overlay.merge import MergeConflict, merge_node
from generator.overlay.model import (
    Action,
    ActionOutcome,
    Overlay,
    OverlayResult,
    Provenance,
    Status,
)
from generator.overlay.query import Location, compile_query, select
from generator.overlay.retire import already_present
from generator.overlay.values import json_type, kind

UNMATCHED = "overlay-action-unmatched"
REDUNDANT = "overlay-action-redundant"
INCOMPATIBLE = "overlay-update-incompatible"
MIXED = "overlay-target-mixed"
COPY_AMBIGUOUS = "overlay-copy-ambiguous"
REMOVE_ROOT = "overlay-remove-root"


def apply_overlay(
    document: Any, overlay: Overlay, *, document_file: str = "", strict: bool = True
) -> OverlayResult:
    """Apply one overlay; see :func:`apply_overlays`."""
    return apply_overlays(document, [overlay], document_file=document_file, strict=strict)


def apply_overlays(
    document: Any, overlays: Iterable[Overlay], *, document_file: str = "", strict: bool = True
) -> OverlayResult:
    """Apply overlays in order to a copy of ``document``.

    ``strict`` (our default) makes an action whose target matches nothing an error; with
    ``strict=False`` it is a warning, as the specification says such an action simply succeeds.
    Actions marked ``x-cube-optional: true`` may match nothing either way (level info).
    """
    run = _Run(copy.deepcopy(document), document_file, strict)
    for overlay in overlays:
        run.apply(overlay)
    return OverlayResult(
        run.document, tuple(run.outcomes), tuple(run.diagnostics), tuple(run.written)
    )


class _Run:
    """The state of one application: the document so far and the report."""

    def __init__(self, document: Any, document_file: str, strict: bool) -> None:
        self.document = document
        self.document_file = document_file
        self.strict = strict
        self.outcomes: list[ActionOutcome] = []
        self.diagnostics: list[Diagnostic] = []
        self.written: list[Provenance] = []

    def apply(self, overlay: Overlay) -> None:
        # Compile every query first: a typo in action #9 fails before action #0 runs.
        queries = [self._compile(overlay, action) for action in overlay.actions]
        for action, (target, source) in zip(overlay.actions, queries, strict=True):
            status, matches = self._action(overlay, action, target, source)
            self.outcomes.append(
                ActionOutcome(
                    overlay.file, action.index, action.description, action.target, status, matches
                )
            )

    def _compile(self, overlay: Overlay, action: Action) -> tuple[Any, Any]:
        label = f"action #{action.index} target"
        target = compile_query(action.target, overlay.file, _ptr(action, "target"), label)
        source = None
        if action.copy is not None and not action.remove:
            label = f"action #{action.index} copy"
            source = compile_query(action.copy, overlay.file, _ptr(action, "copy"), label)
        return target, source

    def _action(
        self, overlay: Overlay, action: Action, target: Any, source: Any
    ) -> tuple[Status, int]:
        nodes = select(target, self.document, overlay.file, _ptr(action, "target"), _name(action))
        if not nodes:
            return self._unmatched(overlay, action, "target", action.target), 0
        if action.remove:
            self._remove(overlay, action, [loc for loc, _ in nodes])
            return "matched", len(nodes)
        if source is not None:
            assert action.copy is not None
            found = select(source, self.document, overlay.file, _ptr(action, "copy"), _name(action))
            if not found:
                return self._unmatched(overlay, action, "copy source", action.copy), len(nodes)
            if len(found) > 1:
                raise _error(
                    COPY_AMBIGUOUS,
                    overlay,
                    _ptr(action, "copy"),
                    f"{_name(action)}: copy {one_line(action.copy, 120)} selects {len(found)} "
                    "nodes; it must select exactly one",
                )
            value = copy.deepcopy(found[0][1])
            changed = self._update(overlay, action, nodes, value, "copy")
        elif action.has_update:
            if already_present(action.target, (node for _, node in nodes), action.update):
                self._report(
                    REDUNDANT,
                    "warning",
                    overlay,
                    action.pointer,
                    f"{_name(action)}: the document already has what this action adds at "
                    f"{one_line(action.target, 120)} (its wording aside), so it is not applied; "
                    f"delete the action from {overlay.file}",
                )
                return "redundant", len(nodes)
            changed = self._update(overlay, action, nodes, action.update, "update")
        else:
            self._report(
                REDUNDANT,
                "warning",
                overlay,
                action.pointer,
                f"{_name(action)} has no update, copy or remove: it changes nothing",
            )
            return "redundant", len(nodes)
        if changed:
            return "matched", len(nodes)
        modifier = "update" if source is None else "copy"
        self._report(
            REDUNDANT,
            "warning",
            overlay,
            action.pointer,
            f"{_name(action)}: the document already contains this {modifier} at "
            f"{one_line(action.target, 120)}; the action changes nothing: delete it from "
            f"{overlay.file}",
        )
        return "redundant", len(nodes)

    def _unmatched(self, overlay: Overlay, action: Action, what: str, query: str) -> Status:
        where = f" in {self.document_file}" if self.document_file else ""
        message = f"{_name(action)}: {what} {one_line(query, 120)} matched nothing{where}"
        level: Level
        if action.allow_unmatched:
            status: Status = "absent-allowed"
            level = "info"
            message += " (allowed: x-cube-optional)"
        else:
            status = "unmatched"
            level = "error" if self.strict else "warning"
        field = "copy" if what == "copy source" else "target"
        self._report(UNMATCHED, level, overlay, _ptr(action, field), message)
        return status

    def _update(
        self,
        overlay: Overlay,
        action: Action,
        nodes: list[tuple[Location, Any]],
        value: Any,
        field: str,
    ) -> bool:
        kinds = {kind(node) for _, node in nodes}
        if len(kinds) > 1:
            raise _error(
                MIXED,
                overlay,
                _ptr(action, "target"),
                f"{_name(action)}: target selects a mix of {', '.join(sorted(kinds))} nodes; "
                "an update or copy needs all objects, all arrays or all primitives",
            )
        changed = False
        for location, node in nodes:
            try:
                new, node_changed = merge_node(node, value)
            except MergeConflict as conflict:
                raise self._conflict(overlay, action, field, location, conflict) from None
            if node_changed and kind(node) == "primitive":
                self._store(location, new)
            changed = changed or node_changed
            if node_changed:
                self._wrote(overlay, action, field, location, value)
        return changed

    def _wrote(
        self, overlay: Overlay, action: Action, field: str, location: Location, value: Any
    ) -> None:
        """Record where an action wrote (each key of an object update), so that a problem found
        there later names the action, not the document."""
        at = _ptr(action, field)
        keys = list(value) if isinstance(value, dict) and value else [None]
        for key in keys:
            where = pointer(*location) if key is None else pointer(*location, key)
            self.written.append(Provenance(where, overlay.file, at))

    def _store(self, location: Location, value: Any) -> None:
        """Replace a primitive through its parent (or the whole document, for ``$``)."""
        if not location:
            self.document = value
            return
        parent = _resolve(self.document, location[:-1])
        parent[location[-1]] = value

    def _remove(self, overlay: Overlay, action: Action, locations: list[Location]) -> None:
        if () in locations:
            raise _error(
                REMOVE_ROOT,
                overlay,
                _ptr(action, "target"),
                f"{_name(action)}: the document root cannot be removed",
            )
        # Deepest and last first, so earlier removals never shift or orphan later ones.
        for location in sorted(locations, key=_sort_key, reverse=True):
            parent = _resolve(self.document, location[:-1])
            del parent[location[-1]]

    def _conflict(
        self,
        overlay: Overlay,
        action: Action,
        field: str,
        location: Location,
        conflict: MergeConflict,
    ) -> CodegenError:
        doc_ptr = pointer(*location, *conflict.path) or "/"
        where = f" in {self.document_file}" if self.document_file else ""
        message = (
            f"{_name(action)}: cannot merge {json_type(conflict.value)} from the {field} into "
            f"{json_type(conflict.target)} at {doc_ptr}{where}"
        )
        return _error(
            INCOMPATIBLE, overlay, pointer("actions", action.index, field, *conflict.path), message
        )

    def _report(self, id: str, level: Level, overlay: Overlay, ptr: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(id, level, overlay.file, ptr, message))


def _name(action: Action) -> str:
    if action.description:
        return f"action #{action.index} ({one_line(action.description, 80)})"
    return f"action #{action.index}"


def _ptr(action: Action, field: str) -> str:
    return pointer("actions", action.index, field)


def _error(id: str, overlay: Overlay, ptr: str, message: str) -> CodegenError:
    return CodegenError(Diagnostic(id, "error", overlay.file, ptr, message))


def _resolve(document: Any, location: Location) -> Any:
    node = document
    for token in location:
        node = node[token]
    return node


def _sort_key(location: Location) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, t, "") if isinstance(t, int) else (1, 0, t) for t in location)
