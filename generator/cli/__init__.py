"""The ``cube-codegen`` command line: the entry point, and what every command does first.

``cube-codegen generate`` with nothing changed (what ``make generate`` runs) is answered here,
before the command line library or any command module loads: the no-op check needs the
standard library and :mod:`generator.emit.cache` alone, so most of a no-op run is the
interpreter's own start-up. Everything else goes to the commands (:mod:`generator.cli.commands`).

Exit codes: 0 success, 1 a check found differences (or an overlay action matched nothing),
2 invalid input (one line on stderr: file, JSON pointer, what is wrong; never a traceback),
130 interrupted by Ctrl-C (SIGINT), 143 stopped by SIGTERM; an interrupted run leaves its output
as it was and no process behind.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from pathlib import Path

from generator import DEFAULT_CONFIG, DEFAULT_OUT, SCRATCH, TXN, TXN_LOCK, runstate
from generator.emit.cache import message, up_to_date

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see generator.emit.cache)
if TYPE_CHECKING:
    from typing import Any

# The no-op command lines: exactly what ``make generate`` runs (and the same, quiet).
NO_OP_ARGS = (["generate"], ["generate", "--quiet"])


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that cleanup (the staging folder) runs."""


terminated: list[int] = []


def on_sigterm(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    terminated.append(signum)  # in case the exception lands where Python ignores exceptions
    raise Terminated


def run() -> None:
    """The ``cube-codegen`` command. A no-op ``generate`` ends here; any other command line
    runs :func:`generator.cli.commands.run`."""
    if sys.argv[1:] in NO_OP_ARGS and _on_sigterm_raise():
        gc.disable()  # as for every command (see generator.cli.commands.run)
        try:
            if _answered(quiet=len(sys.argv) > 2):
                leave(0)
        except KeyboardInterrupt:
            print("cube-codegen: interrupted (Ctrl-C)", file=sys.stderr)
            leave(130)
        except Terminated:
            print("cube-codegen: terminated (SIGTERM)", file=sys.stderr)
            leave(143)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    gc.disable()  # from here on too: the command modules load without the collector
    _pydantic_without_plugins()
    from generator.cli.commands import run as run_command

    run_command()


def _pydantic_without_plugins() -> None:
    """The command's own pydantic models (its configuration, the document extensions, the
    OpenAPI object model) are built without third-party pydantic plugins. Looking for plugins
    means importing ``importlib.metadata`` (and the ``email`` package with it) and reading the
    entry points of every installed distribution when the first model is built: about 20 ms of
    every command, to find none that has any business watching the generator's own validation.
    A process that imported pydantic's plugin loader already keeps it (``setdefault``)."""
    import types

    loader = types.ModuleType(PYDANTIC_PLUGIN_LOADER, "no pydantic plugins: cube-codegen's CLI")
    loader.get_plugins = tuple  # type: ignore[attr-defined]  # get_plugins() -> ()
    sys.modules.setdefault(PYDANTIC_PLUGIN_LOADER, loader)


PYDANTIC_PLUGIN_LOADER = "pydantic.plugin._loader"  # imported by pydantic when a model is built


def _on_sigterm_raise() -> bool:
    """Whether SIGTERM now raises :class:`Terminated` (only the main thread takes signals)."""
    try:
        signal.signal(signal.SIGTERM, on_sigterm)
    except ValueError:  # not the main thread
        return False
    return True


def _answered(*, quiet: bool) -> bool:
    """Whether ``generate`` with the default configuration and output has nothing to do (then
    it says so). Leftovers of an interrupted run are finished first, as before any command; a
    run state that is refused, or anything the check cannot read, goes to the full command,
    which reports it."""
    try:
        lines = finish_interrupted_runs(Path.cwd())
    except runstate.RunStateRefused:
        return False
    for line in lines:
        print(f"cube-codegen: {line}", file=sys.stderr)
    try:
        fresh = up_to_date(DEFAULT_CONFIG, DEFAULT_OUT)
    except OSError:
        return False
    if fresh and not quiet:
        print(message(DEFAULT_OUT))
    return fresh


def leave(code: object) -> None:
    """Exit with ``code`` (a ``SystemExit`` code) without tearing down the interpreter. Every
    file a command writes is complete and synced before it returns, and no thread or child
    outlives it; freeing each of a run's objects one by one on the way out would only cost
    time (about 60 ms after a generation)."""
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing left to say
            code = code or 1
    os._exit(code or 0)


def finish_interrupted_runs(project: Path) -> list[str]:
    """Before any command: finish or undo what a run killed in ``project`` left (a committed
    update is finished, staging and scratch folders and temporary files are removed). Costs a
    few folder listings when nothing was left, so the no-op run stays fast."""
    done = [
        f"removed {path} left by an interrupted run"
        for folder in (project, project / DEFAULT_CONFIG.parent)
        if _may_hold_temp_files(folder)
        for path in _sweep(folder)
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


def _may_hold_temp_files(folder: Path) -> bool:
    """Whether ``folder`` holds a name a temporary file of ours could have (a quick look that
    spares a no-op run the import of the file writer)."""
    try:
        return any(n[:1] == "." and n.endswith(".tmp") for n in os.listdir(folder))
    except OSError:
        return False


def _sweep(folder: Path) -> list[Path]:
    from generator.files import sweep_temp_files

    return sweep_temp_files(folder)


def __getattr__(name: str) -> Any:
    """The click commands (``main``, ``generate``, ``check``...), loaded when first asked for."""
    if name.startswith("__") or name == "commands":  # ``commands`` is set once it is imported
        raise AttributeError(name)
    from generator.cli import commands

    return getattr(commands, name)
