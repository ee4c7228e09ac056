"""``cube-codegen drift OLD NEW``: compare two OpenAPI documents and rate every change.

Exit codes: 0 nothing reaches ``--fail-on``; 1 something does, or ``--require-version-bump``
found a breaking change without a major bump; 2 invalid input (one line on stderr:
file, JSON pointer, what is wrong; never a traceback).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from generator.cli.errors import fail
from generator.cli.options import config_option, observed_option
from generator.diagnostics import CodegenError
from generator.document.loader import load_document
from generator.drift.engine import DriftReport, compare
from generator.drift.model import LEVELS
from generator.drift.overlay_health import DEFAULT_OVERLAY_DIR, OverlayHealth, check_overlays
from generator.drift.report import FORMATS, render, render_json
from generator.drift.surface import Finding, compare_in_sdk_words
from generator.drift.verdicts import Verdicts
from generator.release.versioning import (
    DEFAULT_CHANGELOG,
    DEFAULT_CONFIG,
    apply_release,
    missing_major_bump,
)

LIVE = "live"


def load_side(source: str) -> tuple[Any, str]:
    """A document from a file, or from the running service for the word ``live``."""
    if source == LIVE:
        from generator.document.fetch import fetch_live

        return fetch_live(), LIVE
    return load_document(source), source


def run_drift(old: str, new: str) -> tuple[DriftReport, Any, str]:
    report, _, new_doc, _, new_file = compare_sides(old, new)
    return report, new_doc, new_file


def compare_sides(old: str, new: str) -> tuple[DriftReport, Any, Any, str, str]:
    old_doc, old_file = load_side(old)
    new_doc, new_file = load_side(new)
    report = compare(old_doc, new_doc, old_file=old_file, new_file=new_file)
    return report, old_doc, new_doc, old_file, new_file


def _type_check(old_doc: Any, new_doc: Any) -> Verdicts:
    """The verdicts of ``--type-check``: both packages generated, the old callers checked."""
    from generator.release.drift_packages import judge_documents

    try:
        return judge_documents(old_doc, new_doc)
    except (RuntimeError, OSError) as exc:
        fail(f"type-check verdicts not computed: {exc}")


def _report_and_verdicts(
    report: DriftReport,
    fmt: str,
    health: OverlayHealth | None,
    findings: list[Finding],
    type_check: tuple[Any, Any] | None,
    observed: str | None = None,
) -> Verdicts | None:
    """Print the report and, with ``type_check`` (the two documents), the verdicts, then the
    ``observed`` section: one JSON document with ``verdicts`` and ``observed`` members for
    ``--format json``; otherwise the report first (it is ready before the packages are
    generated), then each section."""
    if fmt == "json":
        verdicts = _type_check(*type_check) if type_check else None
        sections = verdicts_json(verdicts) if verdicts is not None else {}
        if observed is not None:
            sections["observed"] = observed
        click.echo(render_json(report, health, findings, sections), nl=False)
        return verdicts
    colour = _colour() and fmt == "text"
    click.echo(render(report, fmt, health, colour=colour, findings=findings), nl=False)
    verdicts = None
    if type_check is not None:
        from generator.drift.verdict_report import verdict_markdown

        verdicts = _type_check(*type_check)
        click.echo("\n" + verdict_markdown(verdicts, findings), nl=False)
    if observed is not None:
        click.echo("\n" + observed, nl=False)
    return verdicts


def verdicts_json(verdicts: Verdicts) -> dict[str, Any]:
    return {
        "verdicts": {
            "checked": len(verdicts.verdicts),
            "seconds": round(verdicts.seconds, 2),
            "broken": [
                {
                    "surface": v.python,
                    "family": v.family,
                    "fingerprint": v.fingerprint,
                    "renamed_to": v.renamed_to,
                    "errors": list(v.errors),
                }
                for v in verdicts.broken
            ],
            "added": [python for _, python in verdicts.added],
        }
    }


def _observed(
    records: tuple[Path, ...],
    config_path: Path,
    family: str | None,
    old: str,
    new_doc: Any,
    new_file: str,
) -> str:
    """The observed-shapes section (see :mod:`generator.drift.observed`)."""
    from generator.document.config import load_config
    from generator.drift.observed import check_observed, observed_text
    from generator.observed.project import families
    from generator.observed.records import read_observations

    observations = read_observations([str(r) for r in records])
    config = load_config(config_path)
    if family is None and old != LIVE:
        family = next(
            (
                f.name
                for f in config.families
                if config.path(f.document).resolve() == Path(old).resolve()
            ),
            None,
        )
    fam = config.family(family) if family else config.families[0]
    ((ir, _),) = families(config, fam.name)
    overlays = [config.path(o) for o in fam.overlays]
    source = ", ".join(str(r) for r in records)
    report = check_observed(new_doc, new_file, overlays, observations, ir, source)
    return observed_text(report)


def _colour() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@click.command("drift")
@click.argument("old")
@click.argument("new")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text for a terminal, markdown for a pull request, json: one JSON document.",
)
@click.option(
    "--fail-on",
    type=click.Choice(LEVELS),
    default="breaking",
    show_default=True,
    help="Exit 1 when a change of this level or a more severe one is found.",
)
@click.option(
    "--changelog",
    type=click.Path(dir_okay=False, path_type=Path),
    is_flag=False,
    flag_value=DEFAULT_CHANGELOG,
    default=None,
    help=f"Prepend a section for these changes to this Markdown file [{DEFAULT_CHANGELOG}].",
)
@click.option(
    "--bump-version",
    "bump_config",
    type=click.Path(dir_okay=False, path_type=Path),
    is_flag=False,
    flag_value=DEFAULT_CONFIG,
    default=None,
    help=f"Bump package.version in this config: breaking → major, else minor [{DEFAULT_CONFIG}].",
)
@click.option(
    "--overlays",
    "overlay_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_OVERLAY_DIR,
    show_default=True,
    help="Folder of *.overlay.yaml files whose health is checked against NEW.",
)
@click.option("--no-overlays", is_flag=True, help="Skip the overlay health check.")
@click.option(
    "--type-check",
    is_flag=True,
    help="Generate both packages and type-check the old one's callers against the new one "
    "(mypy --strict): each surface's verdict, renames by their replacement.",
)
@click.option(
    "--require-version-bump",
    is_flag=True,
    help="Exit 1 when a breaking change comes without a major bump of info.version "
    "(or of the package version: --package-versions, or --bump-version).",
)
@click.option(
    "--package-versions",
    nargs=2,
    default=None,
    metavar="OLD NEW",
    help="The package versions before and after, for --require-version-bump.",
)
@observed_option(
    "Shape records (a folder of *.jsonl, or a file; repeatable): report which observed "
    "shapes NEW documents, which its family's overlays accept, and which it rejects."
)
@config_option(
    "With --observed: the project whose family (the one whose document is OLD, else "
    "--family, else the first) gives the overlays and the Python names."
)
@click.option("--family", default=None, help="With --observed: the API family.")
def drift(
    *,
    observed: tuple[Path, ...],
    config_path: Path,
    family: str | None,
    old: str,
    new: str,
    fmt: str,
    fail_on: str,
    changelog: Path | None,
    bump_config: Path | None,
    overlay_dir: Path,
    no_overlays: bool,
    require_version_bump: bool,
    package_versions: tuple[str, str] | None,
    type_check: bool,
) -> None:
    """Compare OLD and NEW (files, or the word `live` for the running service, configured by
    CUBE_BASE_URL and CUBE_API_KEY) and report what changed for code using the client."""
    try:
        old_doc, old_file = load_side(old)
        new_doc, new_file = load_side(new)
        report, findings = compare_in_sdk_words(old_doc, new_doc, old_file, new_file)
        health: OverlayHealth | None = None
        if not no_overlays:
            health = check_overlays(new_doc, overlay_dir, document_file=new_file)
        sides = (old_doc, new_doc) if type_check else None
        extra = (
            _observed(observed, config_path, family, old, new_doc, new_file) if observed else None
        )
        verdicts = _report_and_verdicts(report, fmt, health, findings, sides, extra)
        broken = len(verdicts.broken) if verdicts is not None else 0
        release = None
        if changelog is not None or bump_config is not None:
            release = apply_release(report, changelog=changelog, config=bump_config)
            if release.kind is None:
                click.echo("no changes: version and changelog left as they are", err=True)
            else:
                bumped = (
                    f"version {release.old_version} -> {release.new_version} ({release.kind})"
                    if release.new_version
                    else f"{release.kind} change"
                )
                wrote = f"; prepended a section to {changelog}" if release.changelog_written else ""
                click.echo(f"{bumped}{wrote}", err=True)
        if require_version_bump:
            if release is not None and release.kind == "major" and release.new_version:
                package_versions = (release.old_version or "", release.new_version)
            problem = missing_major_bump(report, old_doc, new_doc, package_versions)
            if problem:
                click.echo(f"cube-codegen: {problem} [drift-version-bump-required]", err=True)
                sys.exit(1)
    except CodegenError as exc:
        fail(exc.summary())
    except RecursionError:
        fail("input nests too deeply to compare")
    # a surface that no longer type-checks is a break, whatever the rules rated it
    sys.exit(1 if report.reaches(fail_on) or broken else 0)
