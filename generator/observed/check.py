"""Observations judged against a family's document: accepted, to learn, or for a person.

:func:`judge` places every observation (see :mod:`.locate`) and names it in Python (see
:mod:`.names`); :func:`report_text` prints what remains to learn grouped by operation and by
model, as ``cube-codegen learn`` shows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from generator.ir.types import Family
from generator.observed.locate import Site, locate
from generator.observed.names import PyNames, py_names
from generator.observed.records import Observation

Status = Literal["accepted", "learn", "person", "unplaced"]

_WHAT = {
    "property-unknown": "a field the document does not list",
    "enum-value-unknown": "a value the enum does not list",
    "null-not-allowed": "null where the document allows none",
    "required-missing": "a required field missing",
    "union-variant-unknown": "a variant the union does not list",
    "type-mismatch": "another type than the document's",
}


@dataclass(frozen=True)
class Finding:
    """One observation, where it lands in the document, and its Python names."""

    obs: Observation
    site: Site
    names: PyNames
    family: str

    @property
    def status(self) -> Status:
        if self.site.accepted:
            return "accepted"
        if self.site.why:
            return "unplaced"
        return "person" if self.obs.kind == "type-mismatch" else "learn"

    def line(self) -> str:
        """``Widget.colour: a field the document does not list (seen string, 3x, ...)``."""
        seen = self.obs.seen
        shape = seen.type + (f" ({seen.format})" if seen.format else "")
        if seen.value is not None:
            shape += f" {seen.value!r}"
        extra = f"; {self.site.why}" if self.site.why else ""
        extra += (
            "; needs a person (no overlay action is written)" if self.status == "person" else ""
        )
        return (
            f"{self.names.field}: {_WHAT[self.obs.kind]}, seen {shape} at {self.obs.pointer or '/'}"
            f" ({self.obs.count}x, {self.obs.first} to {self.obs.last}, "
            f"versions {', '.join(self.obs.versions)}){extra}"
        )


def has_operation(doc: Any, obs: Observation) -> bool:
    item = doc.get("paths", {}).get(obs.path) if isinstance(doc, dict) else None
    return isinstance(item, dict) and isinstance(item.get(obs.method.lower()), dict)


def judge(
    families: Sequence[tuple[Family, dict[str, Any]]], observations: Iterable[Observation]
) -> list[Finding]:
    """Every observation placed in the first family whose document has its operation (else the
    first family, where it is reported as unplaced)."""
    found = []
    for obs in observations:
        family, doc = next(((f, d) for f, d in families if has_operation(d, obs)), families[0])
        found.append(Finding(obs, locate(doc, obs), py_names(family, obs), family.name))
    return found


def report_text(findings: Iterable[Finding]) -> str:
    """What is left to learn, grouped by operation then model; empty when nothing is."""
    groups: dict[str, dict[str, list[Finding]]] = {}
    for finding in findings:
        if finding.status == "accepted":
            continue
        obs = finding.obs
        head = f"{finding.names.call} ({obs.operation}, {obs.status} {obs.media_type})"
        groups.setdefault(head, {}).setdefault(finding.names.model or "(body)", []).append(finding)
    lines = []
    for head, models in groups.items():
        lines.append(head)
        for model, items in models.items():
            lines.append(f"  {model}")
            lines.extend(f"    {f.line()}" for f in items)
    return "\n".join(lines) + ("\n" if lines else "")
