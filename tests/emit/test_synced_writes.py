"""Files staged on several threads: every byte lands, a failure surfaces in the caller, and
a replaced tree is removed whole (generator/files, generator/transaction)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from generator.emit.writer import write_tree
from generator.files import on_threads, write_synced


def test_many_files_are_written_exactly_on_several_threads(tmp_path: Path) -> None:
    files = [(tmp_path / f"f{i}.txt", f"file {i}\n".encode() * (i + 1)) for i in range(100)]
    seen: set[str] = set()
    real = on_threads

    def watched(task, items, workers=8):  # type: ignore[no-untyped-def]
        def spy(item):  # type: ignore[no-untyped-def]
            seen.add(threading.current_thread().name)
            task(item)
            time.sleep(0.002)  # as a disk's sync would: where syncing costs nothing (a RAM
            # file system), one thread could take every item before the others start

        real(spy, items, workers)

    watched(lambda item: write_synced([item]), files)
    for path, data in files:
        assert path.read_bytes() == data
    assert len(seen) > 1  # really more than one thread


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("mine")
    with pytest.raises(FileExistsError):
        write_synced([(tmp_path / "taken", b"theirs")])
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
