"""Verdicts in the SDK's words: the summary section of an update or a drift, and the changelog
section of a release, each change once, grouped by resource and by model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from generator.diagnostics import markdown_line, one_line
from generator.drift.surface import Finding
from generator.drift.verdicts import Verdict, Verdicts

_MAX_LISTED = 400  # surfaces listed per section; the rest are counted


def _owner(python: str) -> str:
    """``client.roles`` for ``client.roles.update_role(...)``; ``models.Role`` for its fields."""
    parts = python.split("(", 1)[0].split(".")
    return ".".join(parts[:2])


def _member(python: str, owner: str) -> str:
    rest = python[len(owner) :]
    return rest.lstrip(".") or "(the name itself)"


def _grouped(names: Iterable[str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):  # each change once, in order
        groups.setdefault(_owner(name), []).append(name)
    return groups


def _lines(findings: Sequence[Finding]) -> dict[str, str]:
    """Surface → where the change is in each document (from the drift findings)."""
    out: dict[str, str] = {}
    for f in findings:
        where = [
            f"old line {f.old_line}" if f.old_line else "",
            f"new line {f.new_line}" if f.new_line else "",
        ]
        text = ", ".join(w for w in where if w)
        if text:
            out.setdefault(f.surface.python, text)
    return out


def _why(verdict: Verdict, lines: dict[str, str]) -> str:
    parts = []
    if verdict.renamed_to:
        parts.append(f"renamed: use `{verdict.renamed_to}`")
    if verdict.errors:
        parts.append(one_line(verdict.errors[0], 160))
    where = lines.get(verdict.python)
    if where:
        parts.append(where)
    return "; ".join(parts)


def breaking_lines(
    verdicts: Verdicts, findings: Sequence[Finding] = (), waived: frozenset[str] = frozenset()
) -> list[str]:
    """One bullet per owner, each broken surface under it once, with why and the fingerprint a
    waiver would name."""
    lines = _lines(findings)
    by_python = {v.python: v for v in verdicts.broken}
    out: list[str] = []
    listed = 0
    for owner, names in _grouped(by_python).items():
        out.append(f"- `{owner}`")
        for name in names:
            listed += 1
            if listed > _MAX_LISTED:
                continue
            v = by_python[name]
            mark = " (waived)" if v.fingerprint in waived else ""
            out.append(f"  - `{_member(name, owner)}`{mark}: {_why(v, lines)} `[{v.fingerprint}]`")
    if listed > _MAX_LISTED:
        out.append(f"- … and {listed - _MAX_LISTED} more")
    return out


def added_lines(verdicts: Verdicts) -> list[str]:
    out = []
    for owner, names in _grouped(python for _, python in verdicts.added).items():
        members = [f"`{_member(n, owner)}`" for n in names]
        shown = ", ".join(members[:30]) + (
            f", … ({len(members) - 30} more)" if len(members) > 30 else ""
        )
        out.append(f"- `{owner}`: {shown}")
    return out


def changed_lines(verdicts: Verdicts, findings: Sequence[Finding]) -> list[str]:
    """The document's other changes, in Python names: what still type-checks but differs
    (a deprecation, a new status, a changed default), each once, grouped by owner."""
    skip = {v.python for v in verdicts.broken} | {python for _, python in verdicts.added}
    seen: dict[str, list[str]] = {}
    for f in findings:
        python = f.surface.python or f.change.operation or ""
        if not python or python in skip:
            continue
        note = f"{markdown_line(f.change.message, 160)} (`{f.change.id}`)"
        if note not in seen.setdefault(python, []):
            seen[python].append(note)
    out = []
    for owner, names in _grouped(seen).items():
        out.append(f"- `{owner}`")
        out += [f"  - `{_member(n, owner)}`: {'; '.join(seen[n])}" for n in names]
    return out


def verdict_markdown(
    verdicts: Verdicts, findings: Sequence[Finding] = (), waived: frozenset[str] = frozenset()
) -> str:
    """The summary section: how many surfaces were checked, what breaks and what is new."""
    broken = verdicts.broken
    head = (
        f"### Type-check verdicts\n\n{len(verdicts.verdicts)} surfaces of the old package checked "
        f"with `mypy --strict` against the new one in {verdicts.seconds:.1f} s: "
        f"{len(broken)} no longer type-check"
        + (f" ({sum(v.fingerprint in waived for v in broken)} waived)" if waived else "")
        + f", {len(verdicts.added)} added.\n"
    )
    parts = [head]
    if broken:
        parts += ["#### No longer type-checks", "", *breaking_lines(verdicts, findings, waived), ""]
    if verdicts.added:
        parts += ["#### Added", "", *added_lines(verdicts), ""]
    return "\n".join(parts).rstrip("\n") + "\n"


def changelog_markdown(
    verdicts: Verdicts,
    version: str,
    findings: Sequence[Finding] = (),
    waived: frozenset[str] = frozenset(),
    *,
    changed_files: int = 0,
    today: str | None = None,
) -> str:
    """A release's changelog section in Python names."""
    day = today or datetime.now(UTC).date().isoformat()
    out = [f"## {version} ({day})", ""]
    if verdicts.broken:
        out += ["### Breaking: code that type-checked no longer does", ""]
        out += [*breaking_lines(verdicts, findings, waived), ""]
    if verdicts.added:
        out += ["### Added", "", *added_lines(verdicts), ""]
    changed = changed_lines(verdicts, findings)
    if changed:
        out += ["### Changed", "", *changed, ""]
    if not verdicts.broken and not verdicts.added and not changed:
        out += [f"- Regenerated without API changes ({changed_files} generated files changed).", ""]
    return "\n".join(out)
