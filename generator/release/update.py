"""``cube-codegen update``: from a changed live document to a regenerated, versioned package.

One run: take the new document (fetched, or from a file), compare it with the snapshot in
``spec/`` (drift) and check the overlays against it, regenerate, and when anything changed write
the snapshot, a changelog section and the bumped version, plus a Markdown summary for review.

The bump follows what changed for code using the package: a breaking change → major; an
addition (an operation, parameter, field, enum value, accepted type) → minor; anything else that
changes ``generated/`` → patch; nothing → no bump. Atomic: the new ``spec/`` is staged beside the
old one and generated from there; ``spec/`` and ``generated/`` are swapped in only after every
step succeeded, so on any failure both are as they were.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.diagnostics import CodegenError, Diagnostic
from generator.document.config import Config, FamilyConfig, load_config
from generator.document.fetch import snapshot_text
from generator.document.loader import load_document, parse_text
from generator.document.sandbox import inside
from generator.document.structure import structure_only
from generator.drift.engine import DriftReport, compare
from generator.drift.model import Change
from generator.drift.overlay_health import OverlayHealth, check_overlays
from generator.drift.report import render_markdown
from generator.drift.surface import Finding, SurfaceMapper
from generator.emit.writer import read_tree, write_tree
from generator.release.versioning import (
    bump_config_text,
    changelog_section,
    prepend_section,
)

BUMPS = ("major", "minor", "patch")
# Non-breaking changes that give callers something new: a minor release.
_WIDENING = ("-added", "-became-optional", "-became-nullable", "-type-widened", "-relaxed")


def is_addition(change: Change) -> bool:
    """True for a non-breaking change that adds to what calling code can do."""
    if change.level == "breaking":
        return False
    if change.id.startswith("response-") and not change.id.endswith("-added"):
        return False  # a response that became optional or nullable is not new surface
    return change.id.endswith(_WIDENING) or change.id == "operation-undeprecated"


def bump_for(report: DriftReport, generated_changed: bool) -> str | None:
    """``major`` / ``minor`` / ``patch`` / ``None``, by what the change means for callers."""
    if report.count("breaking"):
        return "major"
    if any(is_addition(c) for c in report.changes):
        return "minor"
    return "patch" if generated_changed else None


@dataclass(frozen=True)
class Source:
    """Where the new document comes from: a label for messages and a loader."""

    label: str
    load: Callable[[], Any]


def file_source(path: Path) -> Source:
    return Source(str(path), lambda: load_document(path))


def live_source(base_url: str, token: str, **options: Any) -> Source:
    from generator.document.fetch import fetch_spec, spec_url

    return Source(spec_url(base_url), lambda: fetch_spec(base_url, token, **options).document)


@dataclass
class UpdateResult:
    family: str
    source: str
    report: DriftReport
    health: OverlayHealth
    bump: str | None = None
    old_version: str = ""
    new_version: str = ""
    spec_changed: bool = False
    generated_changes: list[str] = field(default_factory=list)
    changelog: str = ""
    findings: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.spec_changed or bool(self.generated_changes)


def _fail(file: str, message: str, id: str = "update-failed") -> CodegenError:
    return CodegenError(Diagnostic(id, "error", file, "", message))


def _family(config: Config, name: str | None) -> FamilyConfig:
    return config.families[0] if name is None else config.family(name)


def update(
    config_path: Path,
    source: Source,
    *,
    out_dir: Path | None = None,
    family: str | None = None,
    today: str | None = None,
    generate: Callable[[Config], dict[str, str]] | None = None,
) -> UpdateResult:
    """Run the whole update; writes ``spec/`` and ``generated/`` only when something changed."""
    if generate is None:
        generate = _generate
    config = load_config(config_path, out_dir=out_dir)
    fam = _family(config, family)
    spec_dir = config_path.resolve().parent
    document_path = (spec_dir / fam.document).resolve()
    if not document_path.is_relative_to(spec_dir):
        raise _fail(str(config_path), f"{fam.document} is not inside {spec_dir}")
    old_doc = load_document(document_path)
    new_text, new_doc = _new_snapshot(config, source)
    result = _compare(fam, config, old_doc, new_doc, str(document_path), source.label)
    old_text = document_path.read_text(encoding="utf-8")
    result.spec_changed = new_text != old_text

    # Staged beside spec/ (same depth, same file system): relative paths resolve the same way.
    staged = Path(tempfile.mkdtemp(prefix=f".{spec_dir.name}.update-", dir=spec_dir.parent))
    try:
        shutil.copytree(spec_dir, staged, symlinks=True, dirs_exist_ok=True)
        staged_config = staged / config_path.name
        (staged / document_path.relative_to(spec_dir)).write_text(new_text, encoding="utf-8")
        config = load_config(staged_config, out_dir=config.out_dir)
        files = generate(config)
        before = read_tree(config.out_dir)
        changed = _differences(before, files)
        result.bump = bump_for(result.report, bool(changed))
        result.old_version = result.new_version = config.package.version
        if result.bump is not None:
            edit = bump_config_text(
                staged_config.read_text(encoding="utf-8"), str(config_path), result.bump
            )
            result.new_version = edit.new
            staged_config.write_text(edit.text, encoding="utf-8")
            result.changelog = _changelog(result.report, edit.new, changed, today)
            if config.package.changelog:
                # written in the staged copy of spec/, so it must lie in it
                log = inside(
                    staged,
                    staged / config.package.changelog,
                    file=str(config_path),
                    at="/package/changelog",
                    what="the changelog",
                )
                existing = log.read_text(encoding="utf-8") if log.exists() else ""
                log.write_text(prepend_section(existing, result.changelog), encoding="utf-8")
            config = load_config(staged_config, out_dir=config.out_dir)
            files = generate(config)
            changed = _differences(before, files)
        result.generated_changes = changed
        if result.changed:
            _swap_in(spec_dir, staged, config.out_dir, files)
            _save_stamp(config_path, out_dir)
    except CodegenError as exc:
        raise _relocated(exc, str(staged), str(spec_dir)) from None
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return result


def _new_snapshot(config: Config, source: Source) -> tuple[str, Any]:
    """The new document in the snapshot form ``fetch`` writes for this project."""
    fetched = source.load()
    if config.snapshot.structure_only:
        fetched = structure_only(fetched)
    text = snapshot_text(fetched)
    return text, parse_text(text, source.label, as_json=False)


def _compare(
    fam: FamilyConfig, config: Config, old_doc: Any, new_doc: Any, old_file: str, label: str
) -> UpdateResult:
    """Drift (in the SDK's words too) and the family's overlays checked on the new document."""
    report = compare(old_doc, new_doc, old_file=old_file, new_file=label)
    health = check_overlays(new_doc, [config.path(o) for o in fam.overlays], document_file=label)
    result = UpdateResult(fam.name, label, report, health)
    result.findings = SurfaceMapper(old_doc, new_doc, old_file, label).findings(report)
    return result


def _relocated(exc: CodegenError, staged: str, spec_dir: str) -> CodegenError:
    """The same diagnostics, naming the files in ``spec/`` rather than their staged copies."""
    return CodegenError(
        [
            dataclasses.replace(
                d,
                file=d.file.replace(staged, spec_dir),
                message=d.message.replace(staged, spec_dir),
            )
            for d in exc.diagnostics
        ]
    )


def _generate(config: Config) -> dict[str, str]:
    from generator.pipeline import generate

    return generate(config).files


def _differences(before: dict[str, bytes], files: dict[str, str]) -> list[str]:
    after = {rel: text.encode("utf-8") for rel, text in files.items()}
    return sorted(rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel))


def _changelog(report: DriftReport, version: str, changed: list[str], today: str | None) -> str:
    section = changelog_section(report, version, today=today)
    if report.changes:
        return section
    note = f"- Regenerated without API changes ({len(changed)} generated files changed).\n"
    return section.rstrip("\n") + "\n" + note


def _swap_in(spec_dir: Path, staged: Path, out_dir: Path, files: dict[str, str]) -> None:
    """``spec/`` by two renames, then ``generated/`` by :func:`write_tree`; if that fails, the old
    ``spec/`` goes back, so neither folder is left half-updated."""
    retired = staged.with_name(staged.name.replace(".update-", ".old-", 1))
    spec_dir.rename(retired)
    try:
        staged.rename(spec_dir)
    except BaseException:
        retired.rename(spec_dir)
        raise
    try:
        write_tree(out_dir, files)
    except BaseException:
        spec_dir.rename(staged)
        retired.rename(spec_dir)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def _save_stamp(config_path: Path, out_dir: Path | None) -> None:
    """Let the next ``make generate`` know the tree is current (the no-op cache)."""
    from generator.emit.cache import Stamp

    config = load_config(config_path, out_dir=out_dir)
    files = {rel: data.decode("utf-8") for rel, data in read_tree(config.out_dir).items()}
    Stamp(config_path, config).save(files)


def summary_markdown(result: UpdateResult) -> str:
    """The pull-request body: what changed, the version, the drift report, the files."""
    if not result.changed:
        head = f"No changes: `{result.source}` matches the snapshot of the {result.family} API."
        return f"## API update\n\n{head}\n"
    if result.bump:
        version = f"`{result.old_version}` → `{result.new_version}` ({result.bump})"
    else:
        version = f"`{result.old_version}` (unchanged: no generated code changed)"
    lines = [
        f"## API update: {result.family} {version}",
        "",
        f"- Source: `{result.source}`",
        f"- Snapshot: {'updated' if result.spec_changed else 'unchanged'}",
        f"- Generated files changed: {len(result.generated_changes)}",
        "",
        render_markdown(
            result.report, result.health, title="Drift", findings=result.findings
        ).rstrip("\n"),
        "",
    ]
    if result.generated_changes:
        lines += ["<details><summary>Generated files</summary>", ""]
        lines += [f"- `{rel}`" for rel in result.generated_changes]
        lines += ["", "</details>", ""]
    if result.changelog:
        lines += ["### Changelog", "", result.changelog.rstrip("\n"), ""]
    return "\n".join(lines)


def github_outputs(result: UpdateResult) -> str:
    """``key=value`` lines for ``$GITHUB_OUTPUT``: a workflow branches on ``changed``."""
    return (
        f"changed={'true' if result.changed else 'false'}\n"
        f"bump={result.bump or 'none'}\n"
        f"version={result.new_version}\n"
    )
