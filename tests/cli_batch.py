"""Run many ``cube-codegen`` command lines in one fresh interpreter, one after the other.

A test that sweeps dozens of documents through the command line pays the interpreter's and the
generator's start-up (about half a CPU second) once here instead of once per document, and
still gets what a separate process would give it: each command's exit code and everything it
wrote to stderr. A command that raises past the command line (a crash) answers exit 1 with the
traceback on its stderr, as the interpreter would print it.

The commands do their helper child's work themselves (``CUBE_CODEGEN_NO_FORK``, as where no
child can be forked: the value is the same either way, tests/cli/test_work_beside.py): a child
forked from an interpreter that already ran commands copies its grown heap and fills again what
the interpreter keeps between runs, only to drop it (the corpus's 60 documents: about 18 CPU s
with children, 9 without).

``python -m tests.cli_batch`` reads a JSON list of argument lists on stdin and writes a JSON
list of ``[exit code, stderr]`` pairs on stdout; :func:`run_cli_batch` is the caller's side.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _one(args: list[str]) -> tuple[int, str]:
    import click

    from generator.cli import main

    err = io.StringIO()
    code: object = 0
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main.main(args, prog_name="cube-codegen")
        except SystemExit as exc:
            code = exc.code
        except BaseException:  # a crash: what the interpreter would print, and exit 1
            traceback.print_exc()
            code = 1
        if code is not None and not isinstance(code, int):  # as generator.cli.run does
            click.echo(code, err=True)
            code = 1
    return int(code or 0), err.getvalue()


def run_cli_batch(
    commands: list[list[str]], *, cwd: Path = ROOT, timeout: float = 600
) -> list[tuple[int, str]]:
    """Each of ``commands`` (``cube-codegen``'s arguments) run in one fresh interpreter: their
    exit codes and stderr, in order."""
    proc = subprocess.run(
        [sys.executable, "-m", "tests.cli_batch"],
        input=json.dumps(commands),
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "CUBE_CODEGEN_NO_FORK": "1"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return [(code, err) for code, err in json.loads(proc.stdout)]


if __name__ == "__main__":
    results = [_one(args) for args in json.loads(sys.stdin.read())]
    sys.stdout.write(json.dumps(results))
