"""The first minutes on a fresh clone: the interpreter is checked before anything is created,
every bootstrap step shows progress, the lock is hash-pinned and regenerable, and the venv holds
a standard editable install of the project (true metadata, the ``cube-codegen`` script)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

from tests.helpers import ROOT

# what the bootstrap reads: a copy of these is a project the Makefile can bootstrap
BOOTSTRAP_INPUTS = ("Makefile", "pyproject.toml", "requirements.lock", "tools/uv.txt",
                    "tools/bootstrap.py")  # fmt: skip


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"tools_{name}", ROOT / "tools" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(f"tools_{name}", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _project_copy(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    for name in BOOTSTRAP_INPUTS:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, project / name)
    return project


def _make(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "VIRTUAL_ENV"))}
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(project), *args],
        capture_output=True, text=True, timeout=60, check=False, env=env,
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_an_old_python_is_refused_in_one_line_before_anything_is_created(tmp_path: Path) -> None:
    """A Python 3.10 (a shim that answers like one and records every call) gets one line naming
    the version found, the version needed and PYTHON=; exit 2; no .venv, no uv, no cache."""
    calls = tmp_path / "calls.txt"
    shim = tmp_path / "bin" / "python3.10"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\necho "$*" >> {calls}\necho 3.10.14\n', encoding="utf-8")
    shim.chmod(0o755)
    project = _project_copy(tmp_path)
    proc = _make(project, "generate", f"PYTHON={shim}")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and not proc.stdout.strip(), proc.stdout + proc.stderr
    assert "Python 3.10.14" in lines[0] and "needs Python 3.11 or newer" in lines[0], lines[0]
    assert "make PYTHON=" in lines[0] and "nothing was created" in lines[0]
    assert sorted(p.name for p in project.iterdir()) == sorted(
        {name.split("/")[0] for name in BOOTSTRAP_INPUTS}
    )  # no .venv, .tools or .cache
    assert len(calls.read_text().splitlines()) == 1  # only asked for its version

    missing = _make(project, "generate", f"PYTHON={tmp_path / 'no-such-python'}")
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert "cannot run" in missing.stderr and "PYTHON=" in missing.stderr
    assert not (project / ".venv").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_clean_venv_removes_the_venv_and_uv_only(tmp_path: Path) -> None:
    project = _project_copy(tmp_path)
    for folder in (".venv/bin", ".tools/uv/bin", ".tools/node_modules/x", ".cache/uv"):
        (project / folder).mkdir(parents=True)
    proc = _make(project, "clean-venv")
    assert proc.returncode == 0, proc.stderr
    assert not (project / ".venv").exists() and not (project / ".tools" / "uv").exists()
    assert (project / ".tools" / "node_modules" / "x").is_dir()  # Prism stays
    assert (project / ".cache" / "uv").is_dir()  # the download cache makes the next one fast


def test_a_step_that_runs_silent_says_it_is_still_running(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No silent stretch: a step prints its start, a heartbeat while its command is quiet, its
    command's useful lines (uv's package-by-package list left out) and its time."""
    bootstrap = _tool("bootstrap")
    monkeypatch.setattr(bootstrap, "HEARTBEAT", 0.2)
    code = "import time; print(' + noise==1.0'); print('Installed 3 packages'); time.sleep(0.8)"
    bootstrap.run_step("Installing things", [sys.executable, "-c", code], dict(os.environ))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "bootstrap: Installing things ..."
    assert "bootstrap:   Installed 3 packages" in out and not any("noise" in o for o in out)
    beats = [o for o in out if "... still installing (" in o]
    assert len(beats) >= 1, out
    assert re.fullmatch(r"bootstrap: Installing things: done in \d+\.\d s", out[-1]), out[-1]
    with pytest.raises(SystemExit) as failed:
        bootstrap.run_step("Failing", [sys.executable, "-c", "raise SystemExit(3)"], {})
    assert failed.value.code == 1
    assert "Failing failed (exit 3)" in capsys.readouterr().out


