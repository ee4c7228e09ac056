"""``cube-codegen fetch``: download the running API's OpenAPI document into a stable snapshot.

Exit codes: 0 fetched (written, or already identical); 1 fetched, but actions of the project's
overlays match nothing in it: the findings are listed and the snapshot is not written (unless
``--accept-unmatched``), so the snapshot and the overlays never disagree; 2 anything failed, with
one line on stderr and the previous snapshot untouched. The token is never printed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from generator.diagnostics import CodegenError, one_line
from generator.drift.overlay_health import DEFAULT_OVERLAY_DIR, OverlayHealth, check_overlays
from generator.fetch import (
    BASE_URL_ENV,
    DEFAULT_OUT,
    DEFAULT_TIMEOUT,
    TOKEN_ENV,
    fetch_to_file,
    redact,
)


def _fail(message: str, token: str | None) -> NoReturn:
    click.echo(f"cube-codegen: {redact(one_line(message), token)}", err=True)
    sys.exit(2)


@click.command("fetch")
@click.option(
    "--base-url", envvar=BASE_URL_ENV, required=True, help="e.g. https://tenant.cubecloud.dev"
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_OUT,
    show_default=True,
    help="Where the YAML snapshot goes (written atomically).",
)
@click.option("--token", envvar=TOKEN_ENV, default="", help=f"API token [env {TOKEN_ENV}].")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1, max=600),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds allowed for each attempt.",
)
@click.option(
    "--ca-bundle",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="PEM file of CA certificates to trust (default: SSL_CERT_FILE, else certifi).",
)
@click.option(
    "--overlays",
    "overlay_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_OVERLAY_DIR,
    show_default=True,
    help="Folder of *.overlay.yaml files to check against the new document.",
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
    out: Path,
    token: str,
    timeout: float,
    ca_bundle: Path | None,
    overlay_dir: Path,
    accept_unmatched: bool,
) -> None:
    """Fetch {base-url}/api/v1/spec with the bearer token, check the project overlays against it,
    and write a normalised YAML snapshot (not when overlay actions match nothing: exit 1)."""
    checked: list[OverlayHealth] = []

    def overlays_apply(document: Any) -> bool:
        checked.append(check_overlays(document, overlay_dir, document_file=str(out)))
        return accept_unmatched or not unmatched(checked[0])

    try:
        result, _ = fetch_to_file(
            base_url, token, out, timeout=timeout, ca_bundle=ca_bundle, accept=overlays_apply
        )
    except CodegenError as exc:
        _fail(exc.summary(), token)
    except RecursionError:
        _fail("the fetched document nests too deeply", token)
    state = "not written" if result.held else "wrote" if result.written else "unchanged"
    retries = f", {result.attempts} attempts" if result.attempts > 1 else ""
    click.echo(
        f"{state} {result.path}: {result.operations} operations, "
        f"sha256 {result.sha256[:12]}{retries}"
    )
    health = checked[0]
    if not health.checked:
        click.echo(f"overlays: not checked ({one_line(health.note)})")
    elif not health.findings:
        click.echo(f"overlays: all {len(health.overlays)} apply cleanly")
    else:
        for finding in health.findings:
            click.echo(f"overlay {finding}")
    missing = unmatched(health)
    if missing and not accept_unmatched:
        click.echo(
            f"cube-codegen: {missing} overlay actions match nothing in the fetched document; "
            f"{out} was not written. Fix the overlays, or write it anyway with "
            "--accept-unmatched [fetch-overlays-unmatched]",
            err=True,
        )
        sys.exit(1)
    if missing:
        click.echo(f"overlays: {missing} actions match nothing; written (--accept-unmatched)")


def unmatched(health: OverlayHealth) -> int:
    """How many overlay actions target nothing in the document (a run would fail on them)."""
    return sum(1 for f in health.findings if f.status == "unmatched")
