"""``cube-codegen update``: fetch (or read) the new document, report drift and overlay health,
regenerate, bump the version, write the changelog and a pull-request summary, in one step.

Exit codes: 0 nothing changed (nothing written); 1 changes written (``spec/``, ``generated/``,
changelog, version; the summary says what); 2 failed, with one line on stderr and ``spec/`` and
``generated/`` exactly as they were.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import click

from generator.cli.errors import fail
from generator.cli.options import (
    connection_options,
    family_option,
    observed_option,
    project_options,
)
from generator.diagnostics import CodegenError, Diagnostic
from generator.document.fetch import BASE_URL_ENV, redact
from generator.files import write_atomic
from generator.release.update import (
    Source,
    failure_markdown,
    failure_outputs,
    file_source,
    fitted_summary,
    github_outputs,
    live_source,
    summary_markdown,
    update,
)

EXIT_UNCHANGED, EXIT_CHANGED, EXIT_FAILED = 0, 1, 2


def _failed(
    diagnostics: Sequence[Diagnostic],
    label: str,
    token: str,
    summary: Path | None,
    github_output: Path | None,
) -> NoReturn:
    """A failed update still tells the workflow what happened: the summary says what failed, in
    full, and ``$GITHUB_OUTPUT`` gets ``failed=true``; then one line on stderr, exit 2."""
    if summary is not None:
        write_atomic(summary, redact(failure_markdown(label, diagnostics), token))
    if github_output is not None:
        with github_output.open("a", encoding="utf-8") as fh:
            fh.write(failure_outputs())
    more = f" (and {len(diagnostics) - 1} more)" if len(diagnostics) > 1 else ""
    fail(str(diagnostics[0]) + more, token=token)


@click.command("update")
@project_options
@family_option("The API family to update [the first in the config].")
@click.option(
    "--from",
    "from_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Take the new document from this file instead of fetching it.",
)
@click.option("--base-url", envvar=BASE_URL_ENV, default="", help=f"[env {BASE_URL_ENV}]")
@connection_options
@click.option(
    "--summary",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the Markdown summary (a pull-request body) here; otherwise print it.",
)
@observed_option(
    "Shape records (folder of *.jsonl, or a file; repeatable): say in the summary and the "
    "changelog which observed shapes the new document documents, accepts or rejects."
)
@click.option(
    "--github-output",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="GITHUB_OUTPUT",
    default=None,
    help="Append changed=, bump= and version= lines here [env GITHUB_OUTPUT].",
)
def update_command(
    *,
    config_path: Path,
    out: Path | None,
    family: str | None,
    from_file: Path | None,
    base_url: str,
    token: str,
    timeout: float,
    ca_bundle: Path | None,
    summary: Path | None,
    github_output: Path | None,
    observed: tuple[Path, ...],
) -> None:
    """Update spec/ and generated/ from the live document (or --from FILE) in one step."""
    source: Source
    if from_file is not None:
        source = file_source(from_file)
    elif base_url:
        source = live_source(base_url, token, timeout=timeout, ca_bundle=ca_bundle)
    else:
        raise click.UsageError(f"pass --from FILE, or --base-url (or set {BASE_URL_ENV})")
    label = str(from_file) if from_file is not None else base_url
    report = (summary, github_output)
    try:
        result = update(config_path, source, out_dir=out, family=family, observed=observed)
    except CodegenError as exc:
        _failed(exc.diagnostics, label, token, *report)
    except RecursionError:
        problem = Diagnostic("input-too-deep", "error", label, "", "input nests too deeply")
        _failed([problem], label, token, *report)
    except OSError as exc:
        message = f"{exc.strerror or exc}"
        problem = Diagnostic("os-error", "error", str(exc.filename or label), "", message)
        _failed([problem], label, token, *report)
    text = summary_markdown(result)
    if summary is not None:
        full = summary.with_name(summary.stem + "-full.md")
        if len(text) > len(fitted := fitted_summary(text, full.name)):
            write_atomic(full, text)
        write_atomic(summary, fitted)
    else:
        click.echo(text, nl=False)
    if github_output is not None:
        with github_output.open("a", encoding="utf-8") as fh:
            fh.write(github_outputs(result))
    if not result.changed:
        click.echo("update: no changes; nothing written", err=True)
        sys.exit(EXIT_UNCHANGED)
    bump = (
        f"version {result.old_version} -> {result.new_version} ({result.bump})"
        if result.bump
        else "version unchanged"
    )
    click.echo(
        f"update: {bump}; {len(result.generated_changes)} generated files changed; "
        f"{len(result.report.changes)} API changes",
        err=True,
    )
    sys.exit(EXIT_CHANGED)
