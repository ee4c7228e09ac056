"""The generator's shape, held by tests: stages import only earlier stages, no import circles,
small functions and classes.

Data flows one way: document → overlay → ir → emit → pipeline → drift → release → cli. A module
may import its own stage, earlier stages and the foundation (``generator/__init__.py``,
``beside``, ``diagnostics``, ``files``, ``transaction``, ``words``); an import of a later stage is what this test names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

GENERATOR = ROOT / "generator"
FOUNDATION = (
    "generator",
    "generator.diagnostics",
    "generator.beside",
    "generator.files",
    "generator.transaction",
    "generator.words",
)
STAGES = ("document", "overlay", "ir", "emit", "pipeline", "observed", "drift", "release", "cli")
MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES = 300


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, ast.Module]:
    return {
        _module_name(p): ast.parse(p.read_text(encoding="utf-8"), str(p))
        for p in sorted(GENERATOR.rglob("*.py"))
    }


def _stage(module: str) -> int:
    """-1 for the foundation, else the stage's position in the flow."""
    if module in FOUNDATION:
        return -1
    if module == "generator.__main__":  # ``python -m generator``: the command line
        return STAGES.index("cli")
    return STAGES.index(module.split(".")[1])


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def _imports(tree: ast.Module, known: set[str]) -> set[str]:
    """Generator modules imported anywhere in ``tree`` (function bodies too; type-only imports
    excluded, they never run)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        if _type_checking_only(node, parents):
            continue
        found.update(name for name in names if name in known)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(tree, known) - {name} for name, tree in modules.items()}


def test_every_generator_module_belongs_to_a_stage() -> None:
    strays = [
        m
        for m in _graph()
        if m not in FOUNDATION and m != "generator.__main__" and m.split(".")[1] not in STAGES
    ]
    assert strays == [], f"modules outside the stage folders: {strays}"


def test_no_stage_imports_a_later_stage() -> None:
    backwards = [
        f"{module} imports {target}"
        for module, targets in sorted(_graph().items())
        for target in sorted(targets)
        if _stage(target) > _stage(module) and not target.startswith(module + ".")
    ]
    assert backwards == []


def test_no_import_circles() -> None:
    graph = _graph()
    # A package's __init__ importing its own submodules is not a circle of the flow.
    edges = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert circles == []


def _long_definitions(root: Path) -> list[str]:
    long: list[str] = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                limit = MAX_CLASS_LINES if isinstance(node, ast.ClassDef) else MAX_FUNCTION_LINES
                if lines > limit:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    return long


@pytest.mark.parametrize("folder", ["generator", "bench", "tools"])
def test_functions_and_classes_stay_small(folder: str) -> None:
    assert _long_definitions(ROOT / folder) == []


def test_the_readme_module_map_names_every_stage_folder() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [s for s in STAGES if s != "pipeline" and f"`generator/{s}/`" not in readme]
    assert missing == []


def test_no_test_skips_because_a_generator_module_is_missing() -> None:
    """The generator ships whole: a test that skips when one of its own modules (or a function
    of one) is missing would hide that it broke, so none may."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            first = node.args[0] if node.args else None
            if (
                node.func.attr == "importorskip"
                and isinstance(first, ast.Constant)
                and str(first.value).split(".")[0] == "generator"
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found
