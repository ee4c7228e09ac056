"""The ``cube-codegen`` command line: parses options, calls the library, writes, reports.

Exit codes: 0 success, 1 a check found differences (or an overlay action matched nothing),
2 invalid input (one line on stderr: file, JSON pointer, what is wrong; never a traceback).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from generator import __version__
from generator.config import DEFAULT_CONFIG, Config, load_config
from generator.diagnostics import CodegenError
from generator.drift.cli import drift
from generator.fetch_cli import fetch
from generator.overlay.cli import overlay

F = TypeVar("F", bound=Callable[..., Any])


def reports_errors(func: F) -> F:
    """Turn :class:`CodegenError` into one stderr line and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CodegenError as exc:
            click.echo(f"cube-codegen: {exc.summary()}", err=True)
            sys.exit(2)
        except RecursionError:
            click.echo("cube-codegen: input nests too deeply to process", err=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


@click.group()
@click.version_option(__version__, prog_name="cube-codegen")
def main() -> None:
    """Generate typed Python clients from OpenAPI documents and overlays."""


def _config(config_path: Path, out: Path | None) -> Config:
    return load_config(config_path, out_dir=out)


@main.command()
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=DEFAULT_CONFIG,
    show_default=True,
    help="Project configuration naming each API family.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder (default: generated/).",
)
@click.option("--quiet", is_flag=True, help="Print nothing on success.")
@reports_errors
def generate(config_path: Path, out: Path | None, quiet: bool) -> None:
    """Generate the package from spec/ (documents + overlays) into generated/."""
    from generator.pipeline import generate as run
    from generator.writer import write_tree

    config = _config(config_path, out)
    result = run(config)
    write_tree(config.out_dir, result.files)
    for d in result.diagnostics:
        if d.level != "info":
            click.echo(str(d), err=True)
    if not quiet:
        ops = sum(len(f.operations) for f in result.package.families)
        click.echo(
            f"generated {len(result.files)} files, {ops} operations in "
            f"{len(result.package.families)} families into {config.out_dir}"
        )


@main.command()
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=DEFAULT_CONFIG,
    show_default=True,
)
@click.option("--out", type=click.Path(path_type=Path), default=None)
@reports_errors
def check(config_path: Path, out: Path | None) -> None:
    """Regenerate in memory and compare with generated/: exit 1 listing differing files."""
    from generator.pipeline import generate as run
    from generator.writer import diff_tree

    config = _config(config_path, out)
    result = run(config)
    lines = diff_tree(config.out_dir, result.files)
    if lines:
        click.echo(f"{config.out_dir} is out of date ({len(lines)} files); run `make generate`:")
        for line in lines[:50]:
            click.echo(f"  {line}")
        sys.exit(1)
    click.echo(f"{config.out_dir} is up to date ({len(result.files)} files)")


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True)


main.add_command(overlay)
main.add_command(drift)
main.add_command(fetch)
