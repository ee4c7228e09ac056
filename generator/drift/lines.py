"""Source lines of JSON pointers in a YAML or JSON file, for pull-request annotations.

The file is composed once (YAML nodes keep their marks; JSON is read as YAML); a pointer that
does not exist in the file gets the line of its nearest existing ancestor.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from generator.diagnostics import split_pointer
from generator.document.loader import MAX_BYTES


class LineIndex:
    def __init__(self, root: yaml.Node | None) -> None:
        self.root = root

    @classmethod
    def of_file(cls, path: str | Path) -> LineIndex:
        """An index of ``path``; empty (every line ``None``) when it is not a readable file."""
        try:
            file = Path(path)
            if not file.is_file() or file.stat().st_size > MAX_BYTES:
                return cls(None)
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            return cls(yaml.compose(file.read_text(encoding="utf-8"), Loader=loader))
        except (OSError, UnicodeError, yaml.YAMLError, RecursionError):
            return cls(None)

    def line(self, ptr: str) -> int | None:
        """1-based line of ``ptr`` (or of its nearest existing ancestor); None without a file."""
        node = self.root
        if node is None:
            return None
        try:
            tokens = split_pointer(ptr)
        except ValueError:
            return node.start_mark.line + 1
        for token in tokens:
            child = _child(node, token)
            if child is None:
                break
            node = child
        return node.start_mark.line + 1


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
