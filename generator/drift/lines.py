"""Source lines of JSON pointers in a YAML or JSON file, for pull-request annotations.

A pointer that does not exist in the file gets the line of its nearest existing ancestor. Lines
are found only when asked for. A JSON file is not composed as YAML (over a second for a
Box-sized document): each object or array on a pointer's way is scanned once by the C JSON
scanner, which records where its members start, so a report's pointers cost a few scans of the
objects they pass through. A YAML file is composed once (its nodes keep their marks).
"""

from __future__ import annotations

import bisect
import json
import re
from pathlib import Path

import yaml

from generator.diagnostics import split_pointer
from generator.document.loader import MAX_BYTES

_SPACE = re.compile(r"[ \t\n\r]*")
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # (value, end) at an index
_DECODE_STRING = json.decoder.scanstring  # type: ignore[attr-defined]


class LineIndex:
    """The line of a pointer in one file; every line is None when the file is not readable."""

    def __init__(self, text: str | None, is_json: bool = False) -> None:
        self._text = text
        self._json = _JsonLines(text) if text is not None and is_json else None
        self._yaml: yaml.Node | None = None
        self._composed = False

    @classmethod
    def of_file(cls, path: str | Path) -> LineIndex:
        """An index of ``path``; empty (every line ``None``) when it is not a readable file."""
        try:
            file = Path(path)
            if not file.is_file() or file.stat().st_size > MAX_BYTES:
                return cls(None)
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeError):
            return cls(None)
        return cls(text, is_json=text.lstrip()[:1] in ("{", "["))

    def line(self, ptr: str) -> int | None:
        """1-based line of ``ptr`` (or of its nearest existing ancestor); None without a file."""
        if self._text is None:
            return None
        try:
            tokens = split_pointer(ptr)
        except ValueError:
            tokens = []
        if self._json is not None:
            found = self._json.line(tokens)
            if found is not None:
                return found
        root = self._root()
        return None if root is None else _yaml_line(root, tokens)

    def _root(self) -> yaml.Node | None:
        if not self._composed:
            self._composed = True
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            try:
                self._yaml = yaml.compose(self._text or "", Loader=loader)
            except (yaml.YAMLError, RecursionError):
                self._yaml = None
        return self._yaml


class _JsonLines:
    """Where each member of the JSON containers on the asked pointers' way starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.members: dict[int, dict[str, int]] = {}  # container start -> member -> value start

    def line(self, tokens: list[str]) -> int | None:
        """The line of the deepest existing container member on ``tokens``' way; None when the
        text is not JSON (then the YAML reading decides)."""
        at = _SPACE.match(self.text, 0)
        pos = at.end() if at else 0
        try:
            for token in tokens:
                child = self._members(pos).get(token)
                if child is None:
                    break
                pos = child
        except (ValueError, StopIteration, RecursionError):
            return None
        return bisect.bisect_left(self.newlines, pos) + 1

    def _members(self, start: int) -> dict[str, int]:
        known = self.members.get(start)
        if known is None:
            known = self.members[start] = self._scan(start)
        return known

    def _scan(self, start: int) -> dict[str, int]:
        """Each member's value start in the object or array at ``start`` (first key wins, as the
        YAML reading has it); a scalar has none."""
        text, found = self.text, dict[str, int]()
        opening = text[start : start + 1]
        if opening not in ("{", "["):
            return {}
        closing, pos, index = ("}" if opening == "{" else "]"), _skip(text, start + 1), 0
        if text[pos : pos + 1] == closing:
            return {}
        while True:
            key = str(index)
            if opening == "{":
                key, pos = _DECODE_STRING(text, _expect(text, pos, '"') + 1)
                pos = _skip(text, _expect(text, _skip(text, pos), ":") + 1)
            found.setdefault(key, pos)
            _, pos = _SCAN(text, pos)
            pos = _skip(text, pos)
            if text[pos : pos + 1] == closing:
                return found
            pos = _skip(text, _expect(text, pos, ",") + 1)
            index += 1


def _skip(text: str, pos: int) -> int:
    at = _SPACE.match(text, pos)
    return at.end() if at else pos


def _expect(text: str, pos: int, char: str) -> int:
    if text[pos : pos + 1] != char:
        raise ValueError(f"expected {char!r} at {pos}")
    return pos


def _yaml_line(node: yaml.Node, tokens: list[str]) -> int:
    for token in tokens:
        child = _child(node, token)
        if child is None:
            break
        node = child
    return int(node.start_mark.line) + 1


def _child(node: yaml.Node, token: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == token:
                found: yaml.Node = value
                return found
        return None
    if isinstance(node, yaml.SequenceNode) and token.isdigit():
        index = int(token)
        item: yaml.Node | None = node.value[index] if index < len(node.value) else None
        return item
    return None
