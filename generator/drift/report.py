"""Render a drift report as JSON, as Markdown for a pull request, or as text for a terminal."""

from __future__ import annotations

import json
from typing import Any

from generator.diagnostics import one_line
from generator.drift.engine import DriftReport
from generator.drift.model import LEVELS, Change
from generator.drift.overlay_health import OverlayHealth

FORMATS = ("text", "markdown", "json")
_TITLES = {"breaking": "Breaking", "warning": "Warnings", "info": "Info"}
_ANSI = {"breaking": "\x1b[1;31m", "warning": "\x1b[33m", "info": "\x1b[36m"}
_RESET = "\x1b[0m"


def summary(report: DriftReport) -> str:
    return ", ".join(f"{report.count(level)} {level}" for level in LEVELS)


def render_json(report: DriftReport, overlays: OverlayHealth | None = None) -> str:
    data: dict[str, Any] = {"changes": [c.to_json() for c in report.changes]}
    if overlays is not None and overlays.checked:
        data["overlays"] = overlays.to_json()
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _md(text: str) -> str:
    """Table-cell safe: one line, pipes escaped, no stray HTML."""
    return (
        one_line(text)
        .replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
    )


def _md_code(text: str) -> str:
    return "`" + one_line(text).replace("`", "'").replace("|", "\\|") + "`"


def render_markdown(
    report: DriftReport, overlays: OverlayHealth | None = None, *, title: str = "API drift"
) -> str:
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
        lines += ["| Operation | Change | Rule |", "| --- | --- | --- |"]
        for c in changes:
            op = _md_code(c.operation) if c.operation else "*document*"
            lines.append(f"| {op} | {_md(c.message)} | {_md_code(c.id)} |")
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
    return [*lines, ""]


def render_text(
    report: DriftReport, overlays: OverlayHealth | None = None, *, colour: bool = False
) -> str:
    lines: list[str] = []
    for c in report.changes:
        level = c.level.upper().ljust(8)
        if colour:
            level = f"{_ANSI[c.level]}{level}{_RESET}"
        where = c.operation or "(document)"
        lines.append(f"{level} {one_line(where)}: {one_line(c.message)} [{c.id}]")
    lines.append(f"{summary(report)}" if report.changes else "no API changes")
    if overlays is not None:
        if not overlays.checked:
            lines.append(f"overlays: not checked ({one_line(overlays.note)})")
        elif not overlays.findings:
            lines.append(f"overlays: all {len(overlays.overlays)} apply cleanly")
        else:
            lines += [f"overlay {f}" for f in overlays.findings]
    return "\n".join(lines) + "\n"


def render(
    report: DriftReport, fmt: str, overlays: OverlayHealth | None = None, *, colour: bool = False
) -> str:
    if fmt == "json":
        return render_json(report, overlays)
    if fmt == "markdown":
        return render_markdown(report, overlays)
    return render_text(report, overlays, colour=colour)


def changelog_lines(changes: tuple[Change, ...]) -> list[str]:
    """Bullets for a changelog section, most severe first."""
    out: list[str] = []
    for level in LEVELS:
        for c in (c for c in changes if c.level == level):
            where = f"`{one_line(c.operation)}`: " if c.operation else ""
            out.append(f"- **{level}** {where}{_md(c.message)} (`{c.id}`)")
    return out
