"""The output folder: never a folder we did not make, never the current folder or a parent of
it; staging folders of interrupted runs are removed and ignored by git; the staged tree is synced
to disk before it is swapped in (at once, or file by file where the system cannot)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

import generator.files
from generator.diagnostics import CodegenError
from generator.emit.writer import MARKER, check_output_dir, write_tree
from tests.helpers import ROOT, LibcWith, run_cli, whole_tree_sync_or_skip

_real_libc = generator.files.libc  # the C library itself, before a test replaces it

DOC = (
    "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"
    "paths: {/a: {get: {operationId: getA, responses: {'204': {description: ok}}}}}\n"
)


def _generate(cwd: Path, out: str, *extra: str) -> subprocess.CompletedProcess[str]:
    (cwd / "base.yaml").write_text(DOC)
    args = ["generate", "--spec", "base.yaml", "--out", out, "--package", "p", *extra]
    return run_cli(*args, cwd=cwd)


def _refused(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "[out-refused]" in lines[0], proc.stderr


def test_a_folder_we_did_not_make_is_not_wiped(tmp_path: Path) -> None:
    mysrc = tmp_path / "mysrc"
    mysrc.mkdir()
    (mysrc / "important.txt").write_text("keep me")
    proc = _generate(tmp_path, "mysrc")
    _refused(proc)
    assert "mysrc" in proc.stderr and MARKER in proc.stderr
    assert sorted(p.name for p in mysrc.iterdir()) == ["important.txt"]
    assert (mysrc / "important.txt").read_text() == "keep me"


def test_the_current_folder_is_never_the_output(tmp_path: Path) -> None:
    (tmp_path / "important.txt").write_text("keep me")
    (tmp_path / MARKER).write_text("even with a marker")
    proc = _generate(tmp_path, ".")
    _refused(proc)
    assert "current folder" in proc.stderr
    assert (tmp_path / "important.txt").read_text() == "keep me"


def test_a_parent_of_the_current_folder_is_never_the_output(tmp_path: Path) -> None:
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / MARKER).write_text("even with a marker")
    (inner / "base.yaml").write_text(DOC)
    for out in ("..", "../..", str(tmp_path)):
        proc = run_cli("generate", "--spec", "base.yaml", "--out", out, "--package", "p", cwd=inner)
        _refused(proc)
        assert "parent of the current folder" in proc.stderr
    assert (inner / "base.yaml").is_file()


def test_a_file_is_not_replaced_by_a_folder(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file")
    _refused(_generate(tmp_path, "out"))
    assert (tmp_path / "out").read_text() == "a file"


def test_empty_new_and_own_folders_are_written_and_marked(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for out in ("empty", "new/dist"):
        proc = _generate(tmp_path, out)
        assert proc.returncode == 0, proc.stderr
        assert (tmp_path / out / MARKER).is_file()
        assert (tmp_path / out / "p" / "_client.py").is_file()
        (tmp_path / out / "p" / "models.py").unlink()  # a file of ours: put back
        again = _generate(tmp_path, out)  # our own output: replaced whole
        assert again.returncode == 0, again.stderr
        assert (tmp_path / out / "p" / "models.py").is_file()


def test_a_file_the_tool_did_not_write_stops_the_run_unless_forced(tmp_path: Path) -> None:
    """A marked output folder holding something the last run did not record (a .git, notes)
    is refused, naming the file, before anything is written; --force replaces it anyway."""
    assert _generate(tmp_path, "out").returncode == 0
    (tmp_path / "out" / ".git").mkdir()
    (tmp_path / "out" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "out" / "notes.txt").write_text("mine")
    before = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "out").rglob("*"))
    refused = _generate(tmp_path, "out")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "did not write (.git/HEAD, notes.txt)" in refused.stderr
    assert "--force" in refused.stderr and "[out-refused]" in refused.stderr
    assert (
        sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "out").rglob("*")) == before
    )
    forced = _generate(tmp_path, "out", "--force")
    assert forced.returncode == 0, forced.stderr
    assert not (tmp_path / "out" / "notes.txt").exists()
    assert (tmp_path / "out" / "p" / "models.py").is_file()


def test_the_project_output_carries_the_marker() -> None:
    assert (ROOT / "generated" / MARKER).is_file()


def test_check_output_dir_in_the_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "y").write_text("")
    with pytest.raises(CodegenError) as info:
        write_tree(tmp_path / "x", {"a.py": ""})
    assert info.value.first.id == "out-refused"
    assert (tmp_path / "x" / "y").exists()
    check_output_dir(tmp_path / "missing")  # fine: nothing to lose


def test_folders_that_only_look_like_staging_are_left_alone(tmp_path: Path) -> None:
    """Only folders a run recorded as its own are removed (tests/release/test_kill_safety.py
    kills real runs); a user's folder named like staging is not ours to judge."""
    for name in (".out.new-abc123", ".out.old-abc123", ".out.txn-abc123"):
        (tmp_path / name / "p").mkdir(parents=True)
        (tmp_path / name / "p" / "models.py").write_text("mine")
    proc = _generate(tmp_path, "out")
    assert proc.returncode == 0, proc.stderr
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out"))
    assert left == [".out.new-abc123", ".out.old-abc123", ".out.txn-abc123"]


