"""A problem found where an overlay wrote names the overlay action, not the document: the
document is the service's, the action is what a maintainer fixes."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from generator.diagnostics import MAX_MESSAGE, Diagnostic, one_line

if TYPE_CHECKING:  # a run without overlays never loads the overlay model
    from generator.overlay.model import Provenance


def attribute(
    diagnostics: Iterable[Diagnostic], document_file: str, written: Sequence[Provenance]
) -> list[Diagnostic]:
    """Each diagnostic at (or below) a node an action wrote, moved to that action (the last
    one to write there); the document pointer stays in the message."""
    out = []
    for d in diagnostics:
        writer = _writer(d, document_file, written)
        if writer is None:
            out.append(d)
            continue
        note = f" (the document's #{d.pointer}, which this action wrote)"
        # the message shortened, not the note: a long one (a deep folder's path) keeps the
        # pointer that tells the maintainer where it went wrong
        message = one_line(d.message, max(MAX_MESSAGE - len(note), MAX_MESSAGE // 3)) + note
        out.append(
            dataclasses.replace(
                d, file=writer.overlay_file, pointer=writer.action_pointer, message=message
            )
        )
    return out


def _writer(d: Diagnostic, document_file: str, written: Sequence[Provenance]) -> Provenance | None:
    if d.file != document_file or not d.pointer:
        return None
    for w in reversed(written):
        if d.pointer == w.pointer or d.pointer.startswith(w.pointer + "/"):
            return w
    return None
