"""``cube-codegen learn DIR...``: what the service sent that the document does not say.

Exit codes: 0 nothing to learn (or, with ``--write``, learned and regenerated); 1 something to
learn (without ``--write``, for CI); 2 invalid records or project (one line on stderr).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from generator.cli import reports_errors
from generator.cli.options import project_options


@click.command("learn")
@project_options
@click.argument("records", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--family", default=None, help="Only this API family [every family].")
@click.option(
    "--write",
    is_flag=True,
    help="Write what remains as actions in spec/overlays/<family>/learned.overlay.yaml, list "
    "that file in the configuration and regenerate, as one transaction.",
)
@reports_errors
def learn_command(
    *,
    config_path: Path,
    out: Path | None,
    records: tuple[Path, ...],
    family: str | None,
    write: bool,
) -> None:
    """Read shape records (files or folders of *.jsonl) and list what the document lacks."""
    from generator.observed.check import report_text
    from generator.release.learn import learn

    result = learn(config_path, [str(r) for r in records], family=family, write=write, out_dir=out)
    text = report_text(result.findings)
    click.echo(text, nl=False)
    left = result.to_learn
    if write:  # what is left needs a person; the run itself succeeded
        for name, path in result.written.items():
            click.echo(f"learn: {name}: wrote {path}; regenerated", err=True)
        click.echo(f"learn: {result.actions} overlay actions learned", err=True)
        sys.exit(0)
    if left:
        click.echo(f"learn: {len(left)} differences the document does not accept", err=True)
        sys.exit(1)
    click.echo(
        f"learn: nothing to learn ({len(result.findings)} differences already accepted)", err=True
    )
