"""``make bootstrap-check``: a newcomer's first ``make generate``, timed on a fresh clone.

Clones this repository's committed ``HEAD`` into a scratch folder under ``.cache/`` (so the
clone's uv and pip caches start empty and every package is downloaded), runs ``make generate``
there, and reads its output line by line: the total time and the longest stretch without a
line. Fails (exit 1) when the run fails, takes over the budget, or is silent too long. Needs the
network (the package index), so it is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 40.0  # seconds for the whole first `make generate`, downloads included
MAX_SILENCE = 10.0  # seconds without a line of output


@dataclass(frozen=True)
class Run:
    code: int
    seconds: float
    silence: float  # the longest stretch without output
    silence_after: str  # the line that opened it


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> Run:
    """Run a command, echoing its lines with the time since the start."""
    started = last = time.monotonic()
    longest, after, previous = 0.0, "(start)", "(start)"
    with subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            now = time.monotonic()
            if now - last > longest:
                longest, after = now - last, previous
            last, previous = now, line.rstrip()
            print(f"  {now - started:6.1f} s | {previous}", flush=True)
    code = proc.returncode
    end = time.monotonic()
    if end - last > longest:
        longest, after = end - last, previous
    return Run(code, end - started, longest, after)


def fresh_clone(scratch: Path) -> Path:
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    clone = scratch / "clone"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
        check=True,
        timeout=300,
    )
    return clone


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=BUDGET)
    parser.add_argument("--max-silence", type=float, default=MAX_SILENCE)
    parser.add_argument("--runs", type=int, default=1, help="measure this many fresh clones")
    parser.add_argument("--python", default=os.environ.get("PYTHON", "python3"))
    args = parser.parse_args()
    scratch = ROOT / ".cache" / "bootstrap-check"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "VIRTUAL_ENV", "UV_"))}
    env.pop("MFLAGS", None)
    runs: list[Run] = []
    for number in range(1, args.runs + 1):
        print(f"bootstrap-check: run {number}/{args.runs}: fresh clone of HEAD, empty caches")
        clone = fresh_clone(scratch)
        run = timed(["make", "generate", f"PYTHON={args.python}"], clone, env)
        runs.append(run)
        print(
            f"bootstrap-check: run {number}: exit {run.code}, {run.seconds:.1f} s, longest "
            f"silence {run.silence:.1f} s (after: {run.silence_after[:80]})"
        )
    shutil.rmtree(scratch, ignore_errors=True)
    failed = [r for r in runs if r.code or r.seconds > args.budget or r.silence > args.max_silence]
    seconds = ", ".join(f"{r.seconds:.1f}" for r in runs)
    verdict = "FAIL" if failed else "PASS"
    print(
        f"bootstrap-check: {verdict}: first make generate took {seconds} s "
        f"(budget {args.budget:g} s), longest silence "
        f"{max(r.silence for r in runs):.1f} s (limit {args.max_silence:g} s)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
