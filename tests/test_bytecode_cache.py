"""The Makefile keeps Python's bytecode under .cache/pycache: no ``__pycache__`` beside the
sources, and no module compiled again on every run (which cost each command about 55 ms)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_sets_the_bytecode_folder_inside_the_project(tmp_path: Path) -> None:
    rule = 'show-env:\n\t@echo "$$PYTHONPYCACHEPREFIX|$$PYTHONDONTWRITEBYTECODE"'
    proc = subprocess.run(
        ["make", "-s", "--no-print-directory", "--eval", rule, "show-env"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "PYTHONDONT"))},
        capture_output=True,
        text=True,
        check=True,
    )
    prefix, dont_write = proc.stdout.strip().split("|")
    assert Path(prefix) == ROOT / ".cache" / "pycache"
    assert dont_write == ""
    # Python then writes each module's bytecode there once, and nothing beside the source
    source = tmp_path / "src"
    source.mkdir()
    (source / "probe_module.py").write_text("VALUE = 42\n")
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc"), "PYTHONPATH": str(source)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-c", "import probe_module"], env=env, check=True)
    assert not (source / "__pycache__").exists()
    assert list((tmp_path / "pyc").rglob("probe_module*.pyc"))


def test_the_bench_times_commands_as_make_runs_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bench/run.py`` started from a shell that forbids bytecode still times each command
    with its bytecode cached where the Makefile keeps it, not the compiler on every run."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    from harness import command_env

    env = command_env()
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert Path(env["PYTHONPYCACHEPREFIX"]) == ROOT / ".cache" / "pycache"
    probe = "import sys; print(sys.dont_write_bytecode, sys.pycache_prefix)"
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", str(ROOT / ".cache" / "pycache")]
