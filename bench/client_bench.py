"""The generated client's costs, against raw ``httpx2`` + ``json.loads`` measured in the same run:
per call, reading every field, cold import, and cold start to the first call."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness import BENCH, TIMEOUT, Cmd, Report, compare, log, paired, ratio_table, secs, table

# Targets (issue 19): the generated client ≤ these x raw httpx2 + json.loads on the same page.
T_CALL = {"sync": 1.2, "async": 1.15}
T_READ_ALL = 1.5  # issue 35: a call + reading every field of every item ≤ this x raw + a walk
T_RECORDING = 1.05  # per call with record_shapes=DIR ≤ this x without, when nothing differs
T_IMPORT = 1.5  # cold `import cube_client` ≤ this x `import httpx2, pydantic`
T_COLD_START = 1.5  # import + client + first call ≤ this x `import httpx2, pydantic` + raw call
MODES = ("sync", "async")
CALL_HEADER = ["mode", "raw httpx2 + json.loads", "generated client", "ratio (paired)",
               "ratio of medians", "ratio of fastest blocks", "overhead/call",
               "connections opened"]  # fmt: skip


@contextlib.contextmanager
def loopback_server() -> Iterator[int]:
    server = subprocess.Popen(
        [sys.executable, str(BENCH / "server.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield int(server.stdout.readline())
    finally:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def per_call(report: Report, package_root: Path, rounds: int, calls: int) -> None:
    """The 100-item page: each call alone, then each call with every field of every item read."""
    log(f"per call: {rounds} rounds x {calls} calls per side, sync and async, twice")
    data = _run_calls(package_root, rounds, calls)
    if isinstance(data, str):
        report.notes.append(f"per-call benchmark failed: {data}")
        for mode in MODES:
            name = f"client per call ({mode}) vs raw httpx2 + json"
            report.target(name, "—", f"≤ {T_CALL[mode]}x", None, "benchmark failed")
        return
    _recording_row(report, data["sync"])
    for read_all in (False, True):
        rows = []
        for mode in MODES:
            key = f"{mode}_read_all" if read_all else mode
            rows.append(_call_row(report, mode, data[key], read_all))
        report.sections.append(_call_section(rounds, calls, read_all, rows))


def _recording_row(report: Report, data: dict[str, Any]) -> None:
    """Shape recording on (``record_shapes=DIR``) against off, on a page where nothing differs
    from the document (the first 8 responses, then one in 64, are compared whole); paired by
    round (see :func:`paired`)."""
    t = data["times"]
    ratio = paired(t["recording"], t["generated"])
    name = "client per call with shape recording on (sync, nothing differs) vs off"
    note = (
        "differences were recorded: the page is not as documented"
        if data.get("recorded_differences")
        else None
    )
    report.target(name, f"{ratio:.3f}x", f"≤ {T_RECORDING}x", ratio <= T_RECORDING, note or "")


def _run_calls(package_root: Path, rounds: int, calls: int) -> dict[str, Any] | str:
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    args = ["--calls", str(calls), "--rounds", str(rounds)]
    with loopback_server() as port:
        proc = subprocess.run(
            [sys.executable, str(BENCH / "calls.py"), "--port", str(port), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=TIMEOUT,
        )
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or ["?"])[-1][:160]
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _call_row(report: Report, mode: str, data: dict[str, Any], read_all: bool) -> list[str]:
    t = data["times"]
    raw, gen = statistics.median(t["raw"]), statistics.median(t["generated"])
    ratio = paired(t["generated"], t["raw"])
    fastest = min(t["generated"]) / min(t["raw"])
    conns = data["connections"]
    sides = data.get("sides", 2)
    if read_all:
        name = f"client per call reading every field ({mode}) vs raw json walk"
        report.target(name, f"{ratio:.2f}x", f"≤ {T_READ_ALL}x", ratio <= T_READ_ALL)
    else:
        name = f"client per call ({mode}) vs raw httpx2 + json"
        ok = ratio <= T_CALL[mode]
        report.target(name, f"{ratio:.2f}x", f"≤ {T_CALL[mode]}x", ok)
    return [
        mode,
        secs(raw),
        secs(gen),
        f"{ratio:.2f}x",
        f"{gen / raw:.2f}x",
        f"{fastest:.2f}x",
        secs(gen - raw),
        f"{conns} (one per side)" if conns == sides else f"{conns} (expected {sides})",
    ]


def _call_section(rounds: int, calls: int, read_all: bool, rows: list[list[str]]) -> str:
    what = "reading every field of every item" if read_all else "100 environments per response"
    sides = (
        "The generated side reads every declared field of every `DeploymentEnvironment` by "
        "name, as a program does (nested credentials too); the raw side walks every value of "
        "the decoded JSON."
        if read_all
        else "The generated side is `PlatformClient(...).environments"
        ".get_deployment_environments(1)`; the raw side is `httpx2.Client.get` + `json.loads` "
        "(no validation). Models are read lazily: each field is validated when first read."
    )
    return (
        f"### Cost per call, {what} (median per-call time of {rounds} alternated blocks of "
        f"{calls} calls per side; the ratio is the median of each round's ratio of its two "
        "blocks, which ran back to back; server in another process on 127.0.0.1)\n\n"
        + table(CALL_HEADER, rows)
        + "\n\n"
        + sides
    )


def _package_copies(package_root: Path, tmp: Path) -> tuple[Path, Path]:
    """The package compiled (as an installed one is) and as bare sources, for import timing."""
    compiled = tmp / "import" / "compiled"
    source = tmp / "import" / "source"
    for dest in (compiled, source):
        shutil.copytree(
            package_root / "cube_client",
            dest / "cube_client",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(compiled)], check=True)
    return compiled, source


def cold_import(report: Report, package_root: Path, tmp: Path, rounds: int) -> None:
    log(f"cold import and first call: {rounds} alternated fresh processes each")
    compiled, source = _package_copies(package_root, tmp)
    stmt = "import cube_client; cube_client.PlatformClient"
    here = tmp / "import"  # the working folder: `-c` puts it first on sys.path
    ours = Cmd(f"`{stmt}`", [sys.executable, "-c", stmt], here, {"PYTHONPATH": str(compiled)})
    base = Cmd("`import httpx2, pydantic`", [sys.executable, "-c", "import httpx2, pydantic"], here)
    env = {"PYTHONPATH": str(source), "PYTHONDONTWRITEBYTECODE": "1"}
    name = "the same, no .pyc (compiled from source every run)"
    nopyc = Cmd(name, [sys.executable, "-c", stmt], here, env)
    bare = Cmd("`python -c pass`", [sys.executable, "-c", "pass"], here)
    compare([ours, base, nopyc, bare], rounds)
    note = importtime_note(compiled, stmt)
    report.sections.append(
        f"### Cold import (median of {rounds} alternated fresh processes)\n\n"
        + ratio_table([ours, base, nopyc, bare], base, "÷ import httpx2, pydantic")
        + ("\n\n" + note if note else "")
    )
    _ratio_target(report, "cold import vs `import httpx2, pydantic`", ours, base, T_IMPORT)
    cold_start(report, compiled, here, rounds)


def cold_start(report: Report, compiled: Path, here: Path, rounds: int) -> None:
    """A fresh process to its first answer: import, client, first call of a resource."""
    script = str(BENCH / "first_call.py")
    with loopback_server() as port:
        env = {"PYTHONPATH": str(compiled)}
        ours = Cmd(
            "`import cube_client` + `PlatformClient(...)` + first call",
            [sys.executable, script, "generated", str(port)],
            here,
            env,
        )
        base = Cmd(
            "`import httpx2, pydantic` + the same call raw (`httpx2.get` + `json.loads`)",
            [sys.executable, script, "raw", str(port)],
            here,
            env,
        )
        compare([ours, base], rounds)
    report.sections.append(
        f"### Cold start to the first answer (median of {rounds} alternated fresh processes; "
        "`GET …/environments`, 100 items, on 127.0.0.1)\n\n"
        + ratio_table([ours, base], base, "÷ raw")
    )
    _ratio_target(report, "cold start to first call vs raw", ours, base, T_COLD_START)


def _ratio_target(report: Report, name: str, ours: Cmd, base: Cmd, limit: float) -> None:
    if ours.failure or base.failure:
        report.target(name, "—", f"≤ {limit}x", None, ours.failure or base.failure)
        return
    r = ours.median / base.median
    measured = f"{secs(ours.median)} vs {secs(base.median)} = {r:.2f}x"
    report.target(name, measured, f"≤ {limit}x", r <= limit)


def importtime_note(compiled: Path, stmt: str) -> str:
    """``-X importtime`` of one run: the package's total and its costliest modules."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", stmt],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(compiled)},
        cwd=compiled.parent,
        check=False,
    )
    rows: list[tuple[int, int, str]] = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), m.group(4)))
    if not rows:
        return ""
    top_level = {name: cum for _, cum, name in rows if "." not in name}
    total = sum(self_us for self_us, _, _ in rows)
    own = sorted(((s, n) for s, _, n in rows if n.startswith("cube_client")), reverse=True)[:5]
    deps = sorted(((c, n) for n, c in top_level.items() if n != "cube_client"), reverse=True)[:6]
    return (
        f"`-X importtime` (one run): all imports {total / 1000:.0f} ms; `cube_client` "
        f"cumulative {top_level.get('cube_client', 0) / 1000:.0f} ms. Costliest own modules "
        "(self): "
        + ", ".join(f"{n} {s / 1000:.1f} ms" for s, n in own)
        + ". Costliest packages (cumulative): "
        + ", ".join(f"{n} {c / 1000:.0f} ms" for c, n in deps)
        + "."
    )
