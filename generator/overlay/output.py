"""Write the overlaid document: format by file extension, replace the target atomically.

Atomic replacement (temp file in the same folder, then ``os.replace``) means a reader never sees
half a document and a failed run leaves the previous output exactly as it was.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Any

from generator.diagnostics import CodegenError, Diagnostic
from generator.loader import dump_json, dump_yaml

FORMATS = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}


def output_format(path: str | os.PathLike[str]) -> str:
    """``json`` or ``yaml`` from the extension; anything else is an error before work starts."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        message = f"output must end in .json, .yaml or .yml, not {suffix or '(no extension)'!r}"
        raise CodegenError(Diagnostic("output-invalid", "error", str(path), "", message))
    return FORMATS[suffix]


def render(document: Any, path: str | os.PathLike[str]) -> str:
    """JSON with 2-space indent or block-style YAML, keys in document order."""
    return dump_json(document) if output_format(path) == "json" else dump_yaml(document)


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` via a sibling temp file and ``os.replace``."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # 0o666 before the umask, like any new file; an existing file keeps its own mode.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        message = f"cannot write: {exc.strerror or exc}"
        raise CodegenError(
            Diagnostic("output-unwritable", "error", str(path), "", message)
        ) from None