def test_a_first_generate_is_watched_and_keeps_its_exit_code(tmp_path: Path) -> None:
    """``make generate``'s first run goes through the same watcher, labelled, its code kept."""
    code = "print('generated 3 files'); raise SystemExit(3)"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "bootstrap.py"), "--run", "Generating things",
         "--label", "make generate", "--", sys.executable, "-c", code],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        "make generate: Generating things ...",
        "make generate:   generated 3 files",
    ]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_a_later_generate_is_called_directly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the run state holds the manifest of generated/, ``make generate`` runs the command
    itself, without the watcher's interpreter (the no-op run's start-up, counted twice)."""
    from generator.emit.cache import manifest_path

    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "cube-codegen.yaml").write_text("{}\n", encoding="utf-8")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, says in (("cube-codegen", "direct"), ("python", "watched")):
        (bin_dir / name).write_text(f"#!/bin/sh\necho {says}\n", encoding="utf-8")
        (bin_dir / name).chmod(0o755)
    monkeypatch.chdir(tmp_path)
    manifest = manifest_path(Path("generated"))

    def run() -> str:
        make = ["make", "-s", "--no-print-directory", "-o", ".venv/.installed", "generate"]
        proc = subprocess.run(make, capture_output=True, text=True, timeout=60, check=False)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.splitlines()[-1]

    assert run() == "watched"
    manifest.parent.mkdir(parents=True)
    manifest.write_text("{}", encoding="utf-8")
    assert run() == "direct"


def test_the_bootstrap_check_measures_time_and_the_longest_silence(tmp_path: Path) -> None:
    check = _tool("bootstrap_check")
    code = "import time; print('a', flush=True); time.sleep(1.2); print('b', flush=True)"
    run = check.timed([sys.executable, "-c", code], tmp_path, dict(os.environ))
    assert run.code == 0 and run.silence_after == "a"
    assert 1.1 <= run.silence <= run.seconds


def test_the_lock_pins_every_requirement_with_hashes_inside_its_range() -> None:
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert "#    make lock" in lock  # regenerated by one documented target
    pins: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", lock):
        first = block.splitlines()[0]
        if first.startswith("#") or not first.strip():
            continue
        name, version = first.split(" ")[0].split("==")
        assert "--hash=sha256:" in block, name
        pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted += extra
    for text in wanted:
        req = Requirement(text)
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        assert key in pins, f"{req.name} is not pinned in requirements.lock"
        assert req.specifier.contains(pins[key], prereleases=True), (text, pins[key])
    uv = (ROOT / "tools" / "uv.txt").read_text(encoding="utf-8")
    version = re.search(r"^UV_VERSION\s*:=\s*(\S+)", (ROOT / "Makefile").read_text(), re.M)
    assert version and f"uv=={version.group(1)} \\" in uv and uv.count("--hash=sha256:") > 5


def test_the_venv_holds_a_standard_editable_install_of_the_project() -> None:
    """Installed metadata is true: version, console script, editable from this checkout."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dist = importlib.metadata.distribution("cube-codegen")
    assert importlib.metadata.version("cube-codegen") == project["version"]
    scripts = {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}
    assert scripts == {"cube-codegen": "generator.cli:run"}
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    assert direct["dir_info"] == {"editable": True}
    assert Path(direct["url"].removeprefix("file://")).resolve() == ROOT
    script = (Path(sys.executable).parent / "cube-codegen").read_text(encoding="utf-8")
    assert script.startswith(f"#!{sys.executable}") and "from generator.cli import run" in script
    assert not (ROOT / "tools" / "dev_install.py").exists()
    assert not list(Path(sys.prefix).glob("lib/python*/site-packages/cube_codegen_checkout.pth"))
    # compat mode: a path file names the checkout; no import hook to load at every start-up
    assert not list(Path(sys.prefix).glob("lib/python*/site-packages/__editable__*finder.py"))
    pth = list(Path(sys.prefix).glob("lib/python*/site-packages/__editable__.cube_codegen-*.pth"))
    assert [p.read_text(encoding="utf-8").strip() for p in pth] == [str(ROOT)]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_a_bootstrapped_checkout_is_not_installed_again() -> None:
    """The stamp is newer than everything it depends on: `make` runs no bootstrap step."""
    proc = _make(ROOT, "-q", ".venv/.installed")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ci_runs_both_suites_and_leaves_the_timed_bootstrap_to_maintainers() -> None:
    """CI runs the two suites; `make bootstrap-check` (a timing over the network) is run by hand,
    so a slow package index never decides whether a change lands."""
    lines = [
        line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make")
    ]
    assert lines == ["make test", "make test-heavy"]
