"""Long statements already broken, kept between runs as compiled templates are.

Breaking a statement that does not fit (:mod:`generator.emit.layout`) parses it and lays it out:
about a sixth of a large document's whole run, spent again on every run for the same statements.
The templates' filters ask :func:`fit` and :func:`fit_item` here instead: a statement this run
or an earlier one broke (the same text, indent, width and kind) is answered from memory. What a
package's run used is kept in the private run state (``layout/``, through the signed entries of
:mod:`generator.document.parsed_cache`), named by the package and a hash of the layout code, so
a changed layout rule is never answered from the cache. The entries become generated code, so
one is used only from a file the caller owns, signed with this installation's secret; anything
else is broken again. A cache that cannot be read or written is ignored: it never changes what
a run writes, only how fast.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.document import parsed_cache
from generator.emit import layout

FOLDER = "layout"  # in the run state
SUFFIX = ".marshal"
_FORMAT = "cube-codegen layout 2"
Key = tuple[str, str, int, int]  # kind ("statement", or fit_item's kind), text, indent, width

# Every statement known, from the cache and this run: its number among the entries begin() read
# (-1 for one this run broke) and the statement broken
_known: dict[Key, tuple[int, str]] = {}
_loaded: list[Key] = []  # the keys begin() read, in order: a forked child names them by number
_read: set[int] = set()  # the numbers of the read entries asked for in this process since begin()
_broken: set[Key] = set()  # the other keys asked for in this process since begin()
_made: list[bool] = [False]  # whether this process broke a statement the cache did not hold
Entry = tuple[str, str, int, int, str]  # a key and the statement broken
Used = tuple[list[int], list[Entry], bool]  # what one process used: see used()


def fit(statement: str, indent: int = 0, *, width: int = layout.LINE_LENGTH) -> str:
    """:func:`generator.emit.layout.fit`, remembered."""
    if indent + len(statement) <= width:
        return statement
    key = ("statement", statement, indent, width)
    return _remembered(key, lambda: layout.fit(statement, indent, width=width))


def fit_item(item: str, indent: int, *, kind: str = "arg", width: int = layout.LINE_LENGTH) -> str:
    """:func:`generator.emit.layout.fit_item`, remembered."""
    if indent + len(item) + 1 <= width:
        return item + ","
    key = (kind, item, indent, width)
    return _remembered(key, lambda: layout.fit_item(item, indent, kind=kind, width=width))


def _remembered(key: Key, make: Callable[[], str]) -> str:
    found = _known.get(key)
    if found is None:
        found = _known[key] = (-1, make())
        _made[0] = True
    if found[0] < 0:
        _broken.add(key)
    else:  # a number: what used() hands over, with no look-up of the key then
        _read.add(found[0])
    return found[1]


def begin(package: str) -> None:
    """Start a run for ``package``: what its last run kept, and nothing else, is known."""
    _forget()
    for entry in _entries(parsed_cache.load_payload(_name(package), FOLDER, SUFFIX)):
        # each checked inline, exact types (payments' 19,158 entries: about 10 ms, against
        # three times that through a checking function with generators)
        if type(entry) is tuple and len(entry) == 5:
            kind, text, indent, width, broken = entry
            if (
                type(kind) is type(text) is type(broken) is str
                and type(indent) is type(width) is int
            ):
                key = (kind, text, indent, width)
                _known[key] = (len(_loaded), broken)
                _loaded.append(key)


def used() -> Used:
    """What this process asked for since :func:`begin`: the numbers of the entries begin()
    read (in :data:`_loaded`), the entries it broke itself, and whether it broke any. A forked
    child hands this to its parent, whose :data:`_loaded` is the same list: numbers, not a
    large package's megabytes of statements, cross the pipe."""
    return list(_read), [(*key, _known[key][1]) for key in _broken], _made[0]


def finish(package: str, *others: Used) -> None:
    """Keep what the run used (this process's and ``others``', a child's, which forked after
    the same :func:`begin`), when any of it was new; then forget it all."""
    if _made[0] or any(their_made for _, _, their_made in others):
        read, entries, _ = used()
        for their_read, their_entries, _ in others:
            read += their_read
            entries += their_entries
        # each entry once (without a fork, a child's share is this process's own)
        unique = {e[:4]: e for e in entries}
        for i in read:
            key = _loaded[i]
            unique[key] = (*key, _known[key][1])
        payload = marshal.dumps((_FORMAT, list(unique.values())))
        parsed_cache.store_payload(_name(package), payload, FOLDER, SUFFIX)
    _forget()


def _forget() -> None:
    _known.clear()
    _loaded.clear()
    _read.clear()
    _broken.clear()
    _made[0] = False


def _entries(payload: bytes | None) -> list[Any]:
    """The entries a signed payload holds: marshal data (a third of the time JSON takes to
    read payments' 8 MB), read only once its signature has matched; anything else, none."""
    try:
        data = marshal.loads(payload) if payload is not None else None
    except (ValueError, EOFError, TypeError):
        return []
    if type(data) is tuple and len(data) == 2 and data[0] == _FORMAT and type(data[1]) is list:
        return data[1]
    return []


def _name(package: str) -> str:
    return hashlib.sha256(f"{package}\0{_layout_hash()}".encode()).hexdigest()


@functools.cache
def _layout_hash() -> str:
    """The layout code's and the parser's (Python's minor version) hash: a changed rule is never
    answered from the cache."""
    here = Path(__file__).parent
    code = b"".join((here / n).read_bytes() for n in ("layout.py", "layout_cache.py"))
    return hashlib.sha256(code + sys.version.encode()).hexdigest()
