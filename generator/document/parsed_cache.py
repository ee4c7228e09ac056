"""YAML documents kept parsed between runs, as Python keeps ``.pyc`` files for modules.

Parsing a large YAML document is a fifth of a full generation (the platform document: about
0.1 s of YAML against 10 ms to read the same data as JSON). What a document parsed to is kept
in the private run state (``documents/``, see :mod:`generator.runstate`) as JSON, keyed by a
sha256 of the document's bytes and of everything else that decides the result (the parser's
version and the loader's limits), so a changed document is parsed again. An entry is used only
from a file the caller owns and no one else can write, and only when its HMAC-SHA256, keyed
with this installation's secret, matches; anything else is parsed again. Only a document that
parsed without error is kept, and only when its data reads back from JSON exactly as it is.
A cache that cannot be read or written is ignored: it never changes what a run reads.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator import runstate

FOLDER = "documents"  # in the run state
MIN_BYTES = 64 * 1024  # smaller documents parse in a few milliseconds: not worth a file
KEEP = 32  # entries; the least recently used beyond these are removed when one is added
_FORMAT = b"cube-codegen parsed document 1\0"


def parsed(data: bytes, parse: Callable[[], Any]) -> Any:
    """What ``parse()`` makes of the document ``data``: kept from an earlier run, or parsed
    (raising as ``parse`` does) and kept for the next one."""
    if len(data) < MIN_BYTES:
        return parse()
    name = key(data)
    document = load(name)
    if document is None:
        document = parse()
        store(name, document)
    return document


def key(data: bytes) -> str:
    """The entry's name: the document's bytes and what decides its parse besides them."""
    return hashlib.sha256(_FORMAT + reader_settings() + b"\0" + data).hexdigest()


READERS = ("loader.py", "parse_rules.py", "yaml_text.py", "yaml_nodes.py")  # our reading code


@functools.cache
def reader_settings() -> bytes:
    """The parser's version and the loader's code (its rules and limits): a changed rule is
    never answered from the cache."""
    here = Path(__file__).parent
    code = b"".join((here / n).read_bytes() for n in READERS)
    return f"{parser_version()} {hashlib.sha256(code).hexdigest()}".encode()


def parser_version() -> str:
    """PyYAML's distribution (its ``*.dist-info`` name: the version) and the files of its
    package (its C extension, when built), found on ``sys.path`` without importing it: reading
    a document kept parsed never loads the parser."""
    for entry in sys.path:
        folder = os.path.join(entry or ".", "yaml")
        try:
            files = sorted(n for n in os.listdir(folder) if not n.startswith("__pycache__"))
        except OSError:
            continue
        if "__init__.py" in files:
            return " ".join([*dist_infos(entry, _is_pyyaml), *files])
    return "PyYAML not found"


def dist_infos(entry: str, wanted: Callable[[str], bool]) -> list[str]:
    """The ``*.dist-info`` names (a distribution's name and version) ``wanted`` picks in the
    ``sys.path`` entry ``entry``, sorted; none where it cannot be listed. Versions read so
    never import what they name."""
    try:
        names = os.listdir(entry or ".")
    except OSError:
        return []
    return sorted(n for n in names if n.endswith(".dist-info") and wanted(n))


def _is_pyyaml(name: str) -> bool:
    return name.lower().startswith("pyyaml-")


def load(name: str, where: str = FOLDER) -> Any | None:
    """The data of entry ``name`` (in the run state's folder ``where``); None when there is
    none to trust."""
    payload = load_payload(name, where)
    return None if payload is None else json.loads(payload)


def store(name: str, document: Any, where: str = FOLDER) -> None:
    """Keep ``document`` (plain JSON data) as entry ``name`` in the run state's folder
    ``where``, when JSON gives it back exactly."""
    try:
        payload = json.dumps(document, ensure_ascii=False, allow_nan=False).encode()
        if json.loads(payload) != document:
            return
    except (ValueError, TypeError, RecursionError):
        return
    store_payload(name, payload, where)


def load_payload(name: str, where: str, suffix: str = ".json") -> bytes | None:
    """The bytes of entry ``name`` (``<name><suffix>`` in the run state's folder ``where``),
    signed by this installation; None when there is none to trust."""
    try:
        path, secret = runstate.folder(where) / f"{name}{suffix}", runstate.secret_key()
    except (OSError, runstate.RunStateRefused):
        return None
    return runstate.read_signed(path, name.encode(), secret)


def store_payload(name: str, payload: bytes, where: str, suffix: str = ".json") -> None:
    """Keep ``payload`` as entry ``name`` (``<name><suffix>``), signed, in the run state's
    folder ``where``."""
    try:
        folder, secret = runstate.folder(where), runstate.secret_key()
    except (OSError, runstate.RunStateRefused):
        return
    if runstate.write_signed(folder / f"{name}{suffix}", name.encode(), secret, payload):
        _prune(folder, suffix)


def _prune(folder: Path, suffix: str = ".json") -> None:
    """Remove the least recently used entries beyond :data:`KEEP`. Runs sharing the run state
    prune it at once: an entry another run removed meanwhile is simply gone, never an error,
    and pruning is housekeeping, so nothing it meets fails the run."""
    with contextlib.suppress(OSError):
        with os.scandir(folder) as listing:
            names = [e.path for e in listing if e.name.endswith(suffix)]
        if len(names) <= KEEP:
            return
        aged = []
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                aged.append((os.stat(name).st_mtime_ns, name))
        aged.sort()
        for _, name in aged[: len(aged) - KEEP]:
            Path(name).unlink(missing_ok=True)
