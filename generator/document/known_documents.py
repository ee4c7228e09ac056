"""Documents an earlier run read without error and found self-contained, known by their bytes.

A large JSON document is read with checks a clean one never needs: every object's keys compared
for duplicates while it parses, its depth and size bounded in a walk after, and every ``$ref``
checked in a second walk (payments' 4 MB: about 25, 40 and 58 ms of a 2.3 s run). A run that
found a document's bytes clean (parsed without error, every reference local and resolving, no
overlay between) records them in the private run state (``known/``, signed entries of
:mod:`generator.document.parsed_cache`), keyed by a sha256 of the bytes and of the code that
checks them; a later run reading the same bytes parses them plainly and walks neither. A YAML
document is kept parsed anyway (:mod:`generator.document.parsed_cache`); its reference walk is
spared the same way. A changed byte, a changed checking rule or an entry this installation did
not sign: everything is checked again.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.document import parsed_cache
from generator.document.loader import document_bytes, parse_document

FOLDER = "known"  # in the run state
_FORMAT = b"cube-codegen known document 1\0"
_ENTRY = {"clean": True, "self_contained": True}
_CHECKERS = ("refs.py", "known_documents.py")  # besides the loader's (parsed_cache.READERS)


@dataclass(frozen=True)
class Read:
    """A document as read, the name its bytes' entry has (None: too small to keep one), and
    whether the run state knows those bytes clean and self-contained."""

    document: Any
    name: str | None
    known: bool


def read(path: str | os.PathLike[str]) -> Read:
    """Read the document at ``path`` (as :func:`~generator.document.loader.load_document`
    does, raising as it does), plainly when its bytes are known clean."""
    data = document_bytes(path)
    name = _name(data) if len(data) >= parsed_cache.MIN_BYTES else None
    known = name is not None and parsed_cache.load(name, FOLDER) == _ENTRY
    return Read(parse_document(data, str(path), clean=known), name, known)


def remember(found: Read) -> None:
    """Record ``found``'s bytes as clean: the caller read them without error and found every
    reference local and resolving, with no overlay applied in between."""
    if found.name is not None and not found.known:
        parsed_cache.store(found.name, _ENTRY, FOLDER)


def _name(data: bytes) -> str:
    return hashlib.sha256(_FORMAT + _settings() + b"\0" + data).hexdigest()


@functools.cache
def _settings() -> bytes:
    """The loader's settings (the parser's version, its rules and limits) and the reference
    checker's code: a changed rule is never answered from the run state."""
    here = Path(__file__).parent
    code = b"".join((here / n).read_bytes() for n in _CHECKERS)
    return parsed_cache.reader_settings() + b" " + hashlib.sha256(code).hexdigest().encode()
