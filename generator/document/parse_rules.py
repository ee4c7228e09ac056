"""What every document reader shares: the bounds on untrusted text, and the failures a parser
hands back to the loader (:mod:`generator.document.loader`), which words them as diagnostics.

Kept apart from both readers so that reading a JSON document (or a YAML one already kept
parsed, :mod:`generator.document.parsed_cache`) never loads the YAML parser.
"""

from __future__ import annotations

import re

from generator.diagnostics import one_line

MAX_BYTES = 20 * 1024 * 1024
MAX_DEPTH = 256
# Values after YAML aliases are expanded: nine aliases of nine aliases of ... ("billion laughs")
# stay small as text and as parsed objects, but explode when copied into plain data.
MAX_NODES = 3_000_000
SURROGATE = re.compile("[\ud800-\udfff]")


class DuplicateKey(Exception):
    """A mapping names the same key twice; the parser would silently keep only the last."""

    def __init__(self, key: str, line: int, first_line: int | None, ptr: str = "") -> None:
        super().__init__(key)
        self.key, self.line, self.first_line, self.pointer = key, line, first_line, ptr

    def message(self) -> str:
        first = f" (first at line {self.first_line})" if self.first_line else ""
        return f"duplicate key {one_line(repr(self.key), 80)} at line {self.line}{first}"


class NonStringKey(Exception):
    """A mapping key that is a list or a mapping: no OpenAPI key is."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class Malformed(Exception):
    """Text the parser refused; the argument says why and where, in one line."""
