"""The one rule for every file the tool reads from or writes into the project.

A path from the configuration, a `$ref`, a custom-code file or a kept patch is resolved (``..``
and symlinks followed) and must then lie inside its tree: the project (the folder that holds the
configuration's folder ``spec/``) for configured files, the document's folder for `$ref`s, the
hand-written folder for custom code and patches, or the folder a maintainer widened it to with
``--ref-root``. What it names must be a regular
file: a device (``/dev/zero``), a pipe or a folder would hang the run or read without end.
Every refusal has the same diagnostic id, so a maintainer greps one word.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from generator.diagnostics import CodegenError, Diagnostic

SANDBOX_ID = "path-outside-tree"


def refuse(file: str, at: str, message: str) -> CodegenError:
    return CodegenError(Diagnostic(SANDBOX_ID, "error", file, at, message))


def relative_name(value: str) -> str | None:
    """Why ``value`` cannot be a path relative to the project (None when it can)."""
    if not value or "\x00" in value or "\\" in value or any(ord(c) < 32 for c in value):
        return "is not a plain relative path"
    if PurePosixPath(value).is_absolute() or value.startswith("~"):
        return "must be relative to the configuration's folder"
    return None


def inside(root: Path, candidate: Path, *, file: str, at: str, what: str) -> Path:
    """``candidate`` resolved; refused unless inside ``root`` and, when it exists, a regular file.

    ``file`` and ``at`` say where the path was written (the referring file and its pointer).
    Checked after resolution, so a symlink inside the tree that points out of it is refused.
    """
    try:
        resolved = candidate.resolve()
        tree = root.resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL byte
        raise refuse(file, at, f"{what} cannot be resolved: {exc}") from None
    if not resolved.is_relative_to(tree):
        raise refuse(
            file,
            at,
            f"{what} leaves the folder {tree} (after `..` and symlinks); refused "
            "(a maintainer may widen it with --ref-root)",
        )
    try:
        mode = os.stat(resolved).st_mode
    except OSError:
        return resolved  # missing: the caller says so in its own words
    if not stat.S_ISREG(mode):
        raise refuse(file, at, f"{what} is refused: it names a device, pipe or folder")
    return resolved


def regular_file(path: Path, file: str) -> None:
    """Refuse ``path`` unless it is a regular file (checked before anything is read)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise refuse(file, "", "is not a regular file (a device, pipe or folder); refused")
