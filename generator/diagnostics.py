"""Diagnostics as data: a stable id, a level, a location and a one-line message.

Every failure the generator reports to a user is a :class:`Diagnostic`; fatal ones travel inside a
:class:`CodegenError`, which the CLI turns into one line on stderr and exit code 2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["error", "warning", "info"]

_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u0085]")
MAX_MESSAGE = 300  # characters of a message in a diagnostic's line


def one_line(text: object, limit: int = MAX_MESSAGE) -> str:
    """Fold any value into a single printable line, shortened; used for every untrusted fragment."""
    folded = str(text)
    if not folded.isprintable():  # each character _UNPRINTABLE finds is one of these
        folded = _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}", folded)
    return folded if len(folded) <= limit else folded[: limit - 1] + "…"


_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>!#|~{}&])")
_LIVE = re.compile(r"(@|://|(?i:www)\.)")
_JOINER = "\u2060"  # WORD JOINER: invisible, and no mention, autolink or e-mail link spans it


def markdown_line(text: object, limit: int = MAX_MESSAGE) -> str:
    """Any text as inert Markdown on one line (a table cell included): every character that
    could open a code span, emphasis, link, image, HTML or a cell is escaped, and a word joiner
    after ``@``, ``://`` and ``www.`` keeps GitHub from making a mention or a link of it."""
    escaped = _MARKDOWN_PUNCTUATION.sub(r"\\\1", one_line(text, limit))
    return _LIVE.sub(_break, escaped)


def _break(match: re.Match[str]) -> str:
    found = match.group(1)
    return found + _JOINER if found == "@" else found[:-1] + _JOINER + found[-1]


def escape_pointer_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    """Build an RFC 6901 JSON pointer from raw tokens."""
    return "".join("/" + escape_pointer_token(t) for t in tokens)


def join_pointer(base: str, *tokens: str | int) -> str:
    return base + pointer(*tokens)


def split_pointer(ptr: str) -> list[str]:
    if ptr in ("", "#"):
        return []
    if ptr.startswith("#"):
        ptr = ptr[1:]
    if not ptr.startswith("/"):
        raise ValueError(f"not a JSON pointer: {ptr!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]


def resolve_pointer(doc: Any, ptr: str) -> Any:
    """Follow a JSON pointer; raises KeyError naming the first missing token."""
    node = doc
    for token in split_pointer(ptr):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif (
            isinstance(node, list)
            and token.isascii()
            and token.isdigit()
            and int(token) < len(node)
        ):
            node = node[int(token)]
        else:
            raise KeyError(token)
    return node


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about an input: ``id`` is stable kebab-case, safe to match on in scripts."""

    id: str
    level: Level
    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}#{self.pointer}" if self.pointer else self.file
        return f"{one_line(where, 400)}: {self.level}: {one_line(self.message)} [{self.id}]"

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "level": self.level,
            "file": self.file,
            "pointer": self.pointer,
            "message": one_line(self.message),
        }


class CodegenError(Exception):
    """A fatal input problem: the CLI prints the first diagnostic and exits 2."""

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic]) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = (
            (diagnostics,) if isinstance(diagnostics, Diagnostic) else tuple(diagnostics)
        )
        if not self.diagnostics:
            raise ValueError("CodegenError needs at least one diagnostic")
        super().__init__(str(self.diagnostics[0]))

    def __reduce__(self) -> tuple[type[CodegenError], tuple[tuple[Diagnostic, ...]]]:
        # Raised in model worker processes: pickle the diagnostics, not the message.
        return (type(self), (self.diagnostics,))

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]

    def summary(self) -> str:
        """One line: the first diagnostic, and how many more there are."""
        more = len(self.diagnostics) - 1
        return str(self.first) + (f" (and {more} more)" if more else "")


def error(id: str, file: str, ptr: str, message: str) -> CodegenError:
    return CodegenError(Diagnostic(id, "error", file, ptr, message))
