"""The ``cube-codegen`` command line: parses options, calls the library, writes, reports.

Exit codes: 0 success, 1 a check found differences (or an overlay action matched nothing),
2 invalid input (one line on stderr: file, JSON pointer, what is wrong; never a traceback),
130 interrupted by Ctrl-C (SIGINT), 143 stopped by SIGTERM; an interrupted run leaves its output
as it was and no process behind.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from generator import DEFAULT_CONFIG, DEFAULT_OUT, SCRATCH, TXN, TXN_LOCK, __version__, runstate
from generator.diagnostics import CodegenError
from generator.emit.cache import Stamp, message, up_to_date

if TYPE_CHECKING:
    from generator.document.config import Config

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
        except runstate.RunStateRefused as exc:
            click.echo(f"cube-codegen: {exc}", err=True)
            sys.exit(2)
        except OSError as exc:  # an unreadable input or unwritable output: still one line, exit 2
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(f"cube-codegen: {where}{exc.strerror or exc} [os-error]", err=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that cleanup (the staging folder) runs."""


_terminated: list[int] = []


def _on_sigterm(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    _terminated.append(signum)  # in case the exception lands where Python ignores exceptions
    raise Terminated


class LazyGroup(click.Group):
    """Imports a subcommand's module only when that subcommand runs (start-up stays small)."""

    def invoke(self, ctx: click.Context) -> Any:
        """Every subcommand: Ctrl-C exits 130 and SIGTERM 143, after cleanup, with one line."""
        if threading.current_thread() is threading.main_thread():  # signals go to it alone
            signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            result = super().invoke(ctx)
            if _terminated:  # the run finished anyway: still report the signal
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
    """The ``cube-codegen`` command: :func:`main`, then an exit that skips tearing down the
    interpreter. Every file a command writes is complete and synced before it returns, and no
    thread or child outlives it; freeing each of a run's objects one by one on the way out
    would only cost time (about 60 ms after a generation).

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
    if code is not None and not isinstance(code, int):
        click.echo(code, err=True)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing left to say
            code = code or 1
    os._exit(code or 0)


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


def finish_interrupted_runs(project: Path) -> list[str]:
    """Before any command: finish or undo what a run killed in ``project`` left (a committed
    update is finished, staging and scratch folders and temporary files are removed). Costs a
    few folder listings when nothing was left, so the no-op run stays fast."""
    from generator.files import sweep_temp_files

    done = [
        f"removed {path} left by an interrupted run"
        for folder in (project, project / DEFAULT_CONFIG.parent)
        for path in sweep_temp_files(folder)
    ]
    top, _ = runstate.locate(project)
    if not runstate.check_existing(top):
        return done
    busy = [
        name
        for folder in (top / TXN, top / SCRATCH)
        if folder.is_dir()
        for name in os.listdir(folder)
        if name != TXN_LOCK
    ]
    if busy:
        from generator.transaction import recover

        done += recover()
    return done


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


def ref_root_option(func: F) -> F:
    return click.option(
        "--ref-root",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        default=None,
        help="Folder a document's $refs may read files from (default: the document's own "
        "folder). Widen it only for documents you trust.",
    )(func)


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
    help="Output folder (default: generated/; with --spec, the distribution folder).",
)
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
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=DEFAULT_CONFIG,
    show_default=True,
)
@click.option("--out", type=click.Path(path_type=Path), default=None)
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
