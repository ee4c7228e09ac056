"""Turn a drift report into a version bump and a changelog section, written atomically.

The config file is edited textually (one line: ``version`` under ``package``) so comments and
layout survive; the edit is verified by parsing the result before anything is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from generator.diagnostics import CodegenError, Diagnostic, one_line
from generator.document.loader import parse_text
from generator.drift.engine import DriftReport
from generator.drift.report import changelog_lines
from generator.files import write_atomic
from generator.release.changelog import release_unreleased

DEFAULT_CHANGELOG = "spec/CHANGELOG.md"
DEFAULT_CONFIG = "spec/cube-codegen.yaml"
# A version as written in the configuration: PEP 440 (``1.2.3``, ``2.0.0rc1``, ``1.2.3.post1``).
_VERSION = r"\d+(?:\.\d+)*(?:[a-zA-Z0-9.+!_-]*[a-zA-Z0-9])?"
_BLOCK_VERSION = re.compile(
    rf"""^(?P<indent>[ \t]+)version:(?P<sp>[ \t]*)(?P<q>["']?)(?P<v>{_VERSION})(?P=q)"""
    r"""(?P<rest>[ \t]*(?:#.*)?)$"""
)
_FLOW_VERSION = re.compile(rf"""(?P<head>\bversion:[ \t]*)(?P<q>["']?)(?P<v>{_VERSION})(?P=q)""")


def _fail(file: str, ptr: str, message: str) -> CodegenError:
    return CodegenError(Diagnostic("drift-version-bump", "error", file, ptr, message))


def bump_kind(report: DriftReport) -> str | None:
    """``major`` for any breaking change, ``minor`` for any other change, ``None`` for none."""
    if not report.changes:
        return None
    return "major" if report.count("breaking") else "minor"


def next_version(version: str, kind: str | None) -> str:
    """The version after ``version`` for a change of ``kind``, read with ``packaging`` (PEP 440).

    A pre-release (``2.0.0rc1``, ``1.3.0.dev2``) is followed by its release when the change fits
    in it (a break after ``2.0.0rc1`` is ``2.0.0``; a break after ``1.2.1rc1`` is ``2.0.0``); a
    post-release (``1.2.3.post1``) counts as its release. On 0.x a break goes to 1.0.0.
    """
    try:
        parsed = Version(version)
    except InvalidVersion:
        raise ValueError(f"{version!r} is not a version (MAJOR.MINOR.PATCH)") from None
    if kind is None:
        return version
    major, minor, patch = (*parsed.release, 0, 0)[:3]
    pending = parsed.is_prerelease  # this release itself is still to come
    if kind == "major":
        if pending and minor == 0 and patch == 0:
            return f"{major}.0.0"
        return f"{major + 1}.0.0"
    if kind == "minor":
        return f"{major}.{minor}.0" if pending and patch == 0 else f"{major}.{minor + 1}.0"
    if kind == "patch":
        return f"{major}.{minor}.{patch}" if pending else f"{major}.{minor}.{patch + 1}"
    raise ValueError(f"unknown bump {kind!r}")


@dataclass(frozen=True, slots=True)
class VersionEdit:
    old: str
    new: str
    text: str


def bump_config_text(text: str, file: str, kind: str | None) -> VersionEdit:
    """The config text with ``package.version`` bumped, every other byte unchanged."""
    data = parse_text(text, file, as_json=False)
    package = data.get("package") if isinstance(data, dict) else None
    version = package.get("version") if isinstance(package, dict) else None
    if not isinstance(version, str) or not re.fullmatch(_VERSION, version):
        raise _fail(
            file,
            "/package/version",
            "package.version is missing or not a quoted MAJOR.MINOR.PATCH string",
        )
    new_version = next_version(version, kind)
    if new_version == version:
        return VersionEdit(version, version, text)
    lines = text.splitlines(keepends=True)
    index = _find_version_line(lines, version)
    if index is None:
        raise _fail(file, "/package/version", "cannot find the package.version line to edit")
    line = lines[index]
    ending = line[len(line.rstrip("\r\n")) :]
    body = line.rstrip("\r\n")
    block = _BLOCK_VERSION.match(body)
    if block:
        body = body[: block.start("v")] + new_version + body[block.end("v") :]
    else:
        body = _FLOW_VERSION.sub(
            lambda m: f"{m['head']}{m['q']}{new_version}{m['q']}", body, count=1
        )
    lines[index] = body + ending
    new_text = "".join(lines)
    check = parse_text(new_text, file, as_json=False)
    expected = parse_text(text, file, as_json=False)
    expected["package"]["version"] = new_version
    if check != expected:
        raise _fail(
            file, "/package/version", "editing the version line would change more than the version"
        )
    return VersionEdit(version, new_version, new_text)


def _find_version_line(lines: list[str], version: str) -> int | None:
    in_package = False
    for index, line in enumerate(lines):
        stripped = line.rstrip("\r\n")
        if re.match(r"^package:\s*(#.*)?$", stripped):
            in_package = True
            continue
        if re.match(r"^package:\s*\{", stripped) and version in stripped:
            return index
        if in_package:
            if stripped and not stripped[0].isspace() and not stripped.startswith("#"):
                in_package = False
                continue
            match = _BLOCK_VERSION.match(stripped)
            if match and match["v"] == version:
                return index
    return None


def changelog_section(report: DriftReport, version: str | None, *, today: str | None = None) -> str:
    day = today or datetime.now(UTC).date().isoformat()
    heading = f"## {version} ({day})" if version else f"## Unreleased ({day})"
    return "\n".join([heading, "", *changelog_lines(report.changes), ""]) + "\n"


def prepend_section(existing: str, section: str) -> str:
    """Insert below a leading ``# Title`` line (and its blank line) if there is one, else on top."""
    if not existing.strip():
        return "# Changelog\n\n" + section
    lines = existing.splitlines(keepends=True)
    if lines and lines[0].startswith("# "):
        rest = "".join(lines[1:]).lstrip("\n")
        return lines[0].rstrip("\n") + "\n\n" + section + ("\n" + rest if rest else "")
    return section + "\n" + existing


@dataclass(frozen=True, slots=True)
class ReleaseResult:
    kind: str | None
    old_version: str | None
    new_version: str | None
    changelog_written: bool


def apply_release(
    report: DriftReport, *, changelog: Path | None, config: Path | None, today: str | None = None
) -> ReleaseResult:
    """Bump the config's version and prepend the changelog section; nothing happens without changes.

    Both new texts are computed (and the config edit verified) before either file is written.
    """
    kind = bump_kind(report)
    if kind is None:
        return ReleaseResult(None, None, None, False)
    edit: VersionEdit | None = None
    if config is not None:
        try:
            config_text = config.read_text(encoding="utf-8")
        except OSError as exc:
            raise _fail(
                str(config), "", f"cannot read: {one_line(exc.strerror or exc, 100)}"
            ) from None
        edit = bump_config_text(config_text, str(config), kind)
    log_text: str | None = None
    if changelog is not None:
        try:
            existing = changelog.read_text(encoding="utf-8") if changelog.exists() else ""
        except OSError as exc:
            raise _fail(
                str(changelog), "", f"cannot read: {one_line(exc.strerror or exc, 100)}"
            ) from None
        log_text = prepend_section(
            existing, changelog_section(report, edit.new if edit else None, today=today)
        )
        if edit is not None:  # what was unreleased ships in this version
            log_text = release_unreleased(log_text, edit.new)
    if edit is not None and config is not None and edit.new != edit.old:
        write_atomic(config, edit.text)
    if log_text is not None and changelog is not None:
        write_atomic(changelog, log_text)
    return ReleaseResult(
        kind, edit.old if edit else None, edit.new if edit else None, log_text is not None
    )


def _major(version: object) -> int | None:
    match = re.match(r"^\s*v?(\d+)", str(version)) if version is not None else None
    return int(match.group(1)) if match else None


def _grew(old: object, new: object) -> bool:
    before, after = _major(old), _major(new)
    return before is not None and after is not None and after > before


def missing_major_bump(
    report: DriftReport,
    old_doc: Any,
    new_doc: Any,
    package_versions: tuple[str, str] | None = None,
) -> str | None:
    """Why a report with breaking changes fails ``--require-version-bump``; None when it passes
    (no breaking change, or the major of ``info.version`` or of the package version grew)."""
    if not report.count("breaking"):
        return None

    def info_version(doc: Any) -> object:
        info = doc.get("info") if isinstance(doc, dict) else None
        return info.get("version") if isinstance(info, dict) else None

    old_info, new_info = info_version(old_doc), info_version(new_doc)
    if _grew(old_info, new_info):
        return None
    if package_versions is not None and _grew(*package_versions):
        return None
    where = f"info.version {old_info} -> {new_info}"
    if package_versions is not None:
        where += f", package {package_versions[0]} -> {package_versions[1]}"
    return f"{report.count('breaking')} breaking changes without a major version bump ({where})"
