"""The generator's shape, held by tests: stages import only earlier stages, no import circles,
small functions and classes.

Data flows one way: document → overlay → ir → emit → pipeline → drift → release → cli. A module
may import its own stage, earlier stages and the foundation (``generator/__init__.py``,
``beside``, ``diagnostics``, ``files``, ``journal``, ``runstate``, ``transaction``, ``words``); an
import of a later stage is what this test names.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from tests.helpers import ROOT

GENERATOR = ROOT / "generator"
FOUNDATION = (
    "generator",
    "generator.diagnostics",
    "generator.beside",
    "generator.files",
    "generator.journal",
    "generator.runstate",
    "generator.transaction",
    "generator.words",
)
# Known and owned elsewhere (branch shapes): the IR derives the names the templates bind by
# generating a stub package through the pipeline (ir/bound_names -> pipeline), which closes a
# circle through every IR module. The tests below fail on anything else, and pass once it goes.
STAGES = ("document", "overlay", "ir", "emit", "pipeline", "observed", "drift", "release", "cli")
MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES = 300


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a module's tree, parsed and walked once for all the tests here."""
    return tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))))


def _modules() -> dict[str, tuple[ast.AST, ...]]:
    return {_module_name(p): _nodes(p) for p in sorted(GENERATOR.rglob("*.py"))}


def _stage(module: str) -> int:
    """-1 for the foundation, else the stage's position in the flow."""
    if module in FOUNDATION:
        return -1
    if module == "generator.__main__":  # ``python -m generator``: the command line
        return STAGES.index("cli")
    return STAGES.index(module.split(".")[1])


def _imports(nodes: tuple[ast.AST, ...], known: set[str]) -> set[str]:
    """Generator modules imported anywhere among a module's ``nodes``: at the top, inside
    functions and under ``TYPE_CHECKING`` alike (a type-only import is still a dependency a
    reader has to follow)."""
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(name for name in names if name in known)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(nodes, known) - {name} for name, nodes in modules.items()}


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


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges[node]):
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
    return sorted(circles)


def test_no_import_circles() -> None:
    graph = _graph()
    # A package's __init__ importing its own submodules is not a circle of the flow.
    edges = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}
    assert _circles(edges) == []


def test_the_circle_finder_sees_type_only_and_function_level_imports() -> None:
    """The graph counts an import under ``TYPE_CHECKING`` and one inside a function body."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from generator.b import X\n"
        "def f():\n    import generator.c\n"
    )
    known = {"generator.b", "generator.c"}
    assert _imports(tuple(ast.walk(ast.parse(source))), known) == known
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


RUNTIME = ROOT / "templates" / "runtime"


def _runtime_graph() -> dict[str, set[str]]:
    """The SDK runtime's modules (copied into every package) and their relative imports."""
    modules = {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in RUNTIME.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, tree in modules.items():
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module] if node.module else [a.name for a in node.names]
                found.update(t.split(".")[0] for t in targets if t.split(".")[0] in modules)
        graph[name] = found - {name}
    return graph


def test_no_import_circles_in_the_runtime() -> None:
    """The SDK runtime (copied into every package) has no circle either, counting imports
    inside functions; generated model classes may still refer to each other (recursive
    schemas need it), but they are not runtime modules."""
    graph = _runtime_graph()
    assert {"_models", "_response", "_base_client"} <= graph.keys()
    circles = _circles(graph)
    assert circles == []


def _long_definitions(root: Path) -> list[str]:
    long: list[str] = []
    for path in sorted(root.rglob("*.py")):
        for node in _nodes(path):
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


def test_the_readme_module_map_names_every_module_in_its_stage_row() -> None:
    """Each stage's row of the module map names every module (and sub-folder) of that stage,
    so the map cannot fall behind the code."""
    rows = {
        line.split("`")[1].removeprefix("generator/").rstrip("/"): line
        for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `generator/") and "/` |" in line
    }
    missing = []
    for stage in (s for s in STAGES if s != "pipeline"):
        folder = ROOT / "generator" / stage
        names = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
        names += [f"{p.name}/" for p in folder.iterdir() if (p / "__init__.py").is_file()]
        row = rows.get(stage, "")
        missing += [f"{stage}/{n}" for n in sorted(names) if f"`{n}`" not in row]
    assert missing == []


def test_no_test_skips_because_a_generator_module_is_missing() -> None:
    """The generator ships whole: a test that skips when one of its own modules (or a function
    of one) is missing would hide that it broke, so none may."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "importorskip" not in text:
            continue  # no call to look at: not parsed
        for node in ast.walk(ast.parse(text)):
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
