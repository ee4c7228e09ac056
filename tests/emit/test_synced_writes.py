"""Staged files: every byte lands, an existing file is never overwritten, the work spread on
threads surfaces its first failure in the caller, and a replaced tree is removed whole
(generator/files, generator/transaction)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

import generator.files
from generator.emit.writer import write_tree
from generator.files import on_threads, sync_trees, write_new
from tests.helpers import LibcWith, whole_tree_sync_or_skip


def test_many_files_are_written_exactly(tmp_path: Path) -> None:
    files = [(tmp_path / f"f{i}.txt", f"file {i}\n".encode() * (i + 1)) for i in range(100)]
    write_new(files)
    for path, data in files:
        assert path.read_bytes() == data


def test_work_on_threads_really_uses_several() -> None:
    seen: set[str] = set()
    done: list[int] = []

    def task(item: int) -> None:
        seen.add(threading.current_thread().name)
        time.sleep(0.002)  # as a disk's sync would: where it costs nothing, one thread could
        done.append(item)  # take every item before the others start

    on_threads(task, list(range(100)))
    assert sorted(done) == list(range(100))
    assert len(seen) > 1


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("mine")
    with pytest.raises(FileExistsError):
        write_new([(tmp_path / "taken", b"theirs")])
    assert (tmp_path / "taken").read_text() == "mine"


def test_the_first_failure_reaches_the_caller_and_the_rest_stop() -> None:
    done: list[int] = []
    lock = threading.Lock()

    def task(i: int) -> None:
        if i == 5:
            raise ValueError("item 5")
        with lock:
            done.append(i)

    with pytest.raises(ValueError, match="item 5"):
        on_threads(task, list(range(1000)), workers=4)
    assert 5 not in done
    assert len(done) < 1000


def test_a_replaced_tree_is_removed_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = {f"pkg/m{i}/f{j}.py": f"x = {i * j}\n" for i in range(10) for j in range(10)}
    write_tree(out, first)
    second = {"pkg/only.py": "y = 1\n"}
    write_tree(out, second)
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert [p for p in written if not p.startswith(".")] == ["pkg/only.py"]
    assert (out / "pkg/only.py").read_text() == "y = 1\n"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "out"]
    assert not [n for n in leftovers if ".was-" in n or ".txn-" in n]


def test_trees_on_one_file_system_are_synced_in_one_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = generator.files.libc()
    whole_tree_sync_or_skip(real)
    calls: list[str] = []

    def syncfs(fd: int) -> int:
        calls.append(os.readlink(f"/proc/self/fd/{fd}"))
        return int(real.syncfs(fd))

    monkeypatch.setattr(generator.files, "libc", lambda: LibcWith(real, syncfs))
    roots = [tmp_path / "spec", tmp_path / "generated"]
    for root in roots:
        root.mkdir()
        write_new([(root / "f.txt", b"x")])
    sync_trees(roots)
    assert calls == [str(roots[0])]


@pytest.mark.parametrize(
    ("release", "reports"),
    [("5.8.0", True), ("6.18.44-fc-v657", True), ("5.15.0-91-generic", True),
     ("5.7.19", False), ("4.19.0-26-amd64", False), ("", False), ("6", False)],
)  # fmt: skip
def test_syncfs_is_trusted_from_the_kernel_that_reports_failed_writes(
    release: str, reports: bool
) -> None:
    assert generator.files._syncfs_reports_errors(release) is reports
