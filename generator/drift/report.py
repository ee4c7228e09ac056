"""Render a drift report as JSON, as Markdown for a pull request, or as text for a terminal."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from generator.diagnostics import markdown_line, one_line
from generator.drift.engine import DriftReport
from generator.drift.model import LEVELS, Change
from generator.drift.overlay_health import OverlayHealth

if TYPE_CHECKING:
    from generator.drift.surface import Finding

FORMATS = ("text", "markdown", "json")
_TITLES = {"breaking": "Breaking", "warning": "Warnings", "info": "Info"}
_ANSI = {"breaking": "\x1b[1;31m", "warning": "\x1b[33m", "info": "\x1b[36m"}
_RESET = "\x1b[0m"


def summary(report: DriftReport) -> str:
    return ", ".join(f"{report.count(level)} {level}" for level in LEVELS)


def _by_change(findings: list[Finding] | None) -> dict[Change, Finding]:
    return {f.change: f for f in findings or ()}


def render_json(
    report: DriftReport,
    overlays: OverlayHealth | None = None,
    findings: list[Finding] | None = None,
) -> str:
    sdk = _by_change(findings)
    data: dict[str, Any] = {
        "changes": [sdk[c].to_json() if c in sdk else c.to_json() for c in report.changes]
    }
    if overlays is not None and overlays.checked:
        data["overlays"] = overlays.to_json()
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _md(text: str) -> str:
    """Table-cell safe and inert: whatever the document names stays text (no code span it
    could close, no link, image, HTML or mention)."""
    return markdown_line(text)


def _md_code(text: str) -> str:
    return "`" + one_line(text).replace("`", "'").replace("|", "\\|") + "`"


def render_markdown(
    report: DriftReport,
    overlays: OverlayHealth | None = None,
    *,
    title: str = "API drift",
    findings: list[Finding] | None = None,
) -> str:
    sdk = _by_change(findings)
    lines = [f"## {title}", ""]
    if not report.changes:
        lines += ["No API changes.", ""]
    else:
        lines += [f"**{summary(report)}**", ""]
    for level in LEVELS:
        changes = [c for c in report.changes if c.level == level]
        if not changes:
            continue
        heading = f"### {_TITLES[level]} ({len(changes)})"
        folded = level == "info"
        if folded:
            lines += [f"<details><summary>{heading[4:]}</summary>", ""]
        else:
            lines += [heading, ""]
        if sdk:
            lines += [
                "| Operation | Python | Still type-checks | Change | Rule | Line |",
                "| --- | --- | --- | --- | --- | --- |",
            ]
        else:
            lines += ["| Operation | Change | Rule |", "| --- | --- | --- |"]
        for c in changes:
            op = _md_code(c.operation) if c.operation else "*document*"
            f = sdk.get(c)
            if f is None:
                lines.append(f"| {op} | {_md(c.message)} | {_md_code(c.id)} |")
                continue
            checks = "yes" if f.type_checks else "**no**"
            line = f.line
            lines.append(
                f"| {op} | {_md_code(f.surface.python)} | {checks} | {_md(c.message)} "
                f"| {_md_code(c.id)} `{f.fingerprint}` | {line or ''} |"
            )
        lines.append("")
        if folded:
            lines += ["</details>", ""]
    lines += _markdown_overlays(overlays)
    return "\n".join(lines).rstrip("\n") + "\n"


def _markdown_overlays(overlays: OverlayHealth | None) -> list[str]:
    if overlays is None:
        return []
    if not overlays.checked:
        return [f"*Overlay health not checked: {_md(overlays.note)}*", ""]
    if not overlays.findings:
        return [f"Overlays: all {len(overlays.overlays)} still apply cleanly.", ""]
    lines = [
        "### Overlay health",
        "",
        "| Overlay | Action | Status | Target |",
        "| --- | --- | --- | --- |",
    ]
    for f in overlays.findings:
        lines.append(f"| {_md_code(f.overlay)} | {f.index} | {f.status} | {_md_code(f.target)} |")
    lines.append("")
    for file in overlays.retirable:
        lines.append(f"- {_md_code(file)}: every action is redundant; the file can be deleted")
    return [*lines, ""] if overlays.retirable else lines


def render_text(
    report: DriftReport,
    overlays: OverlayHealth | None = None,
    *,
    colour: bool = False,
    findings: list[Finding] | None = None,
) -> str:
    sdk = _by_change(findings)
    lines: list[str] = []
    for c in report.changes:
        level = c.level.upper().ljust(8)
        if colour:
            level = f"{_ANSI[c.level]}{level}{_RESET}"
        where = c.operation or "(document)"
        lines.append(f"{level} {one_line(where)}: {one_line(c.message)} [{c.id}]")
        f = sdk.get(c)
        if f is not None:
            checks = "still type-checks" if f.type_checks else "no longer type-checks"
            lines.append(f"         {one_line(f.surface.python)}: {checks} [{f.fingerprint}]")
    lines.append(f"{summary(report)}" if report.changes else "no API changes")
    if overlays is not None:
        if not overlays.checked:
            lines.append(f"overlays: not checked ({one_line(overlays.note)})")
        elif not overlays.findings:
            lines.append(f"overlays: all {len(overlays.overlays)} apply cleanly")
        else:
            lines += [f"overlay {f}" for f in overlays.findings]
            lines += [f"overlay {line}" for line in overlays.retire_lines()]
    return "\n".join(lines) + "\n"


def render(
    report: DriftReport,
    fmt: str,
    overlays: OverlayHealth | None = None,
    *,
    colour: bool = False,
    findings: list[Finding] | None = None,
) -> str:
    if fmt == "json":
        return render_json(report, overlays, findings)
    if fmt == "markdown":
        return render_markdown(report, overlays, findings=findings)
    return render_text(report, overlays, colour=colour, findings=findings)


def changelog_lines(changes: tuple[Change, ...]) -> list[str]:
    """Bullets for a changelog section, most severe first."""
    out: list[str] = []
    for level in LEVELS:
        for c in (c for c in changes if c.level == level):
            where = f"{_md_code(c.operation)}: " if c.operation else ""
            out.append(f"- **{level}** {where}{_md(c.message)} (`{c.id}`)")
    return out
