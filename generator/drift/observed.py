"""Observed shapes checked against a new snapshot: which it now documents, which it rejects.

Each observation (see :mod:`generator.observed.records`) is placed twice: in the new document as
the service wrote it, and in the new document with the family's overlays (learned ones
included). Documented by the first: the service has caught up, and the learned action that
covered it can retire. Accepted only by the second: still learned. Rejected by both: the new
document moved away from what was learned (the learned action no longer lands), and the next
release would fail on what the service sends. The learned actions the overlay engine itself
finds redundant on the new document (:mod:`generator.overlay.retire`) are listed by file and
index, ready to delete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from generator.ir.types import Family
from generator.observed.check import Finding, judge
from generator.observed.learned import FILE_NAME
from generator.observed.records import Observation

Verdict = Literal["documented", "learned", "rejected"]


@dataclass(frozen=True)
class ObservedShape:
    finding: Finding  # placed in the overlaid new document
    verdict: Verdict


@dataclass
class ObservedReport:
    source: str
    shapes: list[ObservedShape] = field(default_factory=list)
    retirable: list[str] = field(default_factory=list)  # "file#index  target" of learned actions

    def count(self, verdict: Verdict) -> int:
        return sum(1 for s in self.shapes if s.verdict == verdict)

    def summary(self) -> str:
        return (
            f"{self.count('documented')} documented by the new snapshot, "
            f"{self.count('learned')} accepted through overlays, {self.count('rejected')} rejected"
        )


def _overlaid(doc: Any, file: str, overlays: Sequence[Path]) -> tuple[Any, list[Any]]:
    from generator.overlay import apply_overlays, load_overlay

    if not overlays:
        return doc, []
    result = apply_overlays(
        doc, [load_overlay(str(o)) for o in overlays], document_file=file, strict=False
    )
    return result.document, list(result.outcomes)


def check_observed(
    new_doc: Any,
    new_file: str,
    overlays: Sequence[Path],
    observations: Sequence[Observation],
    family: Family,
    source: str = "",
) -> ObservedReport:
    """Judge ``observations`` on ``new_doc`` alone and with ``overlays`` (see the module);
    ``family`` (the current package's) names them in Python."""
    overlaid, outcomes = _overlaid(new_doc, new_file, overlays)
    raw = judge([(family, new_doc)], observations)
    layered = judge([(family, overlaid)], observations)
    out = ObservedReport(source)
    for alone, with_overlays in zip(raw, layered, strict=True):
        if alone.status == "accepted":
            verdict: Verdict = "documented"
        elif with_overlays.status == "accepted":
            verdict = "learned"
        else:
            verdict = "rejected"
        out.shapes.append(ObservedShape(with_overlays, verdict))
    for outcome in outcomes:
        file = str(getattr(outcome, "overlay_file", ""))
        status = str(getattr(outcome, "status", ""))
        if Path(file).name == FILE_NAME and status in ("redundant", "absent"):
            index, target = getattr(outcome, "index", "?"), getattr(outcome, "target", "")
            out.retirable.append(f"{file}#{index}  {target}")
    return out


_SAY = {
    "documented": "now documented by the new snapshot (its learned action can retire)",
    "learned": "accepted through the overlays (still learned)",
    "rejected": "REJECTED: the new snapshot, with its overlays, does not accept it",
}


def observed_text(report: ObservedReport) -> str:
    """The section ``drift --observed`` prints and ``update`` puts in its summary (Markdown)."""
    lines = [f"## Observed shapes ({len(report.shapes)} from {report.source})", ""]
    by_call: dict[str, list[ObservedShape]] = {}
    for shape in report.shapes:
        by_call.setdefault(shape.finding.names.call, []).append(shape)
    for call, shapes in by_call.items():
        lines.append(f"- `{call}`")
        lines.extend(
            f"  - {s.finding.names.field}: {_what(s.finding)}: {_SAY[s.verdict]}" for s in shapes
        )
    lines += ["", report.summary() + "."]
    if report.retirable:
        lines += ["", "Learned actions the service now documents (delete them):", ""]
        lines.extend(f"- `{r}`" for r in report.retirable)
    return "\n".join(lines) + "\n"


def _what(finding: Finding) -> str:
    seen = finding.obs.seen
    value = f" {seen.value!r}" if seen.value is not None else ""
    return f"{finding.obs.kind} ({seen.type}{value})"


def retired_changelog(report: ObservedReport) -> str:
    """Changelog lines naming what the service has since documented, or ""."""
    documented = [s for s in report.shapes if s.verdict == "documented"]
    if not documented:
        return ""
    names = ", ".join(sorted({s.finding.names.field for s in documented}))
    return f"- The service now documents what was learned from its responses: {names}.\n"
