"""Immutable data the overlay engine passes around: what an overlay says, what applying it did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from generator.diagnostics import Diagnostic, pointer

Status = Literal["matched", "unmatched", "redundant", "absent-allowed"]

OPTIONAL_EXTENSION = "x-cube-optional"
"""Action extension that turns "target matched nothing" from an error into an expected absence."""


@dataclass(frozen=True, slots=True)
class Action:
    """One Action Object. ``update`` may legitimately be ``null``, so ``has_update`` says whether it
    was given at all; ``allow_unmatched`` is our ``x-cube-optional`` extension."""

    index: int
    target: str
    description: str = ""
    update: Any = None
    remove: bool = False
    copy: str | None = None
    allow_unmatched: bool = False
    has_update: bool = False

    @property
    def pointer(self) -> str:
        """Where this action lives in its overlay document."""
        return pointer("actions", self.index)


@dataclass(frozen=True, slots=True)
class Overlay:
    """A validated overlay document. ``extends`` is recorded, never fetched: the caller chooses the
    target document, so applying an overlay never touches the network or the file system."""

    file: str
    version: str
    info: dict[str, Any]
    extends: str | None
    actions: tuple[Action, ...]

    @property
    def feature_set(self) -> str:
        """``major.minor``: the specification says the patch number must not change behaviour."""
        return ".".join(self.version.split(".")[:2])


@dataclass(frozen=True, slots=True)
class ActionOutcome:
    """What one action did; ``matches`` counts the distinct target nodes it selected."""

    overlay_file: str
    index: int
    description: str
    target: str
    status: Status
    matches: int

    def to_json(self) -> dict[str, Any]:
        return {
            "overlay": self.overlay_file,
            "index": self.index,
            "target": self.target,
            "description": self.description,
            "status": self.status,
            "matches": self.matches,
        }


@dataclass(frozen=True, slots=True)
class Provenance:
    """A node an action wrote: the document pointer it wrote at, and the action."""

    pointer: str
    overlay_file: str
    action_pointer: str


@dataclass(frozen=True, slots=True)
class OverlayResult:
    """The transformed document (a new object; the input is never mutated) and the report."""

    document: Any
    outcomes: tuple[ActionOutcome, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    written: tuple[Provenance, ...] = ()  # what each action wrote, in order of application

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.level == "error")

    @property
    def ok(self) -> bool:
        """True when nothing is wrong enough to refuse writing the result."""
        return not self.errors
