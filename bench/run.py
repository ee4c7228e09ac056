"""``make bench``: how fast cube-codegen generates, regenerates and runs, next to its peers.

A report, not a test: prints markdown tables of medians and ratios (and writes them to
``bench/last-run.md``), marks each target PASS or FAIL, and exits 0 either way. Compared commands
alternate run by run (the order rotating every round) on the same inputs in the same run, so
machine drift falls on every side alike. Every command runs in a fresh process; its peak memory
is the largest resident set among it and its children (``wait4`` rusage).

    python bench/run.py [--shared DIR] [--peer-venv .bench-venv] [--rounds 5] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from client_bench import cold_import, per_call
from frames import frame_timing
from harness import (
    BENCH,
    BIN,
    ROOT,
    TRASH,
    Cmd,
    Report,
    compare,
    failure_note,
    fresh_dir,
    fresh_file,
    log,
    paired,
    ratio_table,
    run_once,
    secs,
    set_aside,
    spread,
    table,
)
from user_mypy import user_mypy

from generator import RUN_STATE
from generator.drift.verdicts import MYPY_FOLDER

CODEGEN = BIN / "cube-codegen"
OPC_PIN = "0.29.1"
P07 = "specs/cube/platform-api.07_3320af8370b0.yaml"
BOX = "specs/large/box/openapi.json"
NO_CACHE = {"CUBE_CODEGEN_NO_CACHE": "1"}  # full generation, never the no-op shortcut

# Targets (issue 8).
T_07_VS_OPC = 0.2  # our full generation of platform 07 ≤ this x openapi-python-client's
T_NOOP = 0.1  # seconds, `make generate` with nothing changed
T_BOX_PER_OP = 1.5  # Box seconds per operation ≤ this x platform 07's
T_DRIFT = 2.0  # seconds, `cube-codegen drift` on two documents the size of Box (issue 6)
T_VERDICTS = 60.0  # seconds, type-check verdicts of platform 05 → 07 (issue 22)
P05 = "specs/cube/platform-api.05_018d2f81e72e.yaml"
# The large documents built by tests/breadth/big_documents.py (issue 16).
BUILT = (("payments (built, 4 MB)", "payments_document", "payments_api"),
         ("assistant (built, 3.1)", "assistant_document", "assistant_api"))  # fmt: skip
T_BIG_SECONDS = 10.0  # full generation of each
T_BIG_MB = 600.0  # peak memory of each
T_BIG_PER_OP = 1.5  # seconds per operation ≤ this x platform 07's


def opc_version(peer_venv: Path) -> str:
    exe = peer_venv / "bin" / "openapi-python-client"
    if not exe.exists():
        return ""
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=False)
    m = re.search(r"(\d+\.\d+\.\d+)", proc.stdout)
    return m.group(1) if m else ""


def ours_env(proj: Path, **extra: str) -> dict[str, str]:
    """Our commands import the snapshot's generator/ (ahead of the editable install)."""
    path = os.pathsep.join(p for p in (str(proj), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, **extra}


def platform_document(proj: Path, tmp: Path) -> tuple[Path, str]:
    """The platform family's document after its overlays (as configured), and how it was made."""
    config = yaml.safe_load((proj / "spec/cube-codegen.yaml").read_text(encoding="utf-8"))
    family = next(f for f in config["families"] if f["name"] == "platform")
    spec_dir = proj / "spec"
    document = spec_dir / family["document"]
    overlays = [str(spec_dir / o) for o in family.get("overlays") or []]
    if not overlays:
        return document, "raw document (no overlays configured)"
    out = tmp / "platform.yaml"
    proc = subprocess.run(
        [str(CODEGEN), "overlay", "apply", str(document), *overlays, "--out", str(out)],
        cwd=proj,
        env={**os.environ, **ours_env(proj)},
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        log(f"overlay apply failed ({proc.stderr.strip()[:200]}); peers get the raw document")
        return document, "raw document (overlay apply failed)"
    return out, f"after its {len(overlays)} overlays"


@dataclass
class Peers:
    """The peer generators and how to run them."""

    venv: Path
    opc: str = ""  # openapi-python-client's version; empty when not installed

    @property
    def opc_label(self) -> str:
        return f"openapi-python-client {self.opc}" if self.opc else "openapi-python-client"

    def commands(self, doc: Path, work: Path) -> list[Cmd]:
        cmds = []
        if self.opc:
            # Its ruff post-hooks resolve `ruff` on PATH: the bench venv's own pinned one.
            path = f"{self.venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
            opc = [str(self.venv / "bin" / "openapi-python-client"), "generate", "--path"]
            argv = [*opc, str(doc), "--output-path", str(work / "opc"), "--overwrite"]
            cmds.append(
                Cmd(self.opc_label, argv, env={"PATH": path}, before=fresh_dir(work / "opc"))
            )
        models = work / "models.py"
        dmcg = self.venv / "bin" / "datamodel-codegen"  # make bench installs it beside the peer
        argv = [str(dmcg), "--input", str(doc), "--input-file-type", "openapi"]
        argv += ["--output-model-type", "pydantic_v2.BaseModel", "--output", str(models)]
        cmds.append(Cmd("datamodel-codegen (models only)", argv, before=fresh_file(models)))
        return cmds


def generation_inputs(
    report: Report, proj: Path, tmp: Path, shared: Path | None
) -> list[tuple[str, list[str], Path]]:
    """(label, our `generate` arguments, the document the peers read) per input."""
    platform, how = platform_document(proj, tmp)
    report.notes.append(f"spec/ (4 families): ours generates all four; peers the platform {how}.")
    inputs = [("spec/ (4 families)", ["generate"], platform)]
    for label, rel, package in (("platform 07", P07, "cube_platform"), ("Box", BOX, "box_api")):
        doc = shared / rel if shared else None
        if doc is None or not doc.is_file():
            report.notes.append(f"{label}: skipped, {doc or 'shared folder'} not found.")
            continue
        report.notes.append(f"{label}: {doc}.")
        inputs.append((label, ["generate", "--spec", str(doc), "--package", package], doc))
    sys.path.insert(0, str(ROOT))
    from tests.breadth import big_documents

    for label, builder, package in BUILT:
        doc = tmp / f"{package}.json"
        doc.write_text(json.dumps(getattr(big_documents, builder)()), encoding="utf-8")
        report.notes.append(f"{label}: tests/breadth/big_documents.py {builder}().")
        inputs.append((label, ["generate", "--spec", str(doc), "--package", package], doc))
    return inputs


def operation_count(args: list[str], proj: Path, work: Path) -> int:
    """One untimed run with --report (also warms the file cache): operations generated."""
    report_file = work / "report.json"
    out = ["--out", str(work / "probe"), "--report", str(report_file), "--quiet"]
    run = run_once(Cmd("probe", [str(CODEGEN), *args, *out], proj, ours_env(proj, **NO_CACHE)))
    set_aside(work / "probe")
    try:
        return (
            int(json.loads(report_file.read_text())["operations_generated"])
            if not run.returncode
            else 0
        )
    except (OSError, ValueError, KeyError):
        return 0


def generation(
    report: Report, proj: Path, tmp: Path, shared: Path | None, peers: Peers, rounds: int
) -> None:
    rows: list[list[str]] = []
    per_op: dict[str, float] = {}
    peaks: dict[str, float] = {}
    medians: dict[tuple[str, str], float] = {}
    ours_by_input: dict[str, tuple[Cmd, int]] = {}
    for label, args, peer_doc in generation_inputs(report, proj, tmp, shared):
        log(f"generation: {label} ({rounds} alternated rounds after a warm-up)")
        work = tmp / "gen" / re.sub(r"\W+", "-", label).strip("-").lower()
        work.mkdir(parents=True)
        ops = operation_count(args, proj, work)
        argv = [str(CODEGEN), *args, "--out", str(work / "ours"), "--quiet"]
        env = ours_env(proj, **NO_CACHE)
        ours = Cmd("cube-codegen", argv, proj, env, before=fresh_dir(work / "ours"))
        cmds = [ours, *peers.commands(peer_doc, work)]
        compare(cmds, rounds)
        for cmd in cmds:
            medians[(label, cmd.name)] = float("nan") if cmd.failure else cmd.median
            ratio = fastest = "—"
            if cmd is not ours and not cmd.failure and not ours.failure:
                ratio = f"{ours.median / cmd.median:.2f}x"
                fastest = f"{min(ours.times) / min(cmd.times):.2f}x"
            note = f"FAILED — {cmd.failure}" if cmd.failure else ""
            if cmd.failure and cmd is not ours:
                note = f"crashes — {cmd.failure}"
            if cmd is ours and not cmd.failure:
                peaks[label] = cmd.peak_mb
            if cmd is ours and ops and not cmd.failure:
                ours_by_input[label] = (ours, ops)
                note = f"{ops} operations, {secs(ours.median / ops)}/operation"
            median = f"({secs(cmd.times[0])})" if cmd.failure else secs(cmd.median)
            first = label if cmd is ours else ""
            rss = f"{cmd.peak_mb:.0f} MB"
            rows.append([first, cmd.name, median, spread(cmd), rss, ratio, fastest, note])
        if not peers.opc:
            why = f"not installed in {peers.venv} (make bench installs {OPC_PIN})"
            rows.append(["", "openapi-python-client", "—", "—", "—", "—", "—", why])
    header = ["input", "generator", "median", "min - max", "peak RSS", "cube-codegen ÷ this"]
    header.append("same, fastest runs")
    report.sections.append(
        f"### Full generation (median of {rounds} alternated runs after a warm-up; fresh output "
        "folder each run; peak RSS = largest process of the run; a failed run shows its time "
        "in parentheses)\n\n" + table([*header, "note"], rows)
    )
    per_op = per_operation(report, ours_by_input, rounds)
    generation_targets(report, medians, per_op, peers)
    big_document_targets(report, medians, per_op, peaks)


PerOp = dict[str, tuple[float, float]]  # per input: seconds per operation, its ratio to 07


def per_operation(report: Report, ours: dict[str, tuple[Cmd, int]], rounds: int) -> PerOp:
    """Our time per operation on each input, from one rotation of our runs alone (platform 07,
    then each other input, the order turning every round). The per-input blocks above alternate
    ours with the peers, whose runs (ruff over thousands of files, deleted folders) leave the
    machine in states that differ from block to block: platform 07's median there moved by a
    quarter from one bench to the next, and every per-operation ratio with it. Each input's
    ratio to platform 07 is that of their medians. The table also shows the median of each
    round's ratio (:func:`harness.paired`), which judges the per-call rows, but not these: two
    inputs of a round do not run back to back (two others may run between them), and their noise
    is not shared: in one bench on 2026-11-27 it put payments at 1.51x, its medians at 1.41x."""
    base = ours.get("platform 07")
    if base is None:
        return {}
    others = ["Box", *(label for label, _, _ in BUILT)]
    labels = ["platform 07", *(label for label in others if label in ours)]
    log(f"generation: time per operation ({rounds} rounds of {', '.join(labels)})")
    cmds = [dataclasses.replace(ours[label][0], name=label, runs=[]) for label in labels]
    compare(cmds, rounds, warmup=False)
    rows = []
    per_op: PerOp = {}
    base_cmd, base_ops = cmds[0], base[1]
    for cmd, label in zip(cmds, labels, strict=True):
        if cmd.failure or base_cmd.failure:
            rows.append([label, "—", "—", "—", "—", f"FAILED — {cmd.failure or base_cmd.failure}"])
            continue
        ops = ours[label][1]
        medians = (cmd.median / ops) / (base_cmd.median / base_ops)
        per_op[label] = (cmd.median / ops, medians)
        by_round = paired(cmd.times, base_cmd.times) * base_ops / ops
        rows.append([label, secs(cmd.median), spread(cmd), secs(cmd.median / ops),
                     f"{medians:.2f}x", f"{by_round:.2f}x"])  # fmt: skip
    header = ["input", "median", "min - max", "per operation", "÷ platform 07"]
    report.sections.append(
        f"### Time per operation (our runs alone, {rounds} rounds, each input once a round, "
        "the order turning; median)\n\n"
        + table([*header, "÷ platform 07, median of the rounds' ratios"], rows)
    )
    return per_op


def big_document_targets(
    report: Report,
    medians: dict[tuple[str, str], float],
    per_op: PerOp,
    peaks: dict[str, float],
) -> None:
    base = per_op.get("platform 07")
    for label, _, _ in BUILT:
        seconds = medians.get((label, "cube-codegen"), math.nan)
        ok = None if math.isnan(seconds) else seconds < T_BIG_SECONDS
        report.target(f"{label}: full generation", secs(seconds), f"< {T_BIG_SECONDS:.0f} s", ok)
        peak = peaks.get(label)
        measured = "—" if peak is None else f"{peak:.0f} MB"
        ok = None if peak is None else peak < T_BIG_MB
        report.target(f"{label}: peak memory", measured, f"< {T_BIG_MB:.0f} MB", ok)
        name = f"{label}: time per operation vs platform 07"
        if label in per_op and base:
            (ours_op, r), (base_op, _) = per_op[label], base
            measured = f"{secs(ours_op)} vs {secs(base_op)} = {r:.2f}x"
            report.target(name, measured, f"≤ {T_BIG_PER_OP}x", r <= T_BIG_PER_OP)
        else:
            report.target(name, "—", f"≤ {T_BIG_PER_OP}x", None, "platform 07 or our run missing")


def generation_targets(
    report: Report, medians: dict[tuple[str, str], float], per_op: PerOp, peers: Peers
) -> None:
    name = "platform 07: full generation vs openapi-python-client"
    ours07 = medians.get(("platform 07", "cube-codegen"), math.nan)
    opc07 = medians.get(("platform 07", peers.opc_label), math.nan)
    if math.isnan(ours07) or math.isnan(opc07):
        why = "document or peer missing, or a run failed"
        measured = f"ours {secs(ours07)}, peer {secs(opc07)}"
        report.target(name, measured, f"≤ {T_07_VS_OPC}x", None, why)
    else:
        r = ours07 / opc07
        measured = f"{secs(ours07)} vs {secs(opc07)} = {r:.2f}x"
        report.target(name, measured, f"≤ {T_07_VS_OPC}x", r <= T_07_VS_OPC)
    name = "time per operation: Box vs platform 07"
    if "Box" in per_op and "platform 07" in per_op:
        (box_op, r), (base_op, _) = per_op["Box"], per_op["platform 07"]
        measured = f"{secs(box_op)} vs {secs(base_op)} = {r:.2f}x"
        report.target(name, measured, f"≤ {T_BOX_PER_OP}x", r <= T_BOX_PER_OP)
    else:
        why = "a document is missing or our run failed"
        report.target(name, "—", f"≤ {T_BOX_PER_OP}x", None, why)


def scratch_project(tmp: Path) -> Path:
    """A snapshot of the project taken once, so edits others make meanwhile do not reach this
    run, and whose generated/ the bench may rewrite (never the checkout's): Makefile, lock,
    pyproject and the bootstrap's tools (mtimes kept), spec/, templates/, generator/ (imported
    via PYTHONPATH ahead of the editable install), and .venv linked."""
    proj = tmp / "project"
    proj.mkdir()
    for name in ("Makefile", "requirements.lock", "pyproject.toml", "tools/uv.txt",
                 "tools/bootstrap.py"):  # fmt: skip
        (proj / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, proj / name)
    for name in ("spec", "templates", "generator"):
        shutil.copytree(ROOT / name, proj / name, ignore=shutil.ignore_patterns("__pycache__"))
    (proj / ".venv").symlink_to(ROOT / ".venv")
    probe = subprocess.run(
        [sys.executable, "-c", "import generator; print(generator.__file__)"],
        env={**os.environ, **ours_env(proj)},
        cwd=tmp,  # not the checkout: `-c` puts the working folder first on sys.path
        capture_output=True,
        text=True,
        check=False,
    )
    if not probe.stdout.startswith(str(proj)):
        log(f"warning: the snapshot's generator/ is not the one imported ({probe.stdout.strip()})")
    return proj


def snapshot_note() -> str:
    def git(*args: str) -> str:
        proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return proc.stdout.strip()

    dirty = git("status", "--porcelain", "--", "generator", "templates", "spec").splitlines()
    return (
        f"cube-codegen ran from a snapshot of generator/, templates/ and spec/ taken at the start "
        f"(HEAD {git('rev-parse', '--short', 'HEAD') or '?'}, {len(dirty)} uncommitted "
        "changes in those folders); PYTHONPYCACHEPREFIX="
        f"{os.environ.get('PYTHONPYCACHEPREFIX', '') or 'unset'} "
        "(the Makefile sets .cache/pycache), "
        f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '') or 'unset'}."
    )


