"""Stat records: which files the no-op check may take as unchanged without reading them.

A file whose size, modification and change times (in nanoseconds) and inode are what a run
recorded is taken as unchanged, as git's index does; a record that differs sends the check back
to reading and hashing. Editing a file sets its change time, which no program can set back, so
an edit that keeps the size and restores the modification time still differs. One case remains:
a file system stamps times from a clock that ticks coarsely (a few milliseconds; whole seconds
on some), so a same-size edit within the tick in which a record was taken could leave every
field as recorded. Such a "racy" record (its times within :data:`RACY_NS` of when it was taken,
or :data:`RACY_WHOLE_NS` for whole-second times) is never trusted: those files are hashed until
a later run records them again, past the window.

Standard library only: the no-op path imports it before anything heavy.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping

RACY_NS = 100_000_000  # far above a coarse kernel clock's tick (1-10 ms)
RACY_WHOLE_NS = 2_000_000_000  # times in whole seconds: a 1 s or 2 s (FAT) file system

Record = list[int]  # size, mtime_ns, ctime_ns, inode


def record_of(path: str) -> Record | None:
    """The stat record of a regular file; None for a missing file or any other kind."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _record(st) if stat.S_ISREG(st.st_mode) else None


def _record(st: os.stat_result) -> Record:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def records(paths: Iterable[str]) -> dict[str, Record | None]:
    return {p: record_of(p) for p in paths}


def tree_records(root: str, skip: Callable[[tuple[str, ...]], bool]) -> dict[str, Record] | None:
    """Records of every regular file under ``root`` keyed by relative POSIX path (files for which
    ``skip(parts)`` holds, and folders whose every file it would skip, left out); None when the
    tree holds a symbolic link (the check then reads the tree as the full comparison does)."""
    found: dict[str, Record] = {}
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, parts = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                rel = (*parts, entry.name)
                if entry.is_symlink():
                    return None
                if entry.is_dir(follow_symlinks=False):
                    if not skip((*rel, "")):  # a folder whose files are all skipped is pruned
                        stack.append((entry.path, rel))
                elif entry.is_file(follow_symlinks=False) and not skip(rel):
                    found["/".join(rel)] = _record(entry.stat(follow_symlinks=False))
    return found


def trusted(recorded: object, current: Mapping[str, Record | None], taken_ns: object) -> bool:
    """Whether ``current`` is exactly ``recorded`` (same files, same records, none missing) and
    no record is racy with respect to ``taken_ns``, when it was taken."""
    if not isinstance(taken_ns, int) or not isinstance(recorded, dict) or recorded != current:
        return False
    return not any(r is None or racy(r, taken_ns) for r in current.values())


def racy(record: Record, taken_ns: int) -> bool:
    """Whether a same-size edit after ``taken_ns`` could have left ``record`` unchanged."""
    newest = max(record[1], record[2])
    whole = record[1] % 1_000_000_000 == 0 or record[2] % 1_000_000_000 == 0
    return newest >= taken_ns - (RACY_WHOLE_NS if whole else RACY_NS)
