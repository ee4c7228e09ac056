"""Overlay health: which of the project's overlays stopped matching, or became redundant, on a
document. The overlay engine (``generator.overlay``) is another team's module; it is reached only
through :func:`check_overlays`, which degrades to a note when the engine cannot be imported."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.diagnostics import one_line

DEFAULT_OVERLAY_DIR = Path("spec/overlays")
OVERLAY_GLOB = "*.overlay.yaml"
UNHEALTHY = ("unmatched", "redundant")


@dataclass(frozen=True, slots=True)
class OverlayFinding:
    """One overlay action that no longer does what it was written for."""

    overlay: str
    index: int
    target: str
    status: str
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "overlay": self.overlay,
            "action": self.index,
            "target": self.target,
            "status": self.status,
            "description": self.description,
        }

    def __str__(self) -> str:
        what = f" ({self.description})" if self.description else ""
        line = f"{self.overlay} action {self.index} {self.status}: {self.target}{what}"
        if self.status == "redundant":
            line += f"; the document already has it: delete the action from {self.overlay}"
        return line


@dataclass(frozen=True, slots=True)
class OverlayHealth:
    """``checked`` is False (with ``note`` saying why) when the check could not run."""

    checked: bool
    note: str = ""
    overlays: tuple[str, ...] = ()
    findings: tuple[OverlayFinding, ...] = field(default=())
    status_counts: dict[str, int] = field(default_factory=dict)
    retirable: tuple[str, ...] = ()
    """Overlay files every action of which is redundant: the whole file can be deleted."""

    def retire_lines(self) -> list[str]:
        return [f"{f}: every action is redundant; the file can be deleted" for f in self.retirable]

    def to_json(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "note": self.note,
            "files": list(self.overlays),
            "counts": dict(sorted(self.status_counts.items())),
            "problems": [f.to_json() for f in self.findings],
            "retirable": list(self.retirable),
        }


def _engine() -> tuple[Any, Any] | str:
    """(apply_overlays, load_overlay), or the reason they are not available."""
    try:
        module = importlib.import_module("generator.overlay")
    except Exception as exc:
        return f"overlay engine not available ({type(exc).__name__}: {one_line(exc, 120)})"
    apply, load = getattr(module, "apply_overlays", None), getattr(module, "load_overlay", None)
    if not callable(apply) or not callable(load):
        return "overlay engine not available (apply_overlays/load_overlay missing)"
    return apply, load


def overlay_files(overlay_dir: Path) -> list[Path]:
    return sorted(overlay_dir.glob(OVERLAY_GLOB)) if overlay_dir.is_dir() else []


def check_overlays(
    document: Any,
    overlays: Path | Sequence[Path] = DEFAULT_OVERLAY_DIR,
    *,
    document_file: str = "",
) -> OverlayHealth:
    """Apply the overlays (a list of files, or every ``*.overlay.yaml`` in a folder) to
    ``document`` (non-strict: the point is to report, not to refuse) and collect the actions that
    are unmatched or redundant."""
    files = overlay_files(overlays) if isinstance(overlays, Path) else list(overlays)
    if not files:
        return OverlayHealth(False, f"no overlays found in {overlays}")
    engine = _engine()
    if isinstance(engine, str):
        return OverlayHealth(False, engine, tuple(str(f) for f in files))
    apply_overlays, load_overlay = engine
    try:
        overlays = [load_overlay(str(f)) for f in files]
        result = apply_overlays(document, overlays, document_file=document_file, strict=False)
        outcomes = tuple(getattr(result, "outcomes", ()))
    except Exception as exc:
        return OverlayHealth(
            False, f"overlay check failed: {one_line(exc, 200)}", tuple(str(f) for f in files)
        )
    counts: dict[str, int] = {}
    findings: list[OverlayFinding] = []
    for outcome in outcomes:
        status = str(getattr(outcome, "status", "unknown"))
        counts[status] = counts.get(status, 0) + 1
        if status in UNHEALTHY:
            findings.append(
                OverlayFinding(
                    overlay=one_line(getattr(outcome, "overlay_file", ""), 200),
                    index=int(getattr(outcome, "index", -1)),
                    target=one_line(getattr(outcome, "target", ""), 200),
                    status=status,
                    description=one_line(getattr(outcome, "description", "") or "", 200),
                )
            )
    findings.sort(key=lambda f: (f.overlay, f.index, f.status))
    per_file: dict[str, set[str]] = {}
    for outcome in outcomes:
        file = one_line(getattr(outcome, "overlay_file", ""), 200)
        per_file.setdefault(file, set()).add(str(getattr(outcome, "status", "")))
    retire = tuple(sorted(f for f, seen in per_file.items() if seen == {"redundant"}))
    names = tuple(str(f) for f in files)
    return OverlayHealth(True, "", names, tuple(findings), counts, retire)
