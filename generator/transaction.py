"""Folders replaced together or not at all, even when the process is killed at any instant.

A run stages each new folder whole beside its target, then writes a journal, then swaps the
staged folders in (an atomic exchange where the file system has one, two renames where not).
The journal is the commit point: a run killed before it leaves the old folders, and the next
command removes what was staged; a run killed after it is finished by the next command, which
swaps in what is left. Only folders a run listed in its own intent file are ever deleted, so a
user's folder that happens to look like staging is never touched. Journals and intents live in
the private run state (:mod:`generator.runstate`) and name only what a transaction makes
(:mod:`generator.journal`); one that fails its checks is set aside, never followed.

Tests stop the process at named steps with ``CUBE_CODEGEN_KILL_AT=<step>`` (SIGKILL, as a
cancelled CI runner does): ``staged``, ``journal``, ``swap-1``, ``swap-2``, …, ``done``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from generator import SCRATCH, TXN, TXN_LOCK, runstate
from generator.files import (
    alive,
    checkpoint,
    exchange,
    fsync_dir,
    remove,
    sync_trees,
    write_new,
)
from generator.journal import Place, Rejected, dump, parse, paths, place_of

JOURNAL = "journal.json"
SET_ASIDE = "set-aside"  # records refused by the recovery, kept for a person to look at


def txn_dir() -> Path:
    """Where runs keep their journal and intent files: the private run state's ``txn/``."""
    return runstate.folder(TXN)


def _root() -> Path | None:
    root = runstate.project_root()
    return root.resolve() if root is not None else None


@dataclass
class _Swap:
    place: Place
    target: Path
    staged: Path
    backup: Path
    inode: int = 0

    def as_json(self) -> dict[str, object]:
        return {**self.place.as_json(), "inode": self.inode}


class Transaction:
    """Replace several folders together: :meth:`stage` each, fill them, then :meth:`commit`."""

    def __init__(self, what: str) -> None:
        self.dir = txn_dir()
        self.root = _root()
        self.what = what
        self.swaps: list[_Swap] = []
        self.journaled = False
        self._lock = _locked(self.dir)
        self._lock.__enter__()  # held until the transaction ends: runs take turns
        fd, name = tempfile.mkstemp(prefix="intent-", suffix=".json", dir=self.dir)
        os.close(fd)
        self.intent = Path(name)
        self.token = self.intent.stem.removeprefix("intent-")
        self._write_intent()

    def stage(self, target: Path, *, marked: bool = False) -> Path:
        """A new empty folder beside ``target`` (same file system), recorded before it exists;
        ``marked``: the folder is an output that will hold the marker (it may then lie outside
        the project)."""
        target = target.resolve()
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            place = place_of(target, self.root, marked=marked)
        except Rejected as exc:
            from generator.diagnostics import error

            raise error("txn-outside-project", str(target), "", str(exc)) from None
        found = paths(place, self.token, self.root, staging=True)
        swap = _Swap(place, found.target, found.staged, found.backup)
        self.swaps.append(swap)
        self._write_intent()
        swap.staged.mkdir()
        return swap.staged

    def fill(self, staged: Path, files: Mapping[str, bytes]) -> None:
        """Write ``files`` (paths relative to a folder :meth:`stage` made); :meth:`commit`
        syncs them."""
        for folder in sorted({(staged / rel).parent for rel in files}):
            folder.mkdir(parents=True, exist_ok=True)
        write_new([(staged / rel, data) for rel, data in files.items()])

    def commit(self) -> None:
        """Swap every staged folder in: after the journal is written, the change is made.
        Every staged file and folder is on disk before the journal (all of them synced at once)."""
        sync_trees([swap.staged for swap in self.swaps])
        for swap in self.swaps:
            swap.inode = swap.staged.stat().st_ino
        checkpoint("staged")
        swaps = [s.as_json() for s in self.swaps]
        _write_record(self.dir / JOURNAL, dump(self.what, self.token, "swaps", swaps))
        self.journaled = True
        checkpoint("journal")
        for i, swap in enumerate(self.swaps, 1):
            _apply(swap)
            checkpoint(f"swap-{i}")
        (self.dir / JOURNAL).unlink()
        fsync_dir(self.dir)
        checkpoint("committed")
        self.discard()
        checkpoint("done")

    def discard(self) -> None:
        """Remove what this run staged or retired, then its intent file."""
        for swap in self.swaps:
            for path in (swap.staged, swap.backup):
                remove(path)
        self.intent.unlink(missing_ok=True)

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self.journaled and (self.dir / JOURNAL).exists():
                _finish(self.dir, self.root)  # committed, then a swap failed: finish it now
            self.discard()
        finally:
            self._lock.__exit__(None, None, None)

    def _write_intent(self) -> None:
        places = [s.place.as_json() for s in self.swaps]
        _write_record(self.intent, dump(self.what, self.token, "places", places))


