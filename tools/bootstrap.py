"""Bootstrap the project's ``.venv`` with a pinned uv, showing every step as it goes.

Run by the Makefile after it has checked the interpreter's version (stdlib only, so it runs
before anything is installed). Steps: uv itself into the ignored ``.tools/uv/`` (hash-pinned in
``tools/uv.txt``, installed with the interpreter's own pip), the venv, the hash-pinned
``requirements.lock``, then this project as a standard editable install (``cube-codegen``
console script, true metadata). uv's cache lives in ``.cache/uv/``; nothing is written outside
the project. A step silent for 5 s prints that it is still running, so the terminal never
looks stuck.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEARTBEAT = 5.0  # seconds of silence before a step says it is still running
# what uv lists package by package (" + name==1.0"): the step's own summary line is enough
_NOISE = (" + ", " - ", " ~ ", "Using CPython", "Creating virtual environment", "Activate with")
# pip's words on the machine's own configuration, not on this install
_PIP_NOISE = ("WARNING: Running pip as", "WARNING: Location", "Looking in ")


LABEL = ["bootstrap"]  # the word each line starts with (``--label``)


def say(text: str) -> None:
    print(f"{LABEL[0]}: {text}", flush=True)


def run_step(title: str, argv: list[str], env: dict[str, str]) -> None:
    """Run one step, its useful output indented, a heartbeat while it is silent; exit on failure."""
    code = watch(title, argv, env)
    if code != 0:
        say(f"{title} failed (exit {code}); its output is above")
        sys.exit(1)


def watch(title: str, argv: list[str], env: dict[str, str]) -> int:
    """Run a command, print its start, its lines, a heartbeat every HEARTBEAT seconds of
    silence and its time; return its exit code."""
    say(f"{title} ...")
    started = time.monotonic()
    last = [started]
    done = threading.Event()

    def heartbeat() -> None:
        while not done.wait(min(1.0, HEARTBEAT / 4)):
            now = time.monotonic()
            if now - last[0] >= HEARTBEAT:
                say(f"  ... still {title.split(' ', 1)[0].lower()} ({now - started:.0f} s)")
                last[0] = now

    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    with subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.rstrip()
            if line and not line.startswith(_NOISE) and not line.lstrip().startswith(_PIP_NOISE):
                print(f"{LABEL[0]}:   {line}", flush=True)
                last[0] = time.monotonic()
    done.set()
    beat.join()
    if proc.returncode == 0:
        say(f"{title}: done in {time.monotonic() - started:.1f} s")
    return proc.returncode


def uv_binary(tools: Path, version: str) -> Path | None:
    """The pinned uv under ``tools`` when it is there and answers with its version."""
    uv = tools / "bin" / "uv"
    try:
        out = subprocess.run(
            [uv, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return uv if out.returncode == 0 and out.stdout.split()[1:2] == [version] else None


def install_uv(python: str, tools: Path, pins: Path, version: str, env: dict[str, str]) -> Path:
    """uv from the package index with the interpreter's pip, hash-checked, into ``tools``."""
    found = uv_binary(tools, version)
    if found:
        say(f"uv {version} already in {tools.relative_to(ROOT)}")
        return found
    staging = tools.with_name(tools.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    pip = [sys.executable, "-m", "pip"]  # the Makefile runs this script with $(PYTHON)
    # pip's modules as installed (a bytecode prefix would compile the whole of pip and the
    # standard library anew first: seconds of silence), and no bytecode written outside
    env = {k: v for k, v in env.items() if k != "PYTHONPYCACHEPREFIX"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if importlib.util.find_spec("pip") is None:
        # an interpreter without pip (Debian's python3 without python3-pip): a venv has one
        helper = tools.with_name("uv-venv")
        venv = [python, "-m", "venv", str(helper)]
        run_step(f"Creating {helper.relative_to(ROOT)} for its pip", venv, env)
        pip = [str(helper / "bin" / "python"), "-m", "pip"]
    run_step(
        f"Installing uv {version} into {tools.relative_to(ROOT)}",
        [*pip, "install", "--disable-pip-version-check", "--no-input", "--no-deps",
         "--require-hashes", "--only-binary=:all:", "--target", str(staging), "-r", str(pins)],
        env,
    )  # fmt: skip
    shutil.rmtree(tools, ignore_errors=True)
    staging.rename(tools)
    found = uv_binary(tools, version)
    if not found:
        say(f"uv {version} did not answer from {tools.relative_to(ROOT)}")
        sys.exit(1)
    return found


def main() -> None:
    if "--run" in sys.argv[1:2]:  # --run TITLE [--label WORD] -- COMMAND...: one watched step
        split = sys.argv.index("--")
        options, command = sys.argv[2:split], sys.argv[split + 1 :]
        if options[1:2] == ["--label"]:
            LABEL[0] = options[2]
        sys.exit(watch(options[0], command, dict(os.environ)))
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", required=True, help="the interpreter to build the venv on")
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv")
    parser.add_argument("--lock", type=Path, default=ROOT / "requirements.lock")
    parser.add_argument("--uv-pins", type=Path, default=ROOT / "tools" / "uv.txt")
    parser.add_argument("--uv-version", required=True)
    parser.add_argument("--tools", type=Path, default=ROOT / ".tools" / "uv")
    parser.add_argument("--uv-only", action="store_true", help="install uv and stop (make lock)")
    args = parser.parse_args()
    started = time.monotonic()
    cache = ROOT / ".cache"
    env = {
        **os.environ,
        "UV_CACHE_DIR": str(cache / "uv"),
        "PIP_CACHE_DIR": str(cache / "pip"),
        "UV_PYTHON_DOWNLOADS": "never",  # the interpreter the Makefile checked, or nothing
        "UV_NO_CONFIG": "1",  # no user or system uv.toml changes what is installed
        "UV_NO_PROGRESS": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    uv = str(install_uv(args.python, args.tools, args.uv_pins, args.uv_version, env))
    if args.uv_only:
        return
    venv = args.venv
    python = venv / "bin" / "python"
    if not python.exists():
        run_step(f"Creating {venv.name} with {args.python}",
                 [uv, "venv", "--python", args.python, str(venv)], env)  # fmt: skip
    target = ["--python", str(python)]
    run_step(
        f"Installing the {args.lock.name} pins into {venv.name}",
        [uv, "pip", "sync", *target, "--require-hashes", str(args.lock)],
        env,
    )
    for old in venv.glob("lib/python*/site-packages/cube_codegen_checkout.pth"):
        old.unlink()  # the path file of the bootstrap before the editable install
    # compat: the editable install is a path file naming the checkout, read by site at start-up;
    # the default mode installs an import hook that costs every command about 20 ms to import.
    editable = ["-C", "editable_mode=compat", "-e", str(ROOT)]
    run_step(
        "Installing cube-codegen (editable) from pyproject.toml",
        [uv, "pip", "install", *target, "--no-deps", "--no-build-isolation", *editable],
        env,
    )
    say(f"{venv.name} ready in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
