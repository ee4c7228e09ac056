"""``cube-codegen update``: from a changed live document to a regenerated, versioned package.

One run: take the new document (fetched, or from a file), compare it with the snapshot in
``spec/`` (drift) and check the overlays against it, regenerate, and when anything changed write
the snapshot, a changelog section and the bumped version, plus a Markdown summary for review.

The bump follows what changed for code using the package, as the type-check verdicts say
(:mod:`generator.drift.verdicts`): a surface that no longer type-checks → major; only additions
→ minor; anything else that changes ``generated/`` → patch; nothing → no bump. A transaction:
the new ``spec/`` is staged beside the old one and generated from there; ``spec/`` and
``generated/`` are swapped in together after every step succeeded, so on any failure both are
as they were, and a run killed at any instant is finished or undone by the next command
(:mod:`generator.transaction`).
"""

from __future__ import annotations

import dataclasses
import datetime
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.diagnostics import CodegenError, Diagnostic, markdown_line, one_line
from generator.document.config import Config, FamilyConfig, load_config
from generator.document.fetch import snapshot_text
from generator.document.loader import load_document, parse_text
from generator.document.sandbox import inside
from generator.document.structure import structure_only
from generator.drift.engine import DriftReport
from generator.drift.model import Change
from generator.drift.observed import (
    ObservedReport,
    check_observed,
    observed_text,
    retired_changelog,
)
from generator.drift.overlay_health import OverlayHealth, check_overlays
from generator.drift.report import render_markdown
from generator.drift.surface import Finding, compare_in_sdk_words
from generator.drift.verdict_report import changelog_markdown, verdict_markdown
from generator.drift.verdicts import Verdicts, judge
from generator.emit.writer import read_tree, stage_tree
from generator.pipeline import Result
from generator.pipeline import generate as _generate
from generator.release.changelog import release_unreleased
from generator.release.versioning import (
    bump_config_text,
    changelog_section,
    prepend_section,
)
from generator.release.waivers import Waivers, load_waivers
from generator.transaction import Transaction, recover

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


def bump_for(
    report: DriftReport,
    generated_changed: bool,
    verdicts: Verdicts | None = None,
    waived: frozenset[str] = frozenset(),
) -> str | None:
    """``major`` / ``minor`` / ``patch`` / ``None``, by what the change means for callers.

    With verdicts (the old package's callers type-checked against the new one): a surface that
    no longer type-checks → major (unless a waiver accepts it); added surfaces or waived breaks
    → minor; any other change to the package → patch; nothing → none. Without them (mypy could
    not run), by the drift rules' levels."""
    if verdicts is not None:
        if any(v.fingerprint not in waived for v in verdicts.broken):
            return "major"
        if verdicts.added or verdicts.broken:
            return "minor"
        return "patch" if generated_changed else None
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
    verdicts: Verdicts | None = None  # None when they could not be computed (see verdict_note)
    verdict_note: str = ""
    waivers: Waivers = field(default_factory=Waivers)
    observed: ObservedReport | None = None  # with --observed: the records judged on the new one

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
    generate: Callable[[Config], Result] | None = None,
    observed: Sequence[str | Path] = (),
) -> UpdateResult:
    """Run the whole update; writes ``spec/`` and ``generated/`` only when something changed,
    together or not at all (one :class:`~generator.transaction.Transaction`)."""
    config = load_config(config_path, out_dir=out_dir)
    fam = _family(config, family)
    spec_dir = config_path.resolve().parent
    document_path = (spec_dir / fam.document).resolve()
    if not document_path.is_relative_to(spec_dir):
        raise _fail(str(config_path), f"{fam.document} is not inside {spec_dir}")
    old_doc = load_document(document_path)
    new_text, new_doc = _new_snapshot(config, source)
    result = _compare(fam, config, old_doc, new_doc, str(document_path), source.label)
    result.spec_changed = new_text != document_path.read_text(encoding="utf-8")
    if observed:
        result.observed = _observed(config, fam, new_doc, source.label, observed)
    recover()
    # Staged beside spec/ (same depth, same file system): relative paths resolve the same way.
    with Transaction("update") as txn:
        staged = txn.stage(spec_dir)
        try:
            shutil.copytree(spec_dir, staged, symlinks=True, dirs_exist_ok=True)
            (staged / document_path.relative_to(spec_dir)).write_text(new_text, encoding="utf-8")
            release = _Release(staged / config_path.name, config_path, config.out_dir, today)
            files = release.build(result, generate or _generate)
        except CodegenError as exc:
            raise _relocated(exc, str(staged), str(spec_dir)) from None
        if result.changed:
            stage_tree(txn, config.out_dir, files)
            txn.commit()
    if result.changed:
        _save_stamp(config_path, out_dir)
    return result


