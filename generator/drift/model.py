"""The data the drift check produces: rules (a stable id, a level, the reasoning) and changes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from generator.diagnostics import one_line

ChangeLevel = Literal["breaking", "warning", "info"]

LEVELS: tuple[ChangeLevel, ...] = ("breaking", "warning", "info")
"""Most severe first; the position is the rank used for sorting and for ``--fail-on``."""

LEVEL_RANK: dict[str, int] = {level: rank for rank, level in enumerate(LEVELS)}


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of change. ``doc`` says why the level is what it is, from the point of view of code
    that calls the generated client (not of the server, and not of a person reading the docs)."""

    id: str
    level: ChangeLevel
    doc: str


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between two documents.

    ``operation`` is ``"METHOD /full/path"`` (named as in the newer document when it exists there),
    or ``None`` for a document-wide change; ``pointer`` points into NEW, or into OLD for removals.
    """

    id: str
    level: ChangeLevel
    operation: str | None
    pointer: str
    message: str

    def sort_key(self) -> tuple[int, str, str, str, str]:
        return (LEVEL_RANK[self.level], self.operation or "", self.id, self.pointer, self.message)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "operation": self.operation,
            "pointer": self.pointer,
            "message": one_line(self.message),
        }


def reaches(level: str, threshold: str) -> bool:
    """True when ``level`` is at least as severe as ``threshold``."""
    return LEVEL_RANK[level] <= LEVEL_RANK[threshold]
