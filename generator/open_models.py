"""Forward-compatible model source: the last step of model emission, on the generated text.

Three rewrites, each found with :mod:`ast` (never by matching text), so the result is still
valid, typed Python:

* models derive from the runtime's ``BaseModel`` (unknown fields kept, ``to_dict()``), not
  pydantic's;
* an enum, ``Literal["a", "b", ...]`` with two values or more, becomes ``Open[Literal[...]]``:
  ``Literal[...] | Unknown`` to mypy, and a value the document does not list is kept as
  ``Unknown(value)`` at runtime (one-value literals are constants, e.g. discriminators, and
  stay exact);
* a union of two or more of the module's models, ``A | B`` (``| None`` kept outside), becomes
  ``Open[A | B]``, unless it is a discriminated union (its own ``Field(discriminator=...)``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeGuard

_OPEN = "Open"


def open_models(source: str, package: str) -> str:
    """``source`` (a generated models module) with the rewrites above applied."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source  # not ours to repair: the formatter reports it
    models = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(lineno: int, col: int) -> int:
        return offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    edits: list[tuple[int, int, str]] = []
    # Discriminated unions stay exact, decided class by class (bases and body alike): a class that
    # holds one, a class with a tag field one dispatches on, and every class a member of one.
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    tags = set().union(*(_discriminator(c) for c in classes.values())) if classes else set()
    exact = {
        name
        for name, cls in classes.items()
        if _discriminator(cls)
        or any(isinstance(n, ast.AnnAssign) and _name(n.target) in tags for n in cls.body)
    }
    todo = set(exact)
    while todo:
        cls = classes[todo.pop()]
        found = {n.id for n in ast.walk(cls) if isinstance(n, ast.Name) and n.id in classes}
        todo |= found - exact
        exact |= found
    discriminated = {id(n) for name in exact for n in ast.walk(classes[name])}
    for node in ast.walk(tree):
        if id(node) in discriminated:
            continue
        if isinstance(node, ast.Subscript) and _name(node.value) == "Literal":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if len(elts) >= 2:
                text = ast.get_source_segment(source, node) or ""
                edits.append((_start(node, at), _end(node, at), f"{_OPEN}[{text}]"))
        elif _is_union_top(node) and id(node) not in discriminated:
            leaves = _leaves(node)
            named = [_name(leaf) for leaf in leaves]
            kinds = [n for n in named if n != "None"]
            if len(kinds) >= 2 and all(n in models for n in kinds):
                tail = " | None" if "None" in named else ""
                edits.append(
                    (_start(node, at), _end(node, at), f"{_OPEN}[{' | '.join(kinds)}]{tail}")
                )
    if not edits and "BaseModel" not in source:
        return source
    out = source
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return _imports(out, package, bool(edits))


def _imports(source: str, package: str, opened: bool) -> str:
    tree = ast.parse(source)
    names = ["BaseModel"] + ([_OPEN] if opened else [])
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "pydantic":
            kept = [a.name for a in node.names if a.name != "BaseModel"]
            lines = source.splitlines(keepends=True)
            start, end = node.lineno - 1, (node.end_lineno or node.lineno)
            ours = f"from {package}._models import {', '.join(names)}\n"
            theirs = f"from pydantic import {', '.join(kept)}\n" if kept else ""
            return "".join(lines[:start]) + theirs + "\n" + ours + "".join(lines[end:])
    return source


def _discriminator(node: ast.AST) -> set[str]:
    """The names given as ``discriminator=`` anywhere inside ``node``."""
    return {
        k.value.value
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
        for k in n.keywords
        if k.arg == "discriminator"
        and isinstance(k.value, ast.Constant)
        and isinstance(k.value.value, str)
    }


def _is_discriminated(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Subscript) and _name(node.value) == "Annotated"):
        return False
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else []
    return any(
        isinstance(e, ast.Call) and any(k.arg == "discriminator" for k in e.keywords)
        for e in elts[1:]
    )


def _is_union_top(node: ast.AST) -> TypeGuard[ast.BinOp]:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.BitOr)
        and not getattr(node, "_inner", False)
    )


def _leaves(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        for side in (node.left, node.right):
            side._inner = True  # type: ignore[attr-defined]
        return _leaves(node.left) + _leaves(node.right)
    return [node]


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return ""


def _start(node: ast.expr, at: Callable[[int, int], int]) -> int:
    return at(node.lineno, node.col_offset)


def _end(node: ast.expr, at: Callable[[int, int], int]) -> int:
    return at(node.end_lineno or node.lineno, node.end_col_offset or 0)