@dataclass
class _Release:
    """The staged copy of ``spec/`` turned into a release: generated, and when the package
    changed, versioned and given a changelog section, then generated again."""

    staged_config: Path
    config_path: Path  # the real one, for messages
    out_dir: Path
    today: str | None

    def build(self, result: UpdateResult, generate: Callable[[Config], Result]) -> dict[str, str]:
        config = load_config(self.staged_config, out_dir=self.out_dir)
        new = generate(config)
        files = new.files
        before = read_tree(config.out_dir)
        changed = _differences(before, files)
        self._judge(result, generate, new)
        waived = result.waivers.fingerprints
        result.bump = bump_for(result.report, bool(changed), result.verdicts, waived)
        result.old_version = result.new_version = config.package.version
        if result.bump is not None:
            self._bump(config, result, result.bump, changed)
            config = load_config(self.staged_config, out_dir=self.out_dir)
            files = generate(config).files
            changed = _differences(before, files)
        result.generated_changes = changed
        return files

    def _judge(
        self, result: UpdateResult, generate: Callable[[Config], Result], new: Result
    ) -> None:
        """The verdicts: the package as it is now, its callers checked against the new one."""
        day = datetime.date.fromisoformat(self.today) if self.today else datetime.date.today()
        result.waivers = load_waivers(self.config_path.parent, day)
        try:
            old = generate(load_config(self.config_path, out_dir=self.out_dir))
            result.verdicts = judge(old.package, new.package, new.files)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            result.verdict_note = f"type-check verdicts not computed ({one_line(exc, 200)})"

    def _bump(self, config: Config, result: UpdateResult, bump: str, changed: list[str]) -> None:
        staged = self.staged_config.parent
        text = self.staged_config.read_text(encoding="utf-8")
        edit = bump_config_text(text, str(self.config_path), bump)
        result.new_version = edit.new
        self.staged_config.write_text(edit.text, encoding="utf-8")
        if result.verdicts is not None:
            result.changelog = changelog_markdown(
                result.verdicts,
                edit.new,
                result.findings,
                result.waivers.fingerprints,
                changed_files=len(changed),
                today=self.today,
            )
        else:
            result.changelog = _changelog(result.report, edit.new, changed, self.today)
        if result.observed is not None:
            result.changelog += retired_changelog(result.observed)
        if config.package.changelog:
            # written in the staged copy of spec/, so it must lie in it
            log = inside(
                staged,
                staged / config.package.changelog,
                file=str(self.config_path),
                at="/package/changelog",
                what="the changelog",
            )
            existing = log.read_text(encoding="utf-8") if log.exists() else ""
            text = release_unreleased(prepend_section(existing, result.changelog), edit.new)
            log.write_text(text, encoding="utf-8")


def _observed(
    config: Config, fam: FamilyConfig, new_doc: Any, label: str, records: Sequence[str | Path]
) -> ObservedReport:
    """The recorded shapes judged on the new document (see :mod:`generator.drift.observed`)."""
    from generator.observed.project import families
    from generator.observed.records import read_observations

    observations = read_observations(records)
    ((ir, _),) = families(config, fam.name)
    overlays = [config.path(o) for o in fam.overlays]
    source = ", ".join(str(r) for r in records)
    return check_observed(new_doc, label, overlays, observations, ir, source)


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
    report, findings = compare_in_sdk_words(old_doc, new_doc, old_file, label)
    health = check_overlays(new_doc, [config.path(o) for o in fam.overlays], document_file=label)
    result = UpdateResult(fam.name, label, report, health)
    result.findings = findings
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


def _differences(before: dict[str, bytes], files: dict[str, str]) -> list[str]:
    after = {rel: text.encode("utf-8") for rel, text in files.items()}
    return sorted(rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel))


def _changelog(report: DriftReport, version: str, changed: list[str], today: str | None) -> str:
    section = changelog_section(report, version, today=today)
    if report.changes:
        return section
    note = f"- Regenerated without API changes ({len(changed)} generated files changed).\n"
    return section.rstrip("\n") + "\n" + note


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
        seen = observed_text(result.observed).replace("## ", "### ", 1) if result.observed else ""
        return f"## API update\n\n{head}\n" + (f"\n{seen}" if seen else "")
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
        *_verdict_section(result),
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
    if result.observed is not None:
        lines += [observed_text(result.observed).replace("## ", "### ", 1)]
    return "\n".join(lines)


SUMMARY_LIMIT = 60_000  # characters; a pull-request body holds 65,536


def fitted_summary(text: str, full_name: str) -> str:
    """``text`` when it fits a pull-request body, else its head and a pointer to the full report
    (written beside the summary as ``full_name``)."""
    if len(text) <= SUMMARY_LIMIT:
        return text
    note = f"\n\n… (cut at {SUMMARY_LIMIT:,} characters: the full report is `{full_name}`)\n"
    head = text[: SUMMARY_LIMIT - len(note)]
    return head[: head.rfind("\n")] + note


def failure_markdown(source: str, diagnostics: Sequence[Diagnostic]) -> str:
    """The summary of a failed update: what failed, in full, for the workflow to post."""
    lines = [
        "## API update failed",
        "",
        f"- Source: `{source}`",
        "- `spec/` and `generated/` are as they were; nothing was released.",
        "",
        "### What failed",
        "",
    ]
    lines += [f"- {markdown_line(str(d), 2000)}" for d in diagnostics]
    return "\n".join(lines) + "\n"


def failure_outputs() -> str:
    """``$GITHUB_OUTPUT`` lines of a failed update."""
    return "changed=false\nfailed=true\n"


def _verdict_section(result: UpdateResult) -> list[str]:
    """What no longer type-checks (and what is new), then the waivers that applied or expired."""
    if result.verdicts is None:
        return [f"> {result.verdict_note}", ""] if result.verdict_note else []
    waivers = result.waivers
    lines = [verdict_markdown(result.verdicts, result.findings, waivers.fingerprints).rstrip("\n")]
    if waivers.active or waivers.expired:
        lines += ["", "#### Waivers", ""]
        lines += [
            f"- `{w.fingerprint}` until {w.expires}: {one_line(w.reason)}" for w in waivers.active
        ]
        lines += [
            f"- `{w.fingerprint}` **expired** {w.expires} (no longer applies): {one_line(w.reason)}"
            for w in waivers.expired
        ]
    return [*lines, ""]


def github_outputs(result: UpdateResult) -> str:
    """``key=value`` lines for ``$GITHUB_OUTPUT``: a workflow branches on ``changed``."""
    return (
        "failed=false\n"
        f"changed={'true' if result.changed else 'false'}\n"
        f"bump={result.bump or 'none'}\n"
        f"version={result.new_version}\n"
    )