def regeneration(report: Report, proj: Path, rounds: int) -> bool:
    """No-op `make generate` and `cube-codegen check` on an unchanged tree; True if the
    project's generated tree exists afterwards."""
    make = shutil.which("make") or "make"
    up_to_date = subprocess.run([make, "-q", ".venv/.installed"], cwd=proj, check=False)
    extra = [] if up_to_date.returncode == 0 else ["-o", ".venv/.installed"]
    if extra:
        report.notes.append(
            "`.venv/.installed` is older than its inputs; the bench ran "
            "`make -o .venv/.installed generate` rather than reinstall."
        )
    log("no-op regeneration: make generate (first run generates)")
    env = ours_env(proj)
    first = run_once(Cmd("make generate", [make, *extra, "generate"], proj, env))
    if first.returncode != 0:
        report.notes.append(f"`make generate` failed in the scratch project: {failure_note(first)}")
        report.target(
            "no-op regeneration (`make generate` again)",
            "—",
            f"≤ {T_NOOP} s",
            None,
            "generation failed",
        )
        return False
    argv = [make, *extra, "generate"]
    noop = Cmd("`make generate`, nothing changed (cached)", argv, proj, env)
    full = Cmd("`make generate`, cache disabled (full)", argv, proj, {**env, **NO_CACHE})
    check = Cmd("`cube-codegen check`, unchanged tree", [str(CODEGEN), "check"], proj, env)
    compare([noop, full, check], rounds, warmup=False)
    # Every no-op run must have said so (else it regenerated: an input changed under it).
    missed = [r for r in noop.runs if "up to date" not in r.output]
    if missed:
        report.notes.append(
            f"{len(missed)} of {len(noop.runs)} repeated `make generate` runs regenerated: "
            + missed[0].output.strip().splitlines()[-1][:120]
        )
    report.sections.append(
        f"### Regeneration and check on an unchanged tree (median of {rounds} alternated runs, "
        "in the snapshot, so the checkout's generated/ is never rewritten)\n\n"
        + ratio_table([noop, full, check], full, "÷ full regeneration", digits=3)
    )
    ok = None if noop.failure else noop.median <= T_NOOP
    report.target(
        "no-op regeneration (`make generate` again)", secs(noop.median), f"≤ {T_NOOP} s", ok
    )
    return True


