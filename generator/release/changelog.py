"""The changelog's release sections: what a release ships must be listed under its version.

Entries written under ``## Unreleased`` (by hand, or by ``drift --changelog`` without a version)
move under the version being released when ``update`` bumps it; ``release-check`` refuses a
release whose changelog has no section for its version, or still has unreleased entries (they
would ship in the package's long description under the wrong heading).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^## +(?P<title>\S.*?)\s*$")


@dataclass(frozen=True, slots=True)
class Section:
    heading: str  # the whole ``## ...`` line
    body: str  # the lines after it, up to the next section

    @property
    def version(self) -> str | None:
        """The version the heading names (``## 1.2.3 (2026-01-02)`` → ``1.2.3``), if any."""
        match = _HEADING.match(self.heading)
        word = match["title"].split()[0] if match else ""
        return None if self.unreleased else word.removeprefix("v") or None

    @property
    def unreleased(self) -> bool:
        match = _HEADING.match(self.heading)
        return match is not None and match["title"].split()[0].lower() == "unreleased"

    @property
    def entries(self) -> str:
        return self.body.strip("\n")


def split_sections(text: str) -> tuple[str, list[Section]]:
    """The text before the first ``## `` heading, and each section after it, in order."""
    head: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    in_fence = False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if not in_fence and _HEADING.match(line.rstrip("\r\n")):
            sections.append((line.rstrip("\r\n"), []))
        elif sections:
            sections[-1][1].append(line)
        else:
            head.append(line)
    return "".join(head), [Section(h, "".join(body)) for h, body in sections]


def join_sections(head: str, sections: list[Section]) -> str:
    parts = [head.rstrip("\n") + "\n\n"] if head.strip() else []
    for section in sections:
        body = section.entries
        parts.append(section.heading + "\n" + (f"\n{body}\n" if body else "") + "\n")
    return "".join(parts).rstrip("\n") + "\n"


def release_unreleased(text: str, version: str, heading: str | None = None) -> str:
    """Every ``## Unreleased`` section's entries moved under ``version``: appended to its section
    when there is one, else in a new section (``heading``, default ``## VERSION``) on top."""
    head, sections = split_sections(text)
    moved = [s.entries for s in sections if s.unreleased and s.entries]
    kept = [s for s in sections if not s.unreleased]
    if not moved and len(kept) == len(sections):
        return text
    target = next((i for i, s in enumerate(kept) if s.version == version), None)
    if target is None:
        kept.insert(0, Section(heading or f"## {version}", ""))
        target = 0
    body = "\n\n".join(part for part in (kept[target].entries, *moved) if part)
    kept[target] = Section(kept[target].heading, body)
    return join_sections(head, kept)


def release_problem(text: str, version: str, file: str) -> tuple[str, str] | None:
    """Why the changelog cannot ship as ``version`` (diagnostic id, message), or None."""
    _, sections = split_sections(text)
    pending = [s for s in sections if s.unreleased and s.entries]
    if pending:
        lines = sum(len(s.entries.splitlines()) for s in pending)
        return (
            "release-changelog-unreleased",
            f"{file} still has {lines} lines under `## Unreleased`: version {version} would "
            f"ship them as unreleased; move them under `## {version}` (cube-codegen update "
            "does when it bumps the version), then make generate",
        )
    if not any(s.version == version for s in sections):
        return (
            "release-changelog-missing",
            f"{file} has no `## {version}` section: the release would ship without notes of "
            f"its own; add one (or move the `## Unreleased` entries under it), then make generate",
        )
    return None
