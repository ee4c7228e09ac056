"""The tests' fork server (tests/cli_zygote.py) answers as a fresh ``python -m generator``
would: the same exit code, stdout and stderr, the caller's folder, environment and umask, a
crash's traceback and exit 1, a kill's signal; and it steps aside (a fresh interpreter runs)
when the environment changes what an interpreter reads at start-up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from generator.files import KILL_ENV
from tests import cli_zygote_client
from tests.helpers import CLI, openapi_document, operation, run_cli


def _both(*args: str, cwd: Path, env: dict[str, str] | None = None) -> list[tuple[object, ...]]:
    runs = [run_cli(*args, cwd=cwd, env=env), run_cli(*args, cwd=cwd, env=env, fresh=True)]
    return [(r.returncode, r.stdout, r.stderr) for r in runs]


def test_exit_codes_output_and_errors_are_a_fresh_processs(tmp_path: Path) -> None:
    for args in (
        ["--version"],
        ["no-such-command"],
        ["generate", "--spec", "missing.yaml", "--package", "p", "--out", "o"],
    ):
        forked, fresh = _both(*args, cwd=tmp_path)
        assert forked == fresh, args
    usage = run_cli("no-such-command", cwd=tmp_path)
    assert usage.returncode == 2 and "Usage: python -m generator" in usage.stderr


def test_folder_environment_and_umask_are_the_callers(tmp_path: Path) -> None:
    doc = openapi_document({"/a": {"get": operation("getA", {"type": "string"})}})
    (tmp_path / "a.json").write_text(json.dumps(doc), encoding="utf-8")
    old = os.umask(0o077)
    try:
        trees = []
        for fresh in (False, True):
            out = f"out-{fresh}"
            args = ["generate", "--spec", "a.json", "--package", "p", "--out", out]
            proc = run_cli(*args, cwd=tmp_path, fresh=fresh)
            assert proc.returncode == 0, proc.stderr
            files = sorted(p for p in (tmp_path / out).rglob("*") if p.is_file())
            trees.append([(p.relative_to(tmp_path / out), p.stat().st_mode) for p in files])
    finally:
        os.umask(old)
    assert trees[0] == trees[1] and trees[0]
    assert all(mode & 0o077 == 0 for _, mode in trees[0])
    # The environment: a kill step named there stops the forked run as it stops a fresh one
    # (its staging folder left in a run state of its own, not the suite's shared one).
    args = ["generate", "--spec", "a.json", "--package", "p", "--out", "killed"]
    env = {KILL_ENV: "staged", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    killed = run_cli(*args, cwd=tmp_path, env=env)
    assert killed.returncode == -signal.SIGKILL and (tmp_path / "cache" / "cube-codegen").is_dir()


def test_a_crash_prints_its_traceback_and_exits_1(tmp_path: Path) -> None:
    """Any module may run forked: ``base64`` opening a missing file raises past its ``main``."""
    env = dict(os.environ)
    forked = cli_zygote_client.run(["base64"], ["missing"], tmp_path, env, 60, module="base64")
    fresh = subprocess.run(
        [sys.executable, "-m", "base64", "missing"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert forked is not None and forked.returncode == fresh.returncode == 1
    assert forked.stderr.startswith("Traceback") and fresh.stderr.startswith("Traceback")
    last = [r.stderr.strip().splitlines()[-1] for r in (forked, fresh)]
    assert last[0] == last[1] and "FileNotFoundError" in last[0]


def test_interpreter_settings_take_a_fresh_interpreter(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    assert cli_zygote_client.run([*CLI, "--version"], ["--version"], tmp_path, env, 60) is None
    proc = run_cli("--version", cwd=tmp_path, env={"PYTHONHASHSEED": "7"})
    assert proc.returncode == 0 and "cube-codegen" in proc.stdout


def test_a_program_runs_as_python_c_runs_it(tmp_path: Path) -> None:
    """``-c``: its arguments, import path, module name, folder and warning flags as given."""
    code = (
        "import os, sys, warnings; print(sys.argv, repr(sys.path[0]), __name__, os.getcwd(),"
        " sys.warnoptions, os.environ['MARK']); warnings.warn('w', UserWarning)"
    )
    env = {**os.environ, "MARK": "m1"}
    flags = ("-W", "error::UserWarning")
    argv = [sys.executable, *flags, "-c", code, "a1"]
    forked = cli_zygote_client.run(argv, ["a1"], tmp_path, env, 60, code=code, flags=flags)
    fresh = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert forked is not None
    assert (
        (forked.returncode, forked.stdout)
        == (fresh.returncode, fresh.stdout)
        == (
            1,
            f"['-c', 'a1'] '' __main__ {tmp_path} ['error::UserWarning'] m1\n",
        )
    )
    assert forked.stderr.splitlines()[-1] == fresh.stderr.splitlines()[-1] == "UserWarning: w"
