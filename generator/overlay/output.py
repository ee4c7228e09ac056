"""Write the overlaid document: format by file extension, replace the target atomically.

Atomic replacement (temp file in the same folder, then ``os.replace``) means a reader never sees
half a document and a failed run leaves the previous output exactly as it was.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from generator import files
from generator.diagnostics import CodegenError, Diagnostic
from generator.document.loader import dump_json, dump_yaml

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
    """Write ``text`` to ``path`` atomically; an OS failure is a one-line diagnostic."""
    try:
        files.write_atomic(Path(path), text, make_parents=False)  # a typo'd folder is an error
    except OSError as exc:
        message = f"cannot write: {exc.strerror or exc}"
        raise CodegenError(
            Diagnostic("output-unwritable", "error", str(path), "", message)
        ) from None
