"""The benchmark's harness: commands run in fresh processes and timed alternately, and the report
they fill (markdown tables, targets marked PASS or FAIL)."""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
BIN = Path(sys.executable).parent  # the project's .venv/bin
TIMEOUT = 600.0


# --------------------------------------------------------------------------- running commands


@dataclass
class Run:
    seconds: float
    maxrss_kb: int
    returncode: int
    output: str = ""


@dataclass
class Cmd:
    name: str
    argv: list[str]
    cwd: Path = ROOT
    env: dict[str, str] = field(default_factory=dict)
    before: Callable[[], None] | None = None  # untimed, before every run (clean outputs)
    runs: list[Run] = field(default_factory=list)
    failure: str = ""

    @property
    def times(self) -> list[float]:
        return [r.seconds for r in self.runs]

    @property
    def median(self) -> float:
        return statistics.median(self.times) if self.times else float("nan")

    @property
    def peak_mb(self) -> float:
        return max((r.maxrss_kb for r in self.runs), default=0) / 1024


def command_env() -> dict[str, str]:
    """The environment a command runs in, as ``make`` gives it (the Makefile's bytecode
    settings), whatever the shell that started the bench had: with ``PYTHONDONTWRITEBYTECODE``
    inherited, every run of every command would compile its modules again (over a second for
    the generator) and the bench would time the compiler."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("PYTHONPYCACHEPREFIX", str(ROOT / ".cache" / "pycache"))
    return env


def run_once(cmd: Cmd) -> Run:
    """Run ``cmd`` once: wall time from spawn to reap, and the rusage ``wait4`` reports."""
    if cmd.before:
        cmd.before()
    env = {**command_env(), **cmd.env}
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd.argv,
            cwd=cmd.cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        timer = threading.Timer(TIMEOUT, _kill_group, (proc.pid,))
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return Run(seconds, usage.ru_maxrss, proc.returncode, text)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def failure_note(run: Run) -> str:
    if run.returncode < 0 or run.returncode == -signal.SIGKILL:
        return f"killed (signal {-run.returncode}; time limit {TIMEOUT:.0f} s)"
    lines = [ln.strip() for ln in run.output.splitlines() if ln.strip()]
    # The most telling line: a Python exception line, else the last line.
    pick = next(
        (ln for ln in reversed(lines) if re.match(r"^[A-Za-z_.]*(Error|Exception)\b", ln)),
        lines[-1] if lines else "",
    )
    pick = re.sub(r"[│╭╮╰╯─]", "", pick).strip()
    return f"exit {run.returncode}: {pick[:110]}"


def compare(cmds: Sequence[Cmd], rounds: int, warmup: bool = True) -> None:
    """Alternate ``cmds`` run by run, rotating the order every round; a failing command stops."""
    live = list(cmds)
    if warmup:
        for cmd in live:
            run = run_once(cmd)
            if run.returncode != 0:
                cmd.failure, cmd.runs = failure_note(run), [run]
        live = [c for c in live if not c.failure]
    for r in range(rounds):
        for i in range(len(live)):
            cmd = live[(i + r) % len(live)]
            if cmd.failure:
                continue
            run = run_once(cmd)
            if run.returncode != 0:
                cmd.failure, cmd.runs = failure_note(run), [run]
            else:
                cmd.runs.append(run)


def paired(ours: list[float], theirs: list[float]) -> float:
    """The median of each round's ratio of two sides' runs, for sides that ran back to back in
    each round (the blocks of ``bench/calls.py``; not :func:`compare`'s rotation, where others
    may run between two commands): a slow spell of the machine slows both runs of a round, and
    their ratio less. Over five runs of ``bench/calls.py`` on 2026-11-27, each per-call row's
    values ranged over 30-63% of the range of the ratio of the sides' medians, at the same level
    (read-all sync: 1.28-1.35 against 1.27-1.42)."""
    return statistics.median([a / b for a, b in zip(ours, theirs, strict=True)])


def log(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- formatting


def secs(x: float) -> str:
    if math.isnan(x):
        return "—"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 0.001:
        return f"{x * 1000:.0f} ms" if x >= 0.1 else f"{x * 1000:.1f} ms"
    return f"{x * 1e6:.0f} µs"


def spread(cmd: Cmd) -> str:
    return f"{secs(min(cmd.times))} - {secs(max(cmd.times))}" if cmd.times else "—"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("**PASS**" if ok else "**FAIL**")


# --------------------------------------------------------------------------- the benchmark


@dataclass
class Report:
    sections: list[str] = field(default_factory=list)
    targets: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    load_before: str = field(
        default_factory=lambda: " / ".join(f"{x:.1f}" for x in os.getloadavg())
    )

    def target(self, name: str, measured: str, limit: str, ok: bool | None, why: str = "") -> None:
        self.targets.append([name, measured, limit, verdict(ok), why])


def fresh_dir(path: Path, trash: Path | None = None) -> Callable[[], None]:
    """Before each timed run: ``path`` out of the way (see :func:`set_aside`)."""
    return lambda: set_aside(path, trash)


TRASH = ".bench-trash"  # beside what was set aside, inside the bench's own temporary folder


def set_aside(path: Path, trash: Path | None = None) -> None:
    """Move ``path`` (the last run's output or cache) into ``trash`` (a folder beside it
    unless named; inside the bench's temporary folder, removed with it at the end) instead of
    deleting it now. A run that follows the deletion of thousands of files pays for it on some
    file systems: ext4 without a journal, as on the machine this bench was tuned on, skips each
    recently freed inode one by one when it makes a file (a payments run's system time went
    from 0.9 s to 3.8-5.9 s, three runs each), so the next run would be timed with the last
    one's clean-up in it (for a minute after a flush, five while the inode table is unwritten,
    so removing the trash between inputs would not do). Every command timed (ours and the
    peers') has its output set aside the same way; the bench's folder holds them all until it
    ends."""
    if not os.path.lexists(path):
        return
    trash = trash if trash is not None else path.parent / TRASH
    trash.mkdir(exist_ok=True)
    os.rename(path, Path(tempfile.mkdtemp(dir=trash)) / path.name)


def fresh_file(path: Path) -> Callable[[], None]:
    return lambda: path.unlink(missing_ok=True)


def ratio_table(cmds: Sequence[Cmd], base: Cmd, ratio_name: str, digits: int = 2) -> str:
    """Commands with median, spread, peak memory and their ratio to ``base``."""
    rows = []
    for cmd in cmds:
        ok = not (cmd.failure or base.failure)
        rows.append(
            [
                cmd.name,
                secs(cmd.median) if not cmd.failure else "—",
                spread(cmd),
                f"{cmd.peak_mb:.0f} MB",
                f"{cmd.median / base.median:.{digits}f}x" if ok else "—",
                f"FAILED — {cmd.failure}" if cmd.failure else "",
            ]
        )
    return table(["command", "median", "min - max", "peak RSS", ratio_name, "note"], rows)
