"""Journal and intent records that cannot be aimed at anything a run did not make.

A record names a target folder relative to its base, and a token: the staging and backup
folders are derived from them (``.NAME.txn-TOKEN`` and ``.NAME.was-TOKEN`` beside the target),
never stored. The base is the project root (stored as ``""``), or, for an output folder
outside the project, that folder's parent, and then only a marked output (a folder holding
the marker every generation writes) or a folder inside another project (a project root, the
base then, holds ``spec/cube-codegen.yaml``; a command given ``--config`` elsewhere) may be
the target. Every record is checked before
anything is removed or swapped: a token of the wrong shape, a path that climbs (``..``), is
absolute, or passes through a symbolic link, a base-less record outside a project, an
unmarked outside target: the whole record is refused, and the recovery sets it aside.
A copied project finishes nothing of the original's: paths are relative to the project, and a
swap also needs the staged folder's inode, which a copy does not keep.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from generator import DEFAULT_CONFIG, OUTPUT_MARKER

VERSION = 2
_TOKEN = re.compile(r"[A-Za-z0-9_]{1,40}\Z")
_WHAT = ("generate", "update", "keep", "learn")  # the commands that run a transaction


class Rejected(ValueError):
    """A record that does not parse or names something a transaction could not have made."""


@dataclass(frozen=True)
class Place:
    """Where one swap happens: ``target`` relative to ``base`` ("" = the project root)."""

    base: str
    target: str

    def as_json(self) -> dict[str, str]:
        return {"base": self.base, "target": self.target}


@dataclass(frozen=True)
class Paths:
    target: Path
    staged: Path
    backup: Path


def place_of(target: Path, root: Path | None, *, marked: bool) -> Place:
    """The record of ``target`` (absolute, resolved) for a run whose project root is ``root``;
    a folder outside the project must be a marked output (``marked``), or it is refused."""
    if root is not None and target.is_relative_to(root) and target != root:
        return Place("", target.relative_to(root).as_posix())
    if marked:
        return Place(str(target.parent), target.name)
    other = next((p for p in target.parents if _project(p)), None)  # ``--config`` elsewhere
    if other is None:
        raise Rejected(f"{target} is in no project and not an output of cube-codegen")
    return Place(str(other), target.relative_to(other).as_posix())


def paths(place: Place, token: str, root: Path | None, *, staging: bool = False) -> Paths:
    """The three folders a checked record names; raises :class:`Rejected`. ``staging``: the
    transaction is making them now (an outside output's marker is not written yet)."""
    if not _TOKEN.match(token):
        raise Rejected("a token of the wrong shape")
    rel = PurePosixPath(place.target)
    if not place.target or rel.is_absolute() or any(p in ("", ".", "..") for p in rel.parts):
        raise Rejected(f"target {place.target!r} is not a plain relative path")
    if "\0" in place.target + place.base or "\\" in place.target:
        raise Rejected("a path with a forbidden character")
    if place.base == "":
        if root is None:
            raise Rejected("a project-relative record outside any project")
        base = root
    elif os.path.isabs(place.base) and os.path.normpath(place.base) == place.base:
        base = Path(place.base)
    else:
        raise Rejected(f"base {place.base!r} is not an absolute, normal path")
    target = base.joinpath(*rel.parts)
    if os.path.realpath(target.parent) != str(target.parent):
        raise Rejected(f"{target.parent} passes through a symbolic link")
    found = Paths(
        target,
        target.with_name(f".{target.name}.txn-{token}"),
        target.with_name(f".{target.name}.was-{token}"),
    )
    marked = any(_marked(p) for p in (found.target, found.staged, found.backup))
    if place.base and not staging and not marked and not _project(base):
        raise Rejected(f"{target} is in no project and not an output of cube-codegen")
    return found


def _project(folder: Path) -> bool:
    """Whether ``folder`` is a project root (holds the configuration as a plain file)."""
    try:
        return stat.S_ISREG(os.lstat(folder / DEFAULT_CONFIG).st_mode)
    except OSError:
        return False


def _marked(folder: Path) -> bool:
    try:
        info = os.lstat(folder)
        return stat.S_ISDIR(info.st_mode) and stat.S_ISREG(os.lstat(folder / OUTPUT_MARKER).st_mode)
    except OSError:
        return False


def parse(data: bytes | None, key: str) -> tuple[str, str, list[dict[str, Any]]]:
    """(what, token, entries) of a record written by this version; raises :class:`Rejected`."""
    try:
        record = json.loads(data or b"")
    except (ValueError, UnicodeDecodeError):
        raise Rejected("does not parse as JSON") from None
    if not isinstance(record, dict) or record.get("version") != VERSION:
        raise Rejected("is not a record of this version of cube-codegen")
    entries, token = record.get(key), record.get("token")
    if not isinstance(entries, list) or not isinstance(token, str):
        raise Rejected(f"has no {key!r} list or token")
    for entry in entries:
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("base"), str)
            and isinstance(entry.get("target"), str)
        ):
            raise Rejected(f"an entry of {key!r} is not a base and a target")
        if key == "swaps" and type(entry.get("inode")) is not int:
            raise Rejected("a swap without an inode")
    what = record.get("what")
    return (what if what in _WHAT else "run"), token, entries


def dump(what: str, token: str, key: str, entries: list[dict[str, Any]]) -> bytes:
    record = {"version": VERSION, "what": what, "token": token, key: entries}
    return json.dumps(record).encode("utf-8")
