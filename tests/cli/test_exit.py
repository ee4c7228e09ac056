"""The command exits without tearing the interpreter down (generator.cli.run), and loses
nothing by it: every byte of output arrives and the exit code is the command's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from generator.cli import main
from tests.helpers import ROOT, run_cli


def _command(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter (not the tests' fork server): the exit as users' processes make it."""
    return run_cli(*args, cwd=cwd, env={"PYTHONPATH": str(ROOT)}, fresh=True)


def test_a_long_report_arrives_whole_through_a_pipe() -> None:
    """A drift report of two families' documents: tens of kilobytes on stdout, byte for byte
    what the same command prints in-process."""
    args = ["drift", "spec/platform-api.yaml", "spec/data-api.yaml", "--format", "json"]
    args += ["--no-overlays", "--fail-on", "info"]
    proc = _command(*args)
    in_process = CliRunner().invoke(main, args, catch_exceptions=False)
    assert len(proc.stdout) > 10_000
    assert proc.stdout == in_process.stdout
    assert json.loads(proc.stdout)  # complete: it parses
    assert proc.returncode == in_process.exit_code == 1  # changes found at the --fail-on level


def test_exit_codes_and_one_line_errors_are_kept(tmp_path: Path) -> None:
    ok = _command("--version")
    assert ok.returncode == 0 and "cube-codegen" in ok.stdout
    bad = _command(
        "generate", "--spec", "missing.yaml", "--package", "p", "--out", "o", cwd=tmp_path
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "missing.yaml" in bad.stderr
    usage = _command("no-such-command")
    assert usage.returncode == 2 and "No such command" in usage.stderr