def modified_box(box: Path, out: Path) -> None:
    """A Box-sized NEW document: Box with operations removed and schemas changed."""
    doc = json.loads(box.read_text(encoding="utf-8"))
    paths = doc.get("paths", {})
    for key in list(paths)[:5]:
        del paths[key]
    for i, schema in enumerate(doc.get("components", {}).get("schemas", {}).values()):
        props = schema.get("properties") if isinstance(schema, dict) else None
        if i % 5 == 0 and isinstance(props, dict) and props:
            props.pop(next(iter(props)))
            props["addedByBench"] = {"type": "string", "nullable": True}
    out.write_text(json.dumps(doc), encoding="utf-8")


def verdict_timing(report: Report, proj: Path, shared: Path | None, rounds: int) -> None:
    """`drift --type-check` on the published platform 05 → 07: both packages generated, every
    surface of the old one type-checked against the new one (mypy's cache cleared each run)."""
    name = "type-check verdicts, platform 05 → 07"
    if shared is None:
        report.target(name, "—", f"≤ {T_VERDICTS:.0f} s", None, "shared documents not available")
        return
    log("drift --type-check: platform 05 → 07")
    old, new = shared / P05, shared / P07
    cache = proj / RUN_STATE / MYPY_FOLDER
    script = (
        f'"{CODEGEN}" drift "{old}" "{new}" --no-overlays --type-check --format json '
        "> /dev/null; [ $? -le 1 ]"
    )
    # the run state's cache set aside outside the run state
    trash = proj.parent / TRASH
    cmd = Cmd(name, ["sh", "-c", script], proj, ours_env(proj), before=fresh_dir(cache, trash))
    title = f"Type-check verdicts (median of {rounds} runs, mypy cache cleared)"
    _one_command(report, name, cmd, title, T_VERDICTS, rounds)


