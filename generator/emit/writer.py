"""Write a generated tree atomically, and compare one with what is on disk."""

from __future__ import annotations

from pathlib import Path

from generator import OUTPUT_MARKER
from generator.emit.tree_files import is_tool_artifact
from generator.transaction import Transaction, recover

MARKER = OUTPUT_MARKER
"""Written into every output folder: only a folder holding it (or an empty one) is replaced."""
MARKER_TEXT = "This folder is written by cube-codegen and replaced whole on every run.\n"
_RECORD_HEAD = "Files it wrote (any other file here stops the next run, unless --force):\n"


def marker_text(files: dict[str, str]) -> str:
    """The marker: what the folder is, and the files this run wrote (the next run's record of
    what is ours to replace)."""
    return MARKER_TEXT + _RECORD_HEAD + "".join(f"{rel}\n" for rel in sorted(files))


def _recorded(folder: Path) -> set[str] | None:
    """The files the last run recorded in the marker; None for a marker without a record."""
    try:
        text = (folder / MARKER).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if _RECORD_HEAD not in text:
        return None
    return set(text.split(_RECORD_HEAD, 1)[1].splitlines())


def _strays(folder: Path, files: dict[str, str]) -> list[str]:
    """Files in an output folder that neither the last run recorded nor this run writes (a
    ``.git``, notes, a hand-made file): replacing the folder would delete them."""
    recorded = _recorded(folder)
    if recorded is None:
        return []
    found = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if (path.is_file() or path.is_symlink()) and not is_tool_artifact(rel.parts):
            name = rel.as_posix()
            if name not in recorded and name not in files:
                found.append(name)
    return found


def check_output_dir(
    out_dir: Path, files: dict[str, str] | None = None, *, force: bool = False
) -> None:
    """Refuse an output folder whose replacement could lose something that is not ours.

    Never the current folder or one of its parents; otherwise a folder that does not exist, is
    empty, or holds our marker file. With the ``files`` about to be written, a marked folder that
    holds a file the last run did not record and this one does not write is refused too, unless
    ``force``. Raises :class:`CodegenError` (exit 2) naming the folder.
    """
    target = out_dir.resolve()
    cwd = Path.cwd().resolve()
    if cwd.is_relative_to(target):
        where = "the current folder" if target == cwd else "a parent of the current folder"
        raise _refuse(out_dir, f"is {where}; an output folder is replaced whole, choose another")
    if not target.exists():
        return
    if not target.is_dir():
        raise _refuse(out_dir, "exists and is not a folder; refusing to replace it")
    if (target / MARKER).is_file():
        strays = [] if files is None or force else _strays(target, files)
        if strays:
            shown = ", ".join(strays[:3]) + (
                f" and {len(strays) - 3} more" if len(strays) > 3 else ""
            )
            raise _refuse(
                out_dir,
                f"holds {len(strays)} file(s) cube-codegen did not write ({shown}); the folder is "
                "replaced whole, so they would be lost: move them out, or run generate --force",
            )
        return
    if any(target.iterdir()):
        raise _refuse(
            out_dir,
            f"is not empty and holds no {MARKER} marker, so it is not an earlier output of "
            "cube-codegen; refusing to replace it (empty it or choose another --out)",
        )


def check_inputs_outside(out_dir: Path, inputs: list[Path]) -> None:
    """Refuse a run that reads an input from inside its output folder: the folder is replaced
    whole, so the run would delete what it reads (checked before any work, nothing written)."""
    target = out_dir.resolve()
    for path in inputs:
        if path.exists() and path.resolve().is_relative_to(target):
            raise _refuse(
                out_dir,
                f"holds the input {path}, and an output folder is replaced whole; move the input "
                "out or choose another --out",
            )


def _refuse(out_dir: Path, message: str) -> Exception:
    from generator.diagnostics import error

    return error("out-refused", str(out_dir), "", message)


def write_tree(out_dir: Path, files: dict[str, str], *, force: bool = False) -> None:
    """Replace ``out_dir`` with exactly ``files`` (and the marker): built beside it, then swapped.

    A failure while building leaves the old tree untouched; every staged file and folder is
    on disk before the swap, which is one atomic exchange (or two renames) on one file system,
    and the old tree is removed only after the new one is in place. A run killed at any instant
    leaves the old tree or the new one; the next run removes what it had staged
    (:mod:`generator.transaction`).
    """
    check_output_dir(out_dir, files, force=force)
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    recover()
    with Transaction("generate") as txn:
        stage_tree(txn, out_dir, files, checked=True)
        txn.commit()


def stage_tree(
    txn: Transaction, out_dir: Path, files: dict[str, str], *, checked: bool = False
) -> None:
    """Write ``files`` and the marker into a folder ``txn`` will swap in for ``out_dir`` (after
    :func:`check_output_dir`, unless the caller ``checked`` already); the commit syncs them
    with everything else it staged."""
    if not checked:
        check_output_dir(out_dir, files)
    staging = txn.stage(out_dir, marked=True)
    everything = {**files, MARKER: marker_text(files)}
    txn.fill(staging, {rel: text.encode("utf-8") for rel, text in sorted(everything.items())})


def read_tree(out_dir: Path) -> dict[str, bytes]:
    if not out_dir.is_dir():
        return {}
    return {
        p.relative_to(out_dir).as_posix(): p.read_bytes()
        for p in sorted(out_dir.rglob("*"))
        if p.is_file() and not is_tool_artifact(p.relative_to(out_dir).parts)
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
