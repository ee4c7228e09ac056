"""A newcomer's first minutes: a command run outside the project says where to run it, and
installing the generated package from the checkout leaves nothing that ``check`` counts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import GENERATED, ROOT, run_cli


def test_a_command_outside_the_project_says_where_to_run_it(tmp_path: Path) -> None:
    for command in ("generate", "check"):
        proc = run_cli(command, cwd=tmp_path)
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert "project's root folder" in lines[0] and "--config" in lines[0], lines[0]


@pytest.mark.slow
def test_installing_the_package_from_the_checkout_leaves_check_clean(tmp_path: Path) -> None:
    """``pip install ./generated/cube_client`` builds in place (``build/``, ``*.egg-info``)."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "spec", project / "spec")
    shutil.copytree(GENERATED, project / "generated")
    dist = project / "generated" / "cube_client"
    wheel = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
         str(tmp_path / "wheels"), str(dist)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert wheel.returncode == 0, wheel.stderr[-2000:]
    leftovers = {p.name for p in dist.iterdir()} - {
        p.name for p in (GENERATED / "cube_client").iterdir()
    }
    (dist / "build" / "lib").mkdir(parents=True, exist_ok=True)
    (dist / "build" / "lib" / "left.py").write_text("x = 1\n", encoding="utf-8")
    proc = run_cli("check", "--config", "spec/cube-codegen.yaml", "--out", "generated", cwd=project)
    assert proc.returncode == 0, (leftovers, proc.stdout, proc.stderr)
    assert "up to date" in proc.stdout