def _one_command(
    report: Report, name: str, cmd: Cmd, title: str, limit: float, rounds: int
) -> None:
    """Time one command alone, add its table and its target (``limit`` seconds)."""
    compare([cmd], rounds)
    if cmd.failure:
        report.target(name, "—", f"≤ {secs(limit)}", None, cmd.failure)
        return
    report.sections.append(
        f"### {title}\n\n"
        + table(
            ["command", "median", "min - max", "peak RSS"],
            [[cmd.name, secs(cmd.median), spread(cmd), f"{cmd.peak_mb:.0f} MB"]],
        )
    )
    report.target(name, secs(cmd.median), f"≤ {secs(limit)}", cmd.median <= limit)


def drift_timing(report: Report, proj: Path, tmp: Path, shared: Path | None, rounds: int) -> None:
    """`cube-codegen drift` on Box against a modified Box, as a user runs it (a fresh process)."""
    name = "drift on two Box-sized documents (whole command)"
    box = shared / BOX if shared else None
    if box is None or not box.is_file():
        report.target(name, "—", f"≤ {T_DRIFT} s", None, "shared Box document not available")
        return
    new = tmp / "box-modified.json"
    modified_box(box, new)
    log("drift: Box vs a modified Box")
    # drift exits 1 when breaking changes are found (they are, by design): count 0 and 1 as done.
    script = (
        f'"{CODEGEN}" drift "{box}" "{new}" --format json --no-overlays > /dev/null; [ $? -le 1 ]'
    )
    cmd = Cmd("cube-codegen drift Box → modified Box", ["sh", "-c", script], proj, ours_env(proj))
    _one_command(report, name, cmd, f"Drift (median of {rounds} runs)", T_DRIFT, rounds)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.environ.get("CUBE_CODEGEN_SHARED", ""))
    parser.add_argument("--peer-venv", type=Path, default=ROOT / ".bench-venv")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per generator")
    parser.add_argument("--quick", action="store_true", help="fewer rounds: a smoke run")
    parser.add_argument("--output", type=Path, default=BENCH / "last-run.md")
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    shared_arg = args.shared or str(ROOT.parent / "shared")
    shared = Path(shared_arg).resolve() if Path(shared_arg).is_dir() else None
    report = Report()
    if shared is None:
        report.notes.append(
            f"shared inputs folder {shared_arg} not found: platform 07 and Box "
            "rows skipped (set SHARED=… or CUBE_CODEGEN_SHARED)."
        )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cube-bench-") as tmp_name:
        tmp = Path(tmp_name)
        proj = scratch_project(tmp)
        report.notes.append(snapshot_note())
        peers = Peers(args.peer_venv.resolve(), opc_version(args.peer_venv.resolve()))
        if peers.opc and peers.opc != OPC_PIN:
            report.notes.append(f"openapi-python-client is {peers.opc}, not the pinned {OPC_PIN}.")
        generation(report, proj, tmp, shared, peers, rounds)
        generated = regeneration(report, proj, max(rounds, 3) + 2)
        drift_timing(report, proj, tmp, shared, rounds)
        verdict_timing(report, proj, shared, rounds)
        package_root = proj / "generated" / "cube_client"
        if not generated:
            package_root = ROOT / "generated" / "cube_client"
            report.notes.append("client and import rows use the checkout's generated/ tree.")
        per_call(report, package_root, 8 if args.quick else 40, 25 if args.quick else 50)
        cold_import(report, package_root, tmp, 5 if args.quick else 15)
        frame_timing(report, package_root)
        user_mypy(report, package_root, tmp, 1 if args.quick else 5)
    text = render(report, time.perf_counter() - started)
    print(text)
    try:
        args.output.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        log(f"could not write {args.output}: {exc}")
    return 0


def render(report: Report, elapsed: float) -> str:
    head = (
        f"## cube-codegen bench — {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, "
        f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, {elapsed:.0f} s; load "
        f"average {report.load_before} before, {' / '.join(f'{x:.1f}' for x in os.getloadavg())} "
        "after (other work on this machine shows up as spread)"
    )
    targets = "### Targets\n\n" + table(
        ["target", "measured", "limit", "result", "note"], report.targets
    )
    notes = "### Notes\n\n" + "\n".join(f"- {n}" for n in report.notes) if report.notes else ""
    return "\n\n".join([head, targets, *report.sections, notes]).rstrip()


if __name__ == "__main__":
    sys.exit(main())
