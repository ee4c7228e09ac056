"""The ``cube-codegen`` commands (click): options in, library calls, one-line errors out.

Exit codes: 0 success, 1 a check found differences (or an overlay action matched nothing),
2 invalid input (one line on stderr: file, JSON pointer, what is wrong; never a traceback),
130 interrupted by Ctrl-C (SIGINT), 143 stopped by SIGTERM; an interrupted run leaves its output
as it was and no process behind.
"""

from __future__ import annotations

import gc
import json
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from generator import DEFAULT_OUT, __version__, runstate
from generator.cli import Terminated, finish_interrupted_runs, leave, on_sigterm, terminated
from generator.cli.errors import reports_errors
from generator.cli.options import config_option, out_option, project_options, ref_root_option
from generator.emit.cache import Stamp, message, up_to_date

if TYPE_CHECKING:
    from generator.document.config import Config


class LazyGroup(click.Group):
    """Imports a subcommand's module only when that subcommand runs (start-up stays small)."""

    def invoke(self, ctx: click.Context) -> Any:
        """Every subcommand: Ctrl-C exits 130 and SIGTERM 143, after cleanup, with one line."""
        if threading.current_thread() is threading.main_thread():  # signals go to it alone
            signal.signal(signal.SIGTERM, on_sigterm)
        try:
            result = super().invoke(ctx)
            if terminated:  # the run finished anyway: still report the signal
                raise Terminated
            return result
        except KeyboardInterrupt:
            click.echo("cube-codegen: interrupted (Ctrl-C)", err=True)
            sys.exit(130)
        except Terminated:
            click.echo("cube-codegen: terminated (SIGTERM)", err=True)
            sys.exit(143)

    lazy = {  # noqa: RUF012 - a fixed table, read only
        "overlay": ("generator.cli.overlay", "overlay"),
        "drift": ("generator.cli.drift", "drift"),
        "fetch": ("generator.cli.fetch", "fetch"),
        "update": ("generator.cli.update", "update_command"),
        "learn": ("generator.cli.learn", "learn_command"),
        "keep": ("generator.cli.custom_code", "keep_command"),
        "release-check": ("generator.cli.release", "release_check"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            import importlib

            module, attr = self.lazy[cmd_name]
            command: click.Command = getattr(importlib.import_module(module), attr)
            return command
        return super().get_command(ctx, cmd_name)


def run() -> None:
    """The ``cube-codegen`` command: :func:`main`, then :func:`generator.cli.leave`.

    The cycle collector is off for the process: a command is one short batch whose objects
    live until it ends, so the collector would walk them hundreds of times (a tenth of a
    generation run) to free almost nothing; reference counting still frees the rest, and peak
    memory is unchanged. (Here, not in the commands: a test invoking them in-process keeps
    its collector.)"""
    gc.disable()
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    leave(code)


@click.group(cls=LazyGroup)
@click.version_option(__version__, prog_name="cube-codegen")
def main() -> None:
    """Generate typed Python clients from OpenAPI documents and overlays."""
    try:
        lines = finish_interrupted_runs(Path.cwd())
    except runstate.RunStateRefused as exc:  # another user's (or a shared) run state
        click.echo(f"cube-codegen: {exc}", err=True)
        sys.exit(2)
    for line in lines:
        click.echo(f"cube-codegen: {line}", err=True)


def _inputs(config: Config, config_path: Path | None) -> list[Path]:
    """Every file and folder a generation reads: configuration, documents, overlays, changelog,
    license and the hand-written folders."""
    from generator.emit.cache import named_inputs
    from generator.emit.custom_code import CUSTOM_DIR, PATCHES_DIR

    found = [Path(p) for p in named_inputs(config)]
    found += [config.base_dir / CUSTOM_DIR, config.base_dir / PATCHES_DIR]
    if config.package.license_file:
        found.append(config.base_dir / config.package.license_file)
    return [*found, *([config_path] if config_path else [])]


def _config(config_path: Path, out: Path | None, ref_root: Path | None = None) -> Config:
    from generator.document.config import load_config  # pydantic: not needed by a no-op run

    return load_config(config_path, out_dir=out, ref_root=ref_root)


@main.command()
@config_option("Project configuration naming each API family.")
@out_option("Output folder (default: generated/; with --spec, the distribution folder).")
@click.option(
    "--spec",
    "spec_file",
    type=click.Path(path_type=Path),
    default=None,
    help="Generate from this one document instead of the project configuration.",
)
@click.option(
    "--overlay",
    "overlays",
    type=click.Path(path_type=Path),
    multiple=True,
    help="With --spec: overlay files applied in order.",
)
@click.option("--package", "package_name", default=None, help="With --spec: the import name.")
@click.option(
    "--report",
    type=click.Path(path_type=Path),
    default=None,
    help="Write a JSON report: operations, skipped operations, diagnostics.",
)
@click.option("--quiet", is_flag=True, help="Print nothing on success.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace the output folder even when it holds files cube-codegen did not write.",
)
@ref_root_option
@reports_errors
def generate(
    config_path: Path,
    out: Path | None,
    spec_file: Path | None,
    overlays: tuple[Path, ...],
    package_name: str | None,
    report: Path | None,
    quiet: bool,
    force: bool,
    ref_root: Path | None,
) -> None:
    """Generate the package from spec/ (documents + overlays) into generated/.

    With --spec, generate a package from any one OpenAPI 3.0/3.1/3.2 document into --out.
    """
    plain = spec_file is None and not overlays and not package_name and report is None
    # unchanged inputs: answered from the manifest, before the configuration or pipeline loads
    if plain and _up_to_date(config_path, out or DEFAULT_OUT):
        if not quiet:
            click.echo(message(out or DEFAULT_OUT))
        return
    from generator.emit.writer import check_inputs_outside, check_output_dir, write_tree
    from generator.files import write_atomic
    from generator.pipeline import generate as run
    from generator.pipeline import report_json, single_document_config, strip_root

    if spec_file is not None:
        if out is None or not package_name:
            raise click.UsageError("--spec needs --out and --package")
        config = single_document_config(spec_file, overlays, package_name, out, ref_root)
    elif overlays or package_name:
        raise click.UsageError("--overlay and --package go with --spec")
    else:
        config = _config(config_path, out, ref_root)
        stamp = Stamp(config_path, config)
        if report is None and ref_root is None and stamp.fresh():
            if not quiet:
                click.echo(message(config.out_dir))
            return
    check_output_dir(config.out_dir)  # before the work: a refused folder costs nothing
    check_inputs_outside(config.out_dir, _inputs(config, None if spec_file else config_path))
    result = run(config)
    files = strip_root(result.files, config.package.name) if spec_file else result.files
    write_tree(config.out_dir, files, force=force)
    if spec_file is None and ref_root is None:  # the no-op cache knows only sandboxed runs
        stamp.save(files)
    if report is not None:
        write_atomic(report, json.dumps(report_json(result), indent=2) + "\n")
    for d in result.diagnostics:
        if d.level != "info":
            click.echo(str(d), err=True)
    if not quiet:
        ops = sum(len(f.operations) for f in result.package.families)
        click.echo(
            f"generated {len(files)} files, {ops} operations in "
            f"{len(result.package.families)} families into {config.out_dir}"
        )


def _up_to_date(config_path: Path, out: Path) -> bool:
    try:
        return up_to_date(config_path, out)
    except OSError:  # an unreadable manifest or input: the full run reports what is wrong
        return False


@main.command()
@project_options
@ref_root_option
@reports_errors
def check(config_path: Path, out: Path | None, ref_root: Path | None) -> None:
    """Regenerate in memory and compare with generated/: exit 1 listing differing files."""
    from generator.emit.writer import diff_tree
    from generator.pipeline import generate as run

    config = _config(config_path, out, ref_root)
    result = run(config)
    lines = diff_tree(config.out_dir, result.files)
    if lines:
        click.echo(f"{config.out_dir} is out of date ({len(lines)} files); run `make generate`:")
        for line in lines[:50]:
            click.echo(f"  {line}")
        sys.exit(1)
    click.echo(f"{config.out_dir} is up to date ({len(result.files)} files)")
