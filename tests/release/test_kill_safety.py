"""Every command is a transaction: killed (SIGKILL, as a cancelled runner does) at every step
boundary and at random instants, ``update``, ``generate`` and ``keep`` leave the project wholly
before or wholly after, once the next command has run; that command says what it finished or
removed, and a later ``update`` on the same document makes no release of its own.

The steps are :mod:`generator.transaction`'s (``CUBE_CODEGEN_KILL_AT``): staged, journal, swap-N,
committed, done. Before the journal the run did not happen; from the journal on it did.
``make test`` kills each command at a sample of them (a step before the journal and one the next
command finishes) and at two of the six random instants;
``make test-heavy`` at the rest.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from generator.emit.writer import read_tree
from generator.files import KILL_ENV
from tests.helpers import CLI, keep_run_state_mypy, run_cli, run_state_mypy
from tests.release.project import additive, config_version, document, write_project

pytestmark = pytest.mark.slow

UPDATE_STEPS = {"staged": "before", "journal": "after", "swap-1": "after", "swap-2": "after",
                "committed": "after", "done": "after"}  # fmt: skip


def _sample(steps: list[str], *sampled: str) -> list[object]:
    """``steps``, those not ``sampled`` marked heavy: ``make test`` kills at a step before the
    journal and one the next command finishes; ``make test-heavy`` at every other."""
    assert set(sampled) <= set(steps)
    return [s if s in sampled else pytest.param(s, marks=pytest.mark.heavy) for s in steps]


def _state(root: Path) -> dict[str, dict[str, bytes]]:
    """What a maintainer would commit: spec/ and generated/, byte for byte."""
    return {name: read_tree(root / name) for name in ("spec", "generated")}


def _leftovers(root: Path) -> list[str]:
    """Anything a run left that git would see: staging folders, temporary files, run state."""
    names = [p.name for p in root.iterdir() if p.name.startswith(".") and p.name != ".cache"]
    names += [p.name for p in (root / "spec").iterdir() if p.name.endswith(".tmp")]
    state = root / ".cache" / "cube-codegen"
    for sub in ("txn", "scratch"):
        if (state / sub).is_dir():
            names += [f"{sub}/{p.name}" for p in (state / sub).iterdir() if p.name != "lock"]
    return names


@pytest.fixture(scope="module")
def states(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, dict[str, bytes]], dict[str, dict[str, bytes]], Path]:
    """A generated project, the new document, and the project's state before and after a
    complete ``update`` to it (measured on a copy)."""
    base = tmp_path_factory.mktemp("kill")
    project = base / "project"
    project.mkdir()
    write_project(project, type_checks=True)  # the updates here run in the project
    assert run_cli("generate", cwd=project).returncode == 0
    new = base / "new.yaml"
    new.write_text(yaml.safe_dump(additive(document())), encoding="utf-8")
    before = _state(project)
    done = base / "done"
    shutil.copytree(project, done)
    proc = run_cli("update", "--from", str(new), cwd=done)
    assert proc.returncode == 1, proc.stderr
    after = _state(done)
    assert after != before and config_version(done / "spec" / "cube-codegen.yaml") == "1.3.0"
    # The killed updates' type checks start from this complete one's cache (mypy answers the
    # same from it, checking only what differs: on a fresh clone, the package's runtime again
    # in every copy otherwise), and so do the next test projects' (write_project's seed).
    _warm_from(done, project)
    keep_run_state_mypy(done)
    return project, before, after, new


def _warm_from(done: Path, project: Path) -> None:
    shutil.rmtree(run_state_mypy(project))
    shutil.copytree(run_state_mypy(done), run_state_mypy(project))


def _copy(states: tuple, tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(states[0], project)
    return project


@pytest.mark.parametrize("step", _sample(list(UPDATE_STEPS), "staged", "swap-1"))
def test_update_killed_at_each_step_is_before_or_after(
    states: tuple, tmp_path: Path, step: str
) -> None:
    _, before, after, new = states
    project = _copy(states, tmp_path)
    killed = run_cli("update", "--from", str(new), cwd=project, env={KILL_ENV: step})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    # The next command, whatever it is, finishes or undoes the killed run and says so.
    nxt = run_cli("check", cwd=project)
    assert nxt.returncode == 0, nxt.stdout + nxt.stderr
    expected = {"before": before, "after": after}[UPDATE_STEPS[step]]
    assert _state(project) == expected
    assert _leftovers(project) == []
    if step in ("journal", "swap-1", "swap-2"):
        assert "finished an interrupted update" in nxt.stderr
    # A second update on the same document: no release out of a half-applied one.
    again = run_cli("update", "--from", str(new), cwd=project)
    if UPDATE_STEPS[step] == "after":
        assert again.returncode == 0, again.stderr  # 0: nothing to do
        assert _state(project) == after
    else:
        assert again.returncode == 1, again.stderr
        assert _state(project) == after


@pytest.mark.parametrize(
    "step",
    _sample(["staged", "journal", "swap-1", "committed", "done"], "staged", "swap-1"),
)
def test_generate_killed_at_each_step_is_before_or_after(
    states: tuple, tmp_path: Path, step: str
) -> None:
    project = _copy(states, tmp_path)
    (project / "spec" / "cube-codegen.yaml").write_text(
        (project / "spec" / "cube-codegen.yaml").read_text().replace("1.2.3", "1.2.9")
    )
    old = read_tree(project / "generated")
    killed = run_cli("generate", cwd=project, env={KILL_ENV: step})
    assert killed.returncode == -signal.SIGKILL
    if step == "staged":  # the run did not happen: the old tree, even before any other command
        assert read_tree(project / "generated") == old
    nxt = run_cli("check", cwd=project)
    now = read_tree(project / "generated")
    if step == "staged":
        assert now == old and nxt.returncode == 1  # out of date: the version changed
    else:  # from the journal on, the next command has put the new tree in place
        assert now != old and b"1.2.9" in now["widget_client/pyproject.toml"]
        assert nxt.returncode == 0, nxt.stdout
    assert _leftovers(project) == []


@pytest.mark.parametrize(
    "step", _sample(["staged", "journal", "swap-1", "done"], "staged", "swap-1")
)
def test_keep_killed_at_each_step_records_every_edit_or_none(
    states: tuple, tmp_path: Path, step: str
) -> None:
    project = _copy(states, tmp_path)
    files = ["widget_client/README.md", "widget_client/widget_client/__init__.py"]
    for rel in files:
        path = project / "generated" / rel
        path.write_text(path.read_text() + "\n# kept by a test\n")
    killed = run_cli("keep", *(f"generated/{f}" for f in files), cwd=project, env={KILL_ENV: step})
    assert killed.returncode == -signal.SIGKILL
    run_cli("check", cwd=project)
    patches = project / "spec" / "patches"  # none at all until a keep commits
    kept = sorted(p.relative_to(patches).as_posix() for p in patches.rglob("*") if p.is_file())
    if step == "staged":
        assert kept == []
    else:
        assert [k for k in kept if not k.endswith(".base")] == files
    assert _leftovers(project) == []


@pytest.mark.parametrize("instants", _sample(["first-two", "last-four"], "first-two"))
def test_update_killed_at_random_instants_is_before_or_after(
    states: tuple, tmp_path: Path, instants: str
) -> None:
    _, before, after, new = states
    rng = random.Random(20261125)
    delays = [rng.uniform(0.2, 2.5) for _ in range(6)]  # the same six instants in every run
    for i in range(6):
        if (i < 2) != (instants == "first-two"):
            continue
        project = tmp_path / f"p{i}"
        shutil.copytree(states[0], project)
        proc = subprocess.Popen(
            [*CLI, "update", "--from", str(new)],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ),
        )
        time.sleep(delays[i])
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert run_cli("check", cwd=project).returncode in (0, 1)
        state = _state(project)
        assert state in (before, after)
        assert _leftovers(project) == []


def test_a_users_folder_that_looks_like_staging_is_never_deleted(
    states: tuple, tmp_path: Path
) -> None:
    project = _copy(states, tmp_path)
    for name in (".generated.old-mine", ".generated.txn-mine", ".spec.was-mine"):
        (project / name).mkdir()
        (project / name / "notes.txt").write_text("mine")
    (project / "spec" / ".api.yaml.cube-codegen-999999999-x.tmp").write_text("not a pid of ours")
    assert run_cli("generate", cwd=project).returncode == 0
    for name in (".generated.old-mine", ".generated.txn-mine", ".spec.was-mine"):
        assert (project / name / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("step", _sample(["file-staged", "file-replaced"], "file-staged"))
def test_fetch_killed_while_writing_the_snapshot_is_before_or_after(
    states: tuple, tmp_path: Path, step: str
) -> None:
    """The snapshot is replaced by one rename: killed before it, the old snapshot stays and the
    temporary file is removed by the next command (which says so); killed after, the new one."""
    import trustme

    from tests.release.servers import ca_file, serving

    project = _copy(states, tmp_path)
    snapshot = project / "spec" / "api.yaml"
    before = snapshot.read_bytes()
    ca = trustme.CA()
    env = {KILL_ENV: step, "SSL_CERT_FILE": str(ca_file(ca, tmp_path))}
    with serving(additive(document()), ca) as server:
        killed = run_cli(
            "fetch", "--base-url", server.url, "--token", "t0ken-x", cwd=project, env=env
        )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    temp = [p.name for p in (project / "spec").iterdir() if p.name.endswith(".tmp")]
    if step == "file-staged":
        assert snapshot.read_bytes() == before and len(temp) == 1
    else:
        assert snapshot.read_bytes() != before and temp == []
    nxt = run_cli("check", cwd=project)
    if step == "file-staged":
        assert f"removed {project / 'spec' / temp[0]}" in nxt.stderr
    assert _leftovers(project) == []


@pytest.fixture(scope="module")
def learned(states: tuple, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Path]:
    """A records file with one field the document lacks, and the project's state after a
    complete ``learn --write`` of it (measured on a copy)."""
    base = tmp_path_factory.mktemp("kill-learn")
    records = base / "team.jsonl"
    line = {
        "format": "cube-client-shapes", "version": 1, "package": "widget-client",
        "package_version": "1.2.3", "operation": {"method": "GET", "path": "/gadgets"},
        "status": 200, "media_type": "application/json", "kind": "property-unknown",
        "pointer": "/-/weight", "documented": "not listed", "seen": {"type": "integer"},
        "count": 1, "first": "2026-11-01T10:00:00Z", "last": "2026-11-01T10:00:00Z",
    }  # fmt: skip
    records.write_text(json.dumps(line) + "\n", encoding="utf-8")
    done = base / "done"
    shutil.copytree(states[0], done)
    proc = run_cli("learn", str(records), "--write", cwd=done)
    assert proc.returncode == 0, proc.stderr
    after = _state(done)
    assert after != states[1]
    return records, after, done


@pytest.mark.parametrize("step", _sample(["staged", "journal", "committed"], "journal"))
def test_learn_killed_at_each_step_is_before_or_after(
    states: tuple, learned: tuple, tmp_path: Path, step: str
) -> None:
    records, after, _ = learned
    project = _copy(states, tmp_path)
    killed = run_cli("learn", str(records), "--write", cwd=project, env={KILL_ENV: step})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    nxt = run_cli("check", cwd=project)
    assert nxt.returncode == 0, nxt.stdout + nxt.stderr
    assert _state(project) == (states[1] if step == "staged" else after)
    assert _leftovers(project) == []
