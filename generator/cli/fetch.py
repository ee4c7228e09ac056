"""``cube-codegen fetch``: download an API family's OpenAPI document into a stable snapshot.

The running service serves the platform document at ``{base-url}/api/v1/spec`` (token required);
``--url`` takes any document's own URL instead (published documents need no token). With a
project configuration (``spec/cube-codegen.yaml``) ``--family`` picks the snapshot file and the
overlays to check, and the configuration says whether only the structure is kept.

Before the snapshot is replaced, what changed against the previous one is reported (the drift
rules' summary, breaking changes listed), then the family's overlays are checked on the new one.

Exit codes: 0 fetched (written, or already identical); 1 fetched, but actions of the family's
overlays match nothing in it: they are listed and the snapshot is not written (unless
``--accept-unmatched``), so the snapshot and the overlays never disagree; 2 anything failed, with
one line on stderr and the previous snapshot untouched. The token is never printed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from generator.cli.errors import fail
from generator.cli.options import config_option, connection_options, family_option
from generator.diagnostics import CodegenError, one_line
from generator.document.config import Config, load_config
from generator.document.fetch import (
    BASE_URL_ENV,
    DEFAULT_OUT,
    SPEC_PATH,
    TOKEN_ENV,
    fetch_to_file,
)
from generator.drift.overlay_health import DEFAULT_OVERLAY_DIR, OverlayHealth, check_overlays

_MAX_LISTED = 20
"""Breaking changes listed one per line before the rest are counted."""


def _project(config_path: Path) -> Config | None:
    """The project configuration when there is one; fetch also works outside a project."""
    return load_config(config_path) if config_path.is_file() else None


def _report_drift(previous: Any, document: Any, out: Path) -> None:
    """One summary line of what changed since the previous snapshot, breaking changes listed."""
    from generator.drift.engine import compare
    from generator.drift.report import summary

    report = compare(previous, document, old_file=str(out), new_file="fetched")
    click.echo(f"changes since the previous snapshot: {summary(report)}")
    breaking = [c for c in report.changes if c.level == "breaking"]
    for change in breaking[:_MAX_LISTED]:
        where = f"{change.operation}: " if change.operation else ""
        click.echo(f"  breaking: {where}{one_line(change.message, 200)} [{change.id}]")
    if len(breaking) > _MAX_LISTED:
        click.echo(f"  ... and {len(breaking) - _MAX_LISTED} more breaking changes")


def _report_health(health: OverlayHealth) -> None:
    if not health.checked:
        click.echo(f"overlays: not checked ({one_line(health.note)})")
    elif not health.findings:
        click.echo(f"overlays: all {len(health.overlays)} apply cleanly")
    else:
        for finding in health.findings:
            click.echo(f"overlay {finding}")
        for line in health.retire_lines():
            click.echo(f"overlay {line}")


def _bound_token(token: str, document_url: str) -> str:
    """The token to send: the environment's token is the tenant's, bound to its base URL, so a
    ``--url`` host (another family's document, a third-party host) gets a token only when
    ``--token`` names one on the command line."""
    source = click.get_current_context().get_parameter_source("token")
    if document_url and token and source is not click.core.ParameterSource.COMMANDLINE:
        click.echo(
            f"note: the token from ${TOKEN_ENV} is sent only to the tenant's base URL, not to "
            "a --url host; pass --token to send one there",
            err=True,
        )
        return ""
    return token


@click.command("fetch")
@click.option(
    "--base-url", envvar=BASE_URL_ENV, default="", help="e.g. https://tenant.cubecloud.dev"
)
@click.option(
    "--url",
    "document_url",
    default="",
    help="A document's own URL, instead of {base-url}/api/v1/spec; the token is optional.",
)
@config_option("Project configuration: the family's snapshot file, overlays and snapshot rules.")
@family_option("Which API family of the configuration the document is (default: the first).")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Snapshot file, written atomically [the family's document, or {DEFAULT_OUT}].",
)
@connection_options
@click.option(
    "--structure-only/--keep-prose",
    default=None,
    help="Drop descriptions, summaries, examples and x- annotations [configuration's "
    "snapshot.structure_only, else keep].",
)
@click.option(
    "--overlays",
    "overlay_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=f"Folder of *.overlay.yaml to check [the family's overlays, or {DEFAULT_OVERLAY_DIR}].",
)
@click.option(
    "--accept-unmatched",
    is_flag=True,
    help="Write the snapshot even when overlay actions no longer match it (they then need "
    "fixing before `make generate` succeeds).",
)
def fetch(
    *,
    base_url: str,
    document_url: str,
    config_path: Path,
    family: str | None,
    out: Path | None,
    token: str,
    timeout: float,
    ca_bundle: Path | None,
    structure_only: bool | None,
    overlay_dir: Path | None,
    accept_unmatched: bool,
) -> None:
    """Fetch an OpenAPI document and write a normalised YAML snapshot, after reporting what changed
    since the previous snapshot; then report which of the family's overlays no longer match."""
    if bool(base_url) == bool(document_url):
        fail("give exactly one of --base-url (or $CUBE_BASE_URL) and --url", token=token)
    token = _bound_token(token, document_url)
    target, overlays, structure_only = _plan(
        config_path, family, out, overlay_dir, structure_only, token
    )
    previous: Any = _previous_snapshot(target)
    checked: list[OverlayHealth] = []

    def before_write(doc: dict[str, Any]) -> bool:
        """Report what changed, check the overlays; False holds the snapshot back."""
        if previous is not None:
            _report_drift(previous, doc, target)
        if not (isinstance(overlays, list) and not overlays):
            checked.append(check_overlays(doc, overlays, document_file=str(target)))
        return accept_unmatched or not (checked and unmatched(checked[0]))

    try:
        result, _ = fetch_to_file(
            document_url or base_url,
            token,
            target,
            timeout=timeout,
            ca_bundle=ca_bundle,
            path="" if document_url else SPEC_PATH,
            token_required=not document_url,
            keep_prose=not structure_only,
            before_write=before_write,
        )
    except CodegenError as exc:
        fail(exc.summary(), token=token)
    except RecursionError:
        fail("the fetched document nests too deeply", token=token)
    state = "not written" if result.held else "wrote" if result.written else "unchanged"
    retries = f", {result.attempts} attempts" if result.attempts > 1 else ""
    kept = ", structure only" if structure_only else ""
    click.echo(
        f"{state} {result.path}: {result.operations} operations{kept}, "
        f"sha256 {result.sha256[:12]}{retries}"
    )
    _report_overlays(checked, target, accept_unmatched)


def _plan(
    config_path: Path,
    family: str | None,
    out: Path | None,
    overlay_dir: Path | None,
    structure_only: bool | None,
    token: str,
) -> tuple[Path, Path | list[Path], bool]:
    """Where the snapshot goes, which overlays to check, and whether prose is dropped: the
    options first, then the project's configuration of the family."""
    try:
        config = _project(config_path)
        chosen = (config.family(family) if family else config.families[0]) if config else None
    except CodegenError as exc:
        fail(exc.summary(), token=token)
    if config is None and family:
        fail(f"{config_path}: no project configuration, so no family {family!r}", token=token)
    target = out or (config.path(chosen.document) if config and chosen else DEFAULT_OUT)
    if structure_only is None:
        structure_only = config.snapshot.structure_only if config else False
    overlays: Path | list[Path] = overlay_dir or DEFAULT_OVERLAY_DIR
    if overlay_dir is None and config and chosen:
        overlays = [config.path(o) for o in chosen.overlays]
    return target, overlays, structure_only


def _report_overlays(checked: list[OverlayHealth], target: Path, accept_unmatched: bool) -> None:
    if not checked:
        click.echo("overlays: none configured for this family")
        return
    _report_health(checked[0])
    missing = unmatched(checked[0])
    if missing and not accept_unmatched:
        click.echo(
            f"cube-codegen: {missing} overlay actions match nothing in the fetched document; "
            f"{target} was not written. Fix the overlays, or write it anyway with "
            "--accept-unmatched [fetch-overlays-unmatched]",
            err=True,
        )
        sys.exit(1)
    if missing:
        click.echo(f"overlays: {missing} actions match nothing; written (--accept-unmatched)")


def unmatched(health: OverlayHealth) -> int:
    """How many overlay actions target nothing in the document (a run would fail on them)."""
    return sum(1 for f in health.findings if f.status == "unmatched")


def _previous_snapshot(path: Path) -> Any:
    """The snapshot being replaced, or None when there is none (or it no longer parses)."""
    if not path.is_file():
        return None
    from generator.document.loader import load_document

    try:
        return load_document(path)
    except CodegenError:
        return None
