"""The contract coverage lines reach ``make test``'s summary when the suite runs on pytest-xdist
workers: each worker sends what it swept, the controller merges and prints it.

A small suite in a temporary folder loads the project's real hooks (``tests/conftest.py``) as a
plugin; its two test files, run by two workers, each record part of one family's operations in
the run's coverage, where the contract tests' ``coverage`` fixture keeps it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

CONFTEST = """
import pytest

from tests.contract.contract_coverage import COVERAGE_KEY, Coverage

pytest_plugins = ["tests.conftest"]


@pytest.fixture(scope="session")
def coverage(pytestconfig):
    return pytestconfig.stash.setdefault(COVERAGE_KEY, Coverage())
"""
SWEEP = """
def test_sweep(coverage):
    key = ("chat", "static")
    coverage.swept.add(key)
    coverage.register(key, {{"chat.a", "chat.b", "chat.c"}})
    for name, ok in {results!r}:
        coverage.record(key, name, ok)
"""


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (suite / "test_one.py").write_text(SWEEP.format(results=[("chat.a", True)]))
    (suite / "test_two.py").write_text(SWEEP.format(results=[("chat.b", True), ("chat.c", False)]))
    return suite


def _pytest(suite: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(suite),
         "-c", os.devnull, *args, str(suite)],
        cwd=suite, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip


@pytest.mark.slow
def test_workers_send_their_coverage_and_the_controller_prints_it(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    proc = _pytest(suite, "-n", "2", "--dist", "loadfile")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 workers" in proc.stdout or "2 passed" in proc.stdout, proc.stdout
    # chat.a and chat.b passed on different workers, chat.c failed: 2 of 3, printed once
    assert proc.stdout.count("contract coverage:") == 1, proc.stdout
    assert "contract coverage: 2/3 operations (chat, static)" in proc.stdout, proc.stdout
