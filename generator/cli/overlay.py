"""``overlay apply`` and ``overlay check``: the command-line face of the overlay engine.

Exit codes: 0 success; 1 an action matched nothing (``apply`` then writes nothing); 2 invalid input,
reported as one line on stderr with file, JSON pointer and reason, never a traceback.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from generator.cli.errors import fail
from generator.cli.options import config_option, family_option
from generator.diagnostics import CodegenError, Diagnostic, one_line
from generator.document.loader import load_document
from generator.overlay.coverage import Coverage, coverage, read_overlays
from generator.overlay.engine import apply_overlays
from generator.overlay.loader import load_overlay
from generator.overlay.model import Overlay, OverlayResult
from generator.overlay.output import output_format, render, write_atomic
from generator.overlay.retire import retirable_files

DEFAULT_SPEC = Path("spec/platform-api.yaml")
DEFAULT_OVERLAYS = Path("spec/overlays")
OVERLAY_GLOB = "*.overlay.yaml"

_LABELS = {
    "matched": "matched",
    "unmatched": "unmatched",
    "redundant": "redundant",
    "absent-allowed": "absent",
}


@click.group()
def overlay() -> None:
    """Apply OpenAPI Overlays (1.0, 1.1) and check them for drift against the spec."""


@overlay.command("apply")
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("overlays", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the result; .json gives JSON, .yaml/.yml gives YAML.",
)
def apply_command(spec: Path, overlays: tuple[Path, ...], out: Path) -> None:
    """Apply OVERLAYS in order to SPEC and write the result to --out (atomically)."""
    try:
        output_format(out)
        result = _run(spec, overlays)
        _print_diagnostics(result.diagnostics)
        if not result.ok:
            _stderr(f"{len(result.errors)} action(s) matched nothing; {out} not written")
            sys.exit(1)
        write_atomic(out, render(result.document, out))
    except CodegenError as exc:
        fail(exc.summary())
    matched = sum(1 for o in result.outcomes if o.status == "matched")
    _stderr(f"wrote {out}: {matched} of {len(result.outcomes)} action(s) changed the document")


@overlay.command("check")
@click.option(
    "--spec",
    "spec",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The OpenAPI document the overlays apply to "
    f"[the --family's document, else {DEFAULT_SPEC}].",
)
@family_option(
    "The API family whose overlays (and, without --spec, document) are checked "
    "[the family whose document is --spec]."
)
@config_option("Project configuration listing each family's document and overlays.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one line per action and a summary; json: one JSON document.",
)
@click.option(
    "--changelog",
    "changelog",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The service's changelog (MDX): also list its entries after SPEC's release, each with "
    "the overlay actions that cover it.",
)
@click.option("--since", "since", help="The release SPEC is at (default: inferred from SPEC).")
@click.argument("overlays", nargs=-1, type=click.Path(path_type=Path))
def check_command(
    spec: Path | None,
    family: str | None,
    config_path: Path,
    fmt: str,
    changelog: Path | None,
    since: str | None,
    overlays: tuple[Path, ...],
) -> None:
    """Report, per action, whether it still matches SPEC. Default overlays: those the project
    configuration lists for SPEC's family (without a configuration, every
    spec/overlays/*.overlay.yaml, sorted by name). Exit 1 when any action matches nothing.
    With --changelog, also report which changelog entries the overlays cover."""
    listed: list[Path] = []
    if overlays and family is None:  # named by hand: nothing to look up
        spec = spec or DEFAULT_SPEC
    else:
        try:
            spec, listed = _spec_and_overlays(spec, family, config_path)
        except CodegenError as exc:
            fail(exc.summary())
    paths = list(overlays) or listed
    if not paths:
        if fmt == "json":
            click.echo(json.dumps({"actions": []}))
        else:
            where = (
                f"the family of {spec} in {config_path} lists none"
                if config_path.is_file()
                else f"{DEFAULT_OVERLAYS / OVERLAY_GLOB} matches no file"
            )
            click.echo(f"no overlays: {where}")
        return
    try:
        result = _run(spec, paths)
        report = _coverage(spec, paths, changelog, since) if changelog else None
    except CodegenError as exc:
        fail(exc.summary())
    retire = retirable_files(result.outcomes)
    if fmt == "json":
        out: dict[str, Any] = {"actions": [o.to_json() for o in result.outcomes]}
        if retire:
            out["retirable"] = retire
        if report is not None:
            out["changelog"] = report.to_json()
        click.echo(json.dumps(out, indent=2))
    else:
        for o in result.outcomes:
            fields = (_LABELS[o.status], f"{o.overlay_file}#{o.index}", o.target, o.description)
            click.echo("  ".join(one_line(f) for f in fields).rstrip())
        for file in retire:
            click.echo(f"{file}: every action is redundant on {spec}; the overlay can be deleted")
        click.echo(_summary(result, len(paths)))
        if report is not None:
            for line in report.lines():
                click.echo(line)
    if any(o.status == "unmatched" for o in result.outcomes):
        sys.exit(1)


def _run(spec: Path, overlay_paths: Sequence[Path]) -> OverlayResult:
    document = load_document(spec)
    loaded: list[Overlay] = [load_overlay(p) for p in overlay_paths]
    return apply_overlays(document, loaded, document_file=str(spec), strict=True)


def _coverage(spec: Path, paths: Sequence[Path], changelog: Path, since: str | None) -> Coverage:
    try:
        text = changelog.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CodegenError(
            Diagnostic("changelog-unreadable", "error", str(changelog), "", one_line(exc, 200))
        ) from None
    return coverage(text, load_document(spec), read_overlays(paths, load_overlay), since=since)


def _spec_and_overlays(
    spec: Path | None, family: str | None, config_path: Path
) -> tuple[Path, list[Path]]:
    """The document to check and its family's overlays, from the project configuration: the
    family named, else the one whose document is ``spec``. Without a configuration, the
    default document and every overlay of the default folder."""
    if not config_path.is_file():
        if family is not None:
            fail(f"{config_path}: no project configuration, so no family {family!r}")
        return spec or DEFAULT_SPEC, _overlay_folder()
    from generator.document.config import load_config

    config = load_config(config_path)
    if family is not None:
        chosen = config.family(family)
    else:
        target = (spec or DEFAULT_SPEC).resolve()
        found = [f for f in config.families if config.path(f.document).resolve() == target]
        if not found:
            if spec is None:  # the default document is no family's: the folder, as before
                return DEFAULT_SPEC, _overlay_folder()
            fail(
                f"{spec}: no family in {config_path} has this document, so its overlays are "
                "not known; pass --family NAME or the overlays to check"
            )
        chosen = found[0]
    document = spec or config.path(chosen.document)
    return document, [config.path(o) for o in chosen.overlays]


def _overlay_folder() -> list[Path]:
    return sorted(DEFAULT_OVERLAYS.glob(OVERLAY_GLOB), key=lambda p: p.name)


def _summary(result: OverlayResult, overlay_count: int) -> str:
    counts = Counter(_LABELS[o.status] for o in result.outcomes)
    parts = ", ".join(f"{counts[label]} {label}" for label in _LABELS.values())
    return f"{len(result.outcomes)} action(s) in {overlay_count} overlay(s): {parts}"


def _print_diagnostics(diagnostics: Sequence[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        _stderr(str(diagnostic))


def _stderr(line: Any) -> None:
    click.echo(one_line(line, 1000), err=True)
