"""Run state in one private place (issue 32): never beside ``--out``, created owner-only,
refused when another user owns it or can write it; journals and intents that cannot be aimed;
a damaged record set aside in one line; a lock that is never followed through a link."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from tests.helpers import run_cli

DOC = {
    "openapi": "3.1.0",
    "info": {"title": "T", "version": "1"},
    "paths": {
        "/things": {
            "get": {
                "operationId": "listThings",
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def _nobody() -> tuple[int, int] | None:
    """A second user for the cross-user cases (we are root), or None."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


NEED_NOBODY = pytest.mark.skipif(
    _nobody() is None, reason="needs root and a second user (nobody) to plant files as another"
)


def _setup(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder with no project in it, one document, and a private per-user cache."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "api.json").write_text(json.dumps(DOC), encoding="utf-8")
    return work, {"XDG_CACHE_HOME": str(tmp_path / "xdg")}


def _generate(work: Path, env: dict[str, str], out: str = "out") -> tuple[int, str]:
    proc = run_cli(
        "generate", "--spec", "api.json", "--out", out, "--package", "p", "--quiet",
        cwd=work, env=env,
    )  # fmt: skip
    return proc.returncode, proc.stderr


def test_outside_a_project_run_state_is_the_private_user_cache(tmp_path: Path) -> None:
    work, env = _setup(tmp_path)
    rc, err = _generate(work, env)
    assert rc == 0, err
    assert not (work / ".cache").exists()  # never in the parent of --out
    state = tmp_path / "xdg" / "cube-codegen"
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert {p.name for p in state.iterdir()} >= {"txn", "templates", "key"}
    for path in [state, *state.rglob("*")]:
        assert path.stat().st_uid == os.geteuid()
        assert not path.stat().st_mode & 0o077, path


def test_a_shared_run_state_is_refused_in_one_line(tmp_path: Path) -> None:
    work, env = _setup(tmp_path)
    state = tmp_path / "xdg" / "cube-codegen"
    state.mkdir(parents=True)
    state.chmod(0o777)
    rc, err = _generate(work, env)
    assert rc == 2 and err.count("\n") == 1, err
    assert "writable by others" in err and "[run-state-refused]" in err
    assert not (work / "out").exists()


@NEED_NOBODY
def test_a_run_state_another_user_made_first_is_refused(tmp_path: Path) -> None:
    uid, gid = _nobody() or (0, 0)
    work, env = _setup(tmp_path)
    state = tmp_path / "xdg" / "cube-codegen"
    state.mkdir(parents=True, mode=0o700)
    os.chown(state, uid, gid)
    rc, err = _generate(work, env)
    assert rc == 2 and err.count("\n") == 1 and f"belongs to user {uid}" in err, err


def _reachable_by_others() -> Path:
    """A temporary folder every user can reach (the tests' own may be private: ``TMPDIR``)."""
    for folder in (Path(tempfile.gettempdir()), Path("/tmp"), Path("/var/tmp")):
        chain = (folder, *folder.parents)
        if folder.is_dir() and all(p.stat().st_mode & stat.S_IXOTH for p in chain):
            return folder
    pytest.skip("no temporary folder another user can reach")


@NEED_NOBODY
def test_another_user_cannot_plant_run_state_beside_the_output(tmp_path: Path) -> None:
    """Today's hole: ``--out /shared/sdk`` kept its run state in ``/shared/.cache``, which any
    local user could make first; an intent planted there deleted any folder."""
    uid, gid = _nobody() or (0, 0)
    shared = Path(tempfile.mkdtemp(prefix="cube-codegen-shared-", dir=_reachable_by_others()))
    try:
        shared.chmod(0o777)
        (shared / "api.json").write_text(json.dumps(DOC), encoding="utf-8")
        victim = tmp_path / "victim"
        (victim / "keep").mkdir(parents=True)
        pid = os.fork()
        if pid == 0:  # the other user plants, in a child
            code = 1
            try:
                os.setgid(gid)
                os.setuid(uid)
                txn = shared / ".cache" / "cube-codegen" / "txn"
                txn.mkdir(parents=True)
                (txn / "intent-x.json").write_text(json.dumps({"paths": [str(victim)]}))
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        rc, err = _generate(shared, {"XDG_CACHE_HOME": str(tmp_path / "xdg")})
        assert rc == 0, err
        assert (victim / "keep").is_dir()
    finally:
        shutil.rmtree(shared)


def _plant(state: Path, name: str, record: object) -> None:
    txn = state / "txn"
    txn.mkdir(parents=True, exist_ok=True, mode=0o700)
    (txn / name).write_text(json.dumps(record), encoding="utf-8")
    (txn / name).chmod(0o600)


def _recover(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the CLI does before every command (even ``--help``), run in this process."""
    from generator.cli import finish_interrupted_runs

    work, env = _setup(tmp_path)
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    return finish_interrupted_runs(work)


@pytest.mark.parametrize(
    "record",
    [
        {"paths": ["VICTIM"]},  # today's format: an absolute path
        {"version": 2, "what": "generate", "token": "x", "places": [{"base": "", "target": ".."}]},
        {"version": 2, "token": "x", "places": [{"base": "/", "target": "VICTIM_REL"}]},
        {"version": 2, "token": "../x", "places": [{"base": "/", "target": "tmp"}]},
    ],
)
def test_a_planted_intent_removes_nothing_and_is_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record: dict[str, object]
) -> None:
    victim = tmp_path / "victim"
    (victim / "keep").mkdir(parents=True)
    text = json.dumps(record).replace("VICTIM_REL", str(victim)[1:])
    _plant(
        tmp_path / "xdg" / "cube-codegen",
        "intent-x.json",
        json.loads(text.replace("VICTIM", str(victim))),
    )
    lines = _recover(tmp_path, monkeypatch)
    assert (victim / "keep").is_dir()
    assert len(lines) == 1 and lines[0].startswith("set aside intent-x.json"), lines
    assert finish_interrupted_runs_again(tmp_path) == []


def finish_interrupted_runs_again(tmp_path: Path) -> list[str]:
    from generator.cli import finish_interrupted_runs

    return finish_interrupted_runs(tmp_path / "work")


def test_a_planted_journal_swaps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "id_rsa").parent.mkdir()
    (a / "id_rsa").write_text("secret")
    b.mkdir()
    journal = {"what": "update", "swaps": [
        {"target": str(b), "staged": str(a), "backup": str(b / "got"), "inode": a.stat().st_ino}
    ]}  # fmt: skip
    _plant(tmp_path / "xdg" / "cube-codegen", "journal.json", journal)
    lines = _recover(tmp_path, monkeypatch)
    assert (a / "id_rsa").read_text() == "secret" and not any(b.iterdir())
    assert len(lines) == 1 and lines[0].startswith("set aside journal.json"), lines


@pytest.mark.parametrize("text", ['{"swaps": [{}]}', "{not json", '{"version": 2}', "[]"])
def test_a_damaged_journal_is_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    state = tmp_path / "xdg" / "cube-codegen"
    _plant(state, "journal.json", None)
    (state / "txn" / "journal.json").write_text(text)
    lines = _recover(tmp_path, monkeypatch)
    assert len(lines) == 1 and "nothing it names was touched" in lines[0], lines
    assert not (state / "txn" / "journal.json").exists()
    assert [p.name.split(".json")[0] for p in (state / "set-aside").iterdir()] == ["journal"]
    assert finish_interrupted_runs_again(tmp_path) == []


def test_after_a_damaged_journal_every_command_works(tmp_path: Path) -> None:
    """Today ``{"swaps": [{}]}`` made every later command exit 1 with a traceback."""
    work, env = _setup(tmp_path)
    _plant(tmp_path / "xdg" / "cube-codegen", "journal.json", {"swaps": [{}]})
    proc = run_cli("drift", "--help", cwd=work, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "set aside journal.json" in proc.stderr
    rc, err = _generate(work, env)
    assert (rc, err) == (0, "")


def test_a_lock_planted_as_a_link_is_refused_not_followed(tmp_path: Path) -> None:
    work, env = _setup(tmp_path)
    state = tmp_path / "xdg" / "cube-codegen"
    (state / "txn").mkdir(parents=True, mode=0o700)
    state.chmod(0o700)
    aim = tmp_path / "elsewhere" / "made-by-the-lock"
    aim.parent.mkdir()
    (state / "txn" / "lock").symlink_to(aim)
    rc, err = _generate(work, env)
    assert rc == 2 and err.count("\n") == 1 and "[run-state-refused]" in err, err
    assert not aim.exists()


def test_the_user_cache_follows_xdg_else_home(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.runstate import user_cache

    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere/cache")
    assert user_cache() == Path("/somewhere/cache/cube-codegen")
    for value in ("", "relative/cache"):  # the specification wants an absolute path
        monkeypatch.setenv("XDG_CACHE_HOME", value)
        assert user_cache() == Path.home() / ".cache" / "cube-codegen"


def test_the_verdicts_mypy_cache_and_scratch_are_private_run_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``drift --type-check`` kept mypy's cache under the current folder, where a planted cache
    could make a break look compatible."""
    import subprocess

    from generator.drift import verdicts

    work, env = _setup(tmp_path)
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    seen: list[list[str]] = []

    def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        seen.append(args)
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(verdicts.subprocess, "run", run)
    with verdicts.scratch("verdicts") as tmp:
        assert Path(tmp).parent == tmp_path / "xdg" / "cube-codegen" / "scratch"
        (Path(tmp) / "pyproject.toml").write_text("")
        verdicts._mypy(Path(tmp), [Path(tmp) / "c.py"])
    cache = Path(seen[0][seen[0].index("--cache-dir") + 1])
    assert cache == tmp_path / "xdg" / "cube-codegen" / "mypy"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert not (work / ".cache").exists()
    cache.chmod(0o777)  # as if another user could write it
    from generator.runstate import RunStateRefused

    with pytest.raises(RunStateRefused):
        verdicts._mypy(Path(tmp), [Path(tmp) / "c.py"])


def test_a_kept_patch_is_merged_in_private_scratch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The three-way merge of a kept edit wrote its inputs to the system's temporary folder."""
    import subprocess

    from generator.emit import custom_code

    work, env = _setup(tmp_path)
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    seen: list[list[str]] = []

    def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        seen.append(args)
        return subprocess.CompletedProcess(args, 0, b"merged\n", b"")

    monkeypatch.setattr(custom_code.subprocess, "run", run)
    assert custom_code.merge("new\n", "base\n", "edited\n", "a.py", Path("k")) == "merged\n"
    scratch = tmp_path / "xdg" / "cube-codegen" / "scratch"
    assert [Path(p).parent.parent for p in seen[0][-3:]] == [scratch] * 3