def test_staging_folders_and_temporary_files_are_ignored_by_git() -> None:
    for name in (
        ".generated.txn-k2j3h4/x.py",
        ".generated.was-k2j3h4/x.py",
        "spec/.platform-api.yaml.cube-codegen-123-abc.tmp",
        ".cache/cube-codegen/txn/journal.json",
    ):
        proc = subprocess.run(
            ["git", "check-ignore", "--no-index", "-q", name], cwd=ROOT, check=False
        )
        assert proc.returncode == 0, f"{name} is not ignored"


def test_the_whole_staged_tree_is_on_disk_before_the_swap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linux: one ``syncfs`` of the output's file system, made once every staged file is whole
    (each is read at the moment of the call) and before anything is renamed."""
    events: list[tuple[str, str]] = []
    files = {"pkg/a.py": "a = 1\n", "pkg/sub/b.py": "b = 2\n", "README.md": "r\n"}
    real_libc = _real_libc()
    whole_tree_sync_or_skip(real_libc)

    def syncfs(fd: int) -> int:
        staging = Path(os.readlink(f"/proc/self/fd/{fd}"))
        written = {rel: (staging / rel).read_text() for rel in files}
        events.append(("syncfs", str(staging)))
        assert written == files  # every file complete when the sync is asked for
        return int(real_libc.syncfs(fd))

    _spy_renames(events, monkeypatch)
    monkeypatch.setattr(generator.files, "libc", lambda: LibcWith(real_libc, syncfs))
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path / "out", files)
    kinds = [kind for kind, _ in events]
    assert kinds.count("syncfs") == 1
    assert kinds.index("syncfs") < kinds.index("rename")
    assert Path(events[kinds.index("rename")][1]) == Path(events[0][1])  # the tree synced
    assert (tmp_path / "out" / "pkg" / "sub" / "b.py").read_text() == "b = 2\n"


def _never(fd: int) -> int:
    raise AssertionError("syncfs called on a kernel that would not report a failed write")


@pytest.mark.parametrize(
    ("syncfs", "release"),
    [(None, ""), (lambda fd: -1, ""), (_never, "5.4.0-150-generic")],
    ids=["no-syncfs", "syncfs-fails", "kernel-before-5.8"],
)
def test_without_syncfs_every_staged_file_and_folder_is_synced_before_the_swap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, syncfs: object, release: str
) -> None:
    events: list[tuple[str, str]] = []
    if release:
        fields = ("sysname", "nodename", "release", "version", "machine")
        uname = {name: getattr(os.uname(), name) for name in fields} | {"release": release}
        monkeypatch.setattr(os, "uname", lambda: SimpleNamespace(**uname))
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        events.append(("sync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    _spy_renames(events, monkeypatch)
    monkeypatch.setattr(generator.files, "libc", lambda: LibcWith(_real_libc(), syncfs))
    monkeypatch.chdir(tmp_path)
    files = {"pkg/a.py": "a = 1\n", "pkg/sub/b.py": "b = 2\n", "README.md": "r\n"}
    write_tree(tmp_path / "out", files)
    swap = next(i for i, (kind, _) in enumerate(events) if kind == "rename")
    staging = Path(events[swap][1])
    synced = {path for kind, path in events[:swap] if kind == "sync"}
    expected = {str(staging / rel) for rel in [*files, MARKER]}
    expected |= {str(staging), str(staging / "pkg"), str(staging / "pkg" / "sub")}
    assert expected <= synced, sorted(expected - synced)
    assert (tmp_path / "out" / "pkg" / "sub" / "b.py").read_text() == "b = 2\n"


def _spy_renames(events: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    real_rename = Path.rename

    def rename(self: Path, target: str | os.PathLike[str]) -> Path:
        events.append(("rename", str(self)))
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
