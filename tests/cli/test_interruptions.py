"""Interrupted runs: a real ``cube-codegen generate`` on a document large enough to keep its
run busy is stopped with SIGINT, SIGTERM or SIGKILL while it renders, a helper process beside
it. No process may outlive it, the caller's pipes must reach end-of-file, the output folder must
be as it was, and no staging folder may survive the next run. Waits are bounded; no timing is
asserted."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator.emit.writer import MARKER
from generator.files import PAUSE_ENV
from tests.helpers import ROOT

WAIT = 120.0  # upper bound for any one wait below; reached only when something is wrong


def _big_document(path: Path, n: int = 1500) -> None:
    schemas = {
        f"Thing{i}": {
            "type": "object",
            "required": ["id"],
            "properties": {
                **{f"field_{j}": {"type": "string", "maxLength": j + 1} for j in range(12)},
                "id": {"type": "integer"},
                "next": {"$ref": f"#/components/schemas/Thing{(i + 1) % n}"},
            },
        }
        for i in range(n)
    }
    ok = {"200": {"description": "ok"}}
    paths = {f"/t{i}": {"get": {"operationId": f"get{i}", "responses": ok}} for i in range(20)}
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "big", "version": "1"},
        "paths": paths,
        "components": {"schemas": schemas},
    }
    path.write_text(json.dumps(doc), encoding="utf-8")


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
        except OSError:
            continue
        found.update(int(x) for x in text.split())
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


def _wait_for(predicate: object, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    pytest.fail(f"gave up waiting: {what}")


@pytest.fixture
def big(tmp_path: Path) -> Path:
    _big_document(tmp_path / "big.json")
    _earlier_output(tmp_path / "out")
    return tmp_path


def _earlier_output(out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    (out / MARKER).write_text("earlier output")
    (out / "previous.txt").write_text("the previous tree")


def _env(cwd: Path) -> dict[str, str]:
    """Outside a project the run state is the per-user cache: a killed run's intent waits
    there for the next command, so these runs get a user cache of their own (the suite's
    is shared by every worker, whose commands would report cleaning up after this one)."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cwd / ".user-cache")}


# SIGINT's default disposition in the run, as a terminal's foreground job has it, then the
# command in the same process: a suite started in the background by a non-interactive shell (a
# CI script's ``cmd &``) inherits SIGINT ignored, which Python keeps, and Ctrl-C would reach no
# run.
_CTRL_C_AS_AT_A_TERMINAL = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, '-m', 'generator', *sys.argv[1:]])"
)


def _start(cwd: Path) -> subprocess.Popen[bytes]:
    args = ["generate", "--spec", "big.json", "--out", "out", "--package", "p"]
    return subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_AS_AT_A_TERMINAL, *args],
        cwd=cwd,
        env={**_env(cwd), PAUSE_ENV: "rendering"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def _interrupt(cwd: Path, sig: int) -> tuple[subprocess.Popen[bytes], bytes, set[int]]:
    """Signal a run mid-way: it suspends itself where rendering has begun and its helper runs
    (the ``rendering`` step of ``CUBE_CODEGEN_PAUSE_AT``), is signalled there and resumed, so the
    signal lands mid-run however loaded the machine is."""
    proc = _start(cwd)
    _wait_for(lambda: _state(proc.pid) in ("T", "") or proc.poll() is not None, "the pause")
    assert proc.poll() is None, proc.communicate()[1][-2000:]
    helpers = _children(proc.pid)
    assert helpers, "no helper process beside the rendering"
    os.kill(proc.pid, sig)
    os.kill(proc.pid, signal.SIGCONT)
    try:  # end-of-file on both pipes: no helper process holds them open
        _, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the caller's pipes stayed open after the command ended")
    _wait_for(lambda: not any(_alive(w) for w in helpers), "helper processes to end")
    return proc, err, helpers


def _output_untouched(cwd: Path) -> None:
    out = cwd / "out"
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "previous.txt"]
    assert (out / "previous.txt").read_text() == "the previous tree"


def _no_staging(cwd: Path) -> list[str]:
    return [p.name for p in cwd.iterdir() if p.name.startswith((".out.txn-", ".out.was-"))]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "code", "word"),
    [(signal.SIGINT, 130, b"interrupted"), (signal.SIGTERM, 143, b"terminated")],
    ids=["ctrl-c-exits-130", "sigterm-exits-143"],
)
def test_a_stopped_run_exits_with_its_code_and_leaves_nothing(
    big: Path, sig: int, code: int, word: bytes
) -> None:
    proc, err, _ = _interrupt(big, sig)
    assert proc.returncode == code, err
    assert word in err and b"Traceback" not in err
    _output_untouched(big)
    assert _no_staging(big) == []


@pytest.mark.slow
def test_sigkill_takes_the_worker_with_it_and_the_next_run_cleans_up(big: Path) -> None:
    proc, _, _ = _interrupt(big, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    _output_untouched(big)
    args = ["generate", "--spec", "big.json", "--out", "out", "--package", "p"]
    again = subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=big,
        env=_env(big),
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert _no_staging(big) == []
    # scratch folders live in the project, and a killed run's are removed
    scratch = big / ".cache" / "cube-codegen" / "scratch"
    assert not scratch.exists() or list(scratch.iterdir()) == []
    assert (big / "out" / "p" / "models.py").is_file()
