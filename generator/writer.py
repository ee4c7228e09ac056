"""Write a generated tree atomically, and compare one with what is on disk."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

# Caches that linters and test runners leave inside the tree; never part of the output.
TOOL_CACHES = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


def _is_tool_artifact(parts: tuple[str, ...]) -> bool:
    return any(part in TOOL_CACHES or part.endswith(".egg-info") for part in parts)


def write_tree(out_dir: Path, files: dict[str, str]) -> None:
    """Replace ``out_dir`` with exactly ``files``: built beside it, then swapped in by rename.

    A failure while building leaves the old tree untouched; the swap itself is two renames on
    one file system, and the old tree is removed only after the new one is in place.
    """
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    retired = out_dir.parent / f".{out_dir.name}.old-{staging.name.rsplit('-', 1)[-1]}"
    moved_old = False
    try:
        staging.chmod(0o777 & ~_umask())  # mkdtemp makes 0700; the output is an ordinary folder
        for rel, text in sorted(files.items()):
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
        if out_dir.exists():
            out_dir.rename(retired)
            moved_old = True
        staging.rename(out_dir)
    except BaseException:
        if moved_old and not out_dir.exists():
            retired.rename(out_dir)  # the swap failed half-way: put the old tree back
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, data: str | bytes, *, make_parents: bool = True) -> None:
    """Replace one file by renaming a finished, fsynced sibling temporary file over it.

    A reader sees the old file or the new one, never half of one; an existing file keeps its
    permissions (a new one gets 0644). The one single-file writer every command uses.
    """
    if make_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o7777 if path.exists() else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_tree(out_dir: Path) -> dict[str, bytes]:
    if not out_dir.is_dir():
        return {}
    return {
        p.relative_to(out_dir).as_posix(): p.read_bytes()
        for p in sorted(out_dir.rglob("*"))
        if p.is_file() and not _is_tool_artifact(p.relative_to(out_dir).parts)
    }


def diff_tree(out_dir: Path, files: dict[str, str]) -> list[str]:
    """Lines ``changed|missing|extra PATH`` for every file that differs; empty when identical."""
    on_disk = read_tree(out_dir)
    lines = []
    for rel in sorted(set(on_disk) | set(files)):
        if rel not in on_disk:
            lines.append(f"missing {rel}")
        elif rel not in files:
            lines.append(f"extra   {rel}")
        elif on_disk[rel] != files[rel].encode("utf-8"):
            lines.append(f"changed {rel}")
    return lines
