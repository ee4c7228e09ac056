"""``cube-codegen keep PATH...``: record hand edits of generated files as kept patches, merged into
every later generation (see :mod:`generator.emit.custom_code`). Exit 0 recorded; 2 invalid input."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.errors import reports_errors
from generator.cli.options import project_options
from generator.diagnostics import CodegenError, Diagnostic
from generator.document.config import load_config


@click.command("keep")
@click.argument("paths", nargs=-1, required=True)
@project_options
@reports_errors
def keep_command(paths: tuple[str, ...], config_path: Path, out: Path | None) -> None:
    """Keep the edits made to these generated files (paths relative to --out, or under it)."""
    from generator.emit.custom_code import keep
    from generator.pipeline import generate

    config = load_config(config_path, out_dir=out)
    pristine = generate(config, custom=False).files
    out_dir = Path(config.out_dir)
    edits: dict[str, str] = {}
    for given in paths:
        path = Path(given)
        if path.is_absolute() or path.parts[: len(out_dir.parts)] == out_dir.parts:
            try:
                path = path.resolve().relative_to(out_dir.resolve())
            except ValueError:
                pass
        rel = path.as_posix()
        file = out_dir / rel
        if not file.is_file():
            raise CodegenError(
                Diagnostic("patch-not-generated", "error", str(file), "", "no such file")
            )
        edits[rel] = file.read_text(encoding="utf-8")
    for rel, (kept, base) in zip(sorted(edits), keep(config, edits, pristine), strict=True):
        click.echo(f"kept {rel}: {kept} (base {base.name})")
