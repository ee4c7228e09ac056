"""Hand-written code that survives regeneration.

Two places beside the configuration, both inputs (generation reads them, never writes them):

* ``custom/`` — files copied as they are into the output tree, at the same path relative to the
  output folder (``spec/custom/cube_client/cube_client/helpers.py`` becomes
  ``generated/cube_client/cube_client/helpers.py``, importable as ``cube_client.helpers`` and part
  of the wheel). A custom file may not have the path of a generated one.
* ``patches/`` — kept edits of generated files: ``patches/<path>`` is the edited file and
  ``patches/<path>.base`` the generated file it was edited from (``cube-codegen keep PATH`` records
  both). Every generation merges the edit into the newly generated file, three-way (base, edited,
  new); a conflict fails the run naming the file and the hunk, before anything is written.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from generator.diagnostics import CodegenError, Diagnostic, one_line
from generator.document.config import Config
from generator.document.sandbox import inside, refuse
from generator.transaction import Transaction, recover, scratch

CUSTOM_DIR = "custom"
PATCHES_DIR = "patches"
BASE_SUFFIX = ".base"
_SKIP = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


def _fail(id: str, file: Path | str, message: str) -> CodegenError:
    return CodegenError(Diagnostic(id, "error", str(file), "", message))


def _files(root: Path) -> dict[str, Path]:
    """Relative POSIX path → file, for every regular file under ``root`` (tool caches aside).

    What lies here is copied into the package, so a linked folder is refused, and so is a file
    that leads out of ``root`` or is not a regular file (a device, a pipe).
    """
    if not root.is_dir() and not root.is_symlink():
        return {}
    found: dict[str, Path] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for folder in [Path(dirpath), *(Path(dirpath, d) for d in dirnames)]:
            if folder.is_symlink():
                raise refuse(str(folder), "", "a linked folder is not followed; refused")
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP)
        for name in filenames:
            path = Path(dirpath, name)
            inside(root, path, file=str(path), at="", what="this file")
            found[path.relative_to(root).as_posix()] = path
    return dict(sorted(found.items()))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise _fail("custom-code-unreadable", path, f"cannot read: {one_line(exc, 120)}") from None


def apply_custom_code(config: Config, files: dict[str, str]) -> dict[str, str]:
    """``files`` with the custom files added and the kept patches merged in."""
    base = Path(config.base_dir)
    out = dict(files)
    for rel, path in _files(base / CUSTOM_DIR).items():
        if rel in files:
            raise _fail(
                "custom-code-collision",
                path,
                f"{rel} is a generated file; keep an edit of it with `cube-codegen keep {rel}`",
            )
        out[rel] = _read(path)
    for rel, kept, base_file in kept_patches(base):
        if rel not in files:
            raise _fail(
                "patch-orphaned", kept, f"{rel} is no longer generated; delete the kept patch"
            )
        out[rel] = merge(files[rel], _read(base_file), _read(kept), rel, kept)
    return dict(sorted(out.items()))


def kept_patches(base_dir: Path) -> list[tuple[str, Path, Path]]:
    """(generated path, edited file, base file) for every kept patch."""
    root = Path(base_dir) / PATCHES_DIR
    found = _files(root)
    patches = []
    for rel, path in found.items():
        if rel.endswith(BASE_SUFFIX):
            if rel[: -len(BASE_SUFFIX)] not in found:
                raise _fail("patch-incomplete", path, "a base without its edited file")
            continue
        base_file = found.get(rel + BASE_SUFFIX)
        if base_file is None:
            raise _fail(
                "patch-incomplete", path, f"no {rel}{BASE_SUFFIX}: record it with cube-codegen keep"
            )
        patches.append((rel, path, base_file))
    return patches


def merge(new: str, base: str, edited: str, rel: str, kept: Path) -> str:
    """Three-way merge (``git merge-file``): the edit from ``base`` to ``edited``, onto ``new``."""
    if edited == base:
        return new
    if new == base:
        return edited
    with scratch("merge") as tmp:  # in the private run state, never the system's temp folder
        paths = []
        for name, text in (("new", new), ("base", base), ("edited", edited)):
            path = Path(tmp, name)
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        try:
            proc = subprocess.run(
                ["git", "merge-file", "-p", "-L", "generated", "-L", "base", "-L", "kept", *paths],
                capture_output=True,
                timeout=60,
                check=False,
            )
        except OSError as exc:
            raise _fail(
                "patch-merge-failed", kept, f"cannot run git: {one_line(exc, 100)}"
            ) from None
    if proc.returncode < 0 or proc.returncode > 127:
        message = one_line(proc.stderr.decode("utf-8", "replace"), 120)
        raise _fail("patch-merge-failed", kept, f"git merge-file failed: {message}")
    merged = proc.stdout.decode("utf-8")
    if proc.returncode:
        raise _fail("patch-conflict", kept, f"{rel}: {conflict_hunks(merged)}")
    return merged


def conflict_hunks(merged: str) -> str:
    """``hunk at lines A-B (generated: ...) conflicts`` for the first conflict, plus a count."""
    lines = merged.splitlines()
    hunks: list[tuple[int, int, str]] = []
    start = None
    for number, line in enumerate(lines, 1):
        if line.startswith("<<<<<<< "):
            start = number
        elif line.startswith(">>>>>>> ") and start is not None:
            first = lines[start] if start < len(lines) else ""
            hunks.append((start, number, first.strip()))
            start = None
    if not hunks:
        return "the kept edit conflicts with the regenerated file"
    a, b, text = hunks[0]
    more = f" (and {len(hunks) - 1} more)" if len(hunks) > 1 else ""
    return (
        f"kept edit conflicts with the regenerated file in the hunk at lines {a}-{b} of the merge "
        f"(generated side starts {one_line(text, 60)!r}){more}; "
        "re-apply the edit and record it again with cube-codegen keep"
    )


def keep(
    config: Config, edits: dict[str, str], pristine: dict[str, str]
) -> list[tuple[Path, Path]]:
    """Record each of ``edits`` (generated path → edited text) as a kept edit, with its base
    (the file as generated without custom code, from ``pristine``); returns (kept, base) pairs.

    The patches folder is replaced whole, so a run killed at any instant leaves every edit
    recorded or none (:mod:`generator.transaction`)."""
    for rel in edits:
        if rel not in pristine:
            raise _fail(
                "patch-not-generated", rel, "not a generated file (paths are relative to --out)"
            )
    root = Path(config.base_dir) / PATCHES_DIR
    recover()
    written = []
    with Transaction("keep") as txn:
        staged = txn.stage(root)
        if root.is_dir():
            shutil.copytree(root, staged, symlinks=True, dirs_exist_ok=True)
        for rel, text in sorted(edits.items()):
            kept = staged / rel
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.with_name(kept.name + BASE_SUFFIX).write_text(pristine[rel], encoding="utf-8")
            kept.write_text(text, encoding="utf-8")
            written.append((root / rel, root / (rel + BASE_SUFFIX)))
        txn.commit()
    return written