def scratch(prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A temporary folder in the private run state, never in the system's temporary folder;
    one a killed run left is removed by the next :func:`recover`."""
    folder = runstate.folder(SCRATCH)
    return tempfile.TemporaryDirectory(prefix=f"{prefix}-{os.getpid()}-", dir=folder)


def recover() -> list[str]:
    """Finish a journal a killed run left in the run state, then remove every folder an
    unfinished run listed as its own; a record that fails its checks is set aside. Returns
    one line per thing done, for the command to report."""
    top, _ = runstate.locate()
    if not runstate.check_existing(top):
        return []
    done = _sweep_scratch(top / SCRATCH)
    if not (top / TXN).is_dir():
        return done
    folder = runstate.folder(TXN)
    with _locked(folder):
        return done + _recover(folder, _root())


def _sweep_scratch(folder: Path) -> list[str]:
    """Remove scratch folders whose run is gone (the process id is in the name)."""
    if not folder.is_dir():
        return []
    runstate.check_existing(folder)
    gone = []
    for entry in folder.iterdir():
        pid = entry.name.split("-")[1] if entry.name.count("-") >= 2 else ""
        if pid.isdigit() and not alive(int(pid)) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
            gone.append(entry)
    return [f"removed {len(gone)} scratch folder(s) of interrupted runs"] if gone else []


def _recover(folder: Path, root: Path | None) -> list[str]:
    done: list[str] = []
    finished = _finish(folder, root)
    if finished:
        done.append(finished)
    for tmp in folder.glob("*.tmp"):
        tmp.unlink(missing_ok=True)
    for intent in sorted(folder.glob("intent-*.json")):
        try:
            what, token, places = parse(runstate.read_private(intent), "places")
            found = [paths(Place(p["base"], p["target"]), token, root) for p in places]
        except (Rejected, runstate.RunStateRefused) as exc:
            done.append(_set_aside(intent, exc))
            continue
        left = [p for f in found for p in (f.staged, f.backup) if os.path.lexists(p)]
        for path in left:
            remove(path)
        intent.unlink(missing_ok=True)
        if left:
            done.append(f"removed {len(left)} staging folder(s) of an interrupted {what}")
    return done


def _finish(folder: Path, root: Path | None) -> str:
    """Swap in what a committed journal lists, then drop the journal; what was done, or ''."""
    journal = folder / JOURNAL
    if not os.path.lexists(journal):
        return ""
    try:
        what, token, entries = parse(runstate.read_private(journal), "swaps")
        swaps = []
        for raw in entries:
            place = Place(raw["base"], raw["target"])
            found = paths(place, token, root)
            swaps.append(_Swap(place, found.target, found.staged, found.backup, raw["inode"]))
    except (Rejected, runstate.RunStateRefused) as exc:
        return _set_aside(journal, exc)
    for swap in swaps:
        _apply(swap)
    journal.unlink()
    fsync_dir(folder)
    names = ", ".join(s.target.name + "/" for s in swaps)
    return f"finished an interrupted {what} ({names})"


def _set_aside(record: Path, why: Exception) -> str:
    """Move a refused record out of the way (kept for a person to read): the next command
    works, and nothing it names was touched."""
    aside = runstate.private_dir(record.parent.parent, SET_ASIDE)
    moved = aside / f"{record.name}.{os.getpid()}"
    record.rename(moved)
    reason = str(why).split(" [", 1)[0]
    return f"set aside {record.name} (moved to {moved}): {reason}; nothing it names was touched"


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    try:
        fd = runstate.open_private(folder / TXN_LOCK, os.O_RDWR | os.O_CREAT)
    except OSError as exc:  # ELOOP: a symbolic link planted where the lock should be
        raise runstate.RunStateRefused(folder / TXN_LOCK, exc.strerror or "unusable") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _apply(swap: _Swap) -> None:
    """Put ``staged`` at ``target``; a no-op when it is there already (found by its inode)."""
    if _inode(swap.target) == swap.inode:
        return
    if _inode(swap.staged) != swap.inode:
        return  # nothing staged to put in place (never reached by a journal we wrote)
    if swap.target.exists() and not exchange(swap.staged, swap.target):
        swap.target.rename(swap.backup)
    if _inode(swap.target) != swap.inode:
        swap.staged.rename(swap.target)
    fsync_dir(swap.target.parent)


def _inode(path: Path) -> int:
    try:
        return path.stat().st_ino if path.is_dir() and not path.is_symlink() else -1
    except OSError:
        return -1


def _write_record(path: Path, data: bytes) -> None:
    runstate.write_private(path, data)
    fsync_dir(path.parent)  # the rename itself durable: a journal is the commit point
