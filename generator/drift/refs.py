"""Local ``$ref`` resolution for one document, memoised, with cycles and dangling refs reported."""

from __future__ import annotations

from typing import Any

from generator.diagnostics import (
    CodegenError,
    Diagnostic,
    escape_pointer_token,
    one_line,
    split_pointer,
)

MAX_REF_CHAIN = 64


class Resolver:
    """Follows ``#/...`` references inside one parsed document.

    Results are memoised per reference string, so a schema referenced from three hundred
    operations is looked up once. References to other files are left alone (``None``): the drift
    check compares them by their text.
    """

    def __init__(self, document: Any, file: str) -> None:
        self.document = document
        self.file = file
        self._memo: dict[str, tuple[Any, str]] = {}

    def _fail(self, ptr: str, message: str) -> CodegenError:
        return CodegenError(Diagnostic("drift-invalid-ref", "error", self.file, ptr, message))

    def lookup(self, ref: str, where: str) -> tuple[Any, str] | None:
        """The node a local reference names, and its pointer; ``None`` for a non-local reference."""
        if not ref.startswith("#"):
            return None
        hit = self._memo.get(ref)
        if hit is not None:
            return hit
        try:
            tokens = split_pointer(ref[1:] if ref.startswith("#") else ref)
        except ValueError:
            raise self._fail(where, f"$ref {one_line(ref, 80)} is not a JSON pointer") from None
        node = self.document
        for token in tokens:
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise self._fail(where, f"$ref {one_line(ref, 80)} points at nothing")
        hit = (node, ref[1:])
        self._memo[ref] = hit
        return hit

    def resolve(self, node: Any, ptr: str) -> tuple[Any, str]:
        """Follow a chain of pure references (``{"$ref": ...}`` and nothing else that matters)."""
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            target = self.lookup(node["$ref"], ptr)
            if target is None:
                return node, ptr
            node, ptr = target
            seen += 1
            if seen > MAX_REF_CHAIN:
                raise self._fail(ptr, "$ref chain loops back on itself")
        return node, ptr

    def check_all(self) -> None:
        """Fail on the first local ``$ref`` (in document order) that points at nothing, so a
        broken document is refused whole instead of only where the comparison happens to look."""
        stack: list[tuple[Any, str]] = [(self.document, "")]
        while stack:
            node, ptr = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str):
                    self.lookup(ref, ptr)
                stack.extend(
                    (value, f"{ptr}/{escape_pointer_token(key)}")
                    for key, value in reversed(node.items())
                    if isinstance(value, (dict, list))
                )
            elif isinstance(node, list):
                stack.extend(
                    (value, f"{ptr}/{index}")
                    for index, value in reversed(list(enumerate(node)))
                    if isinstance(value, (dict, list))
                )
