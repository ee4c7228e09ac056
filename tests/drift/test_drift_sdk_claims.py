"""The SDK-level claim of every drift finding, measured with mypy on the published document pairs.

For each pair (OLD, NEW) both packages are generated under one import name. For each finding whose
surface can be written as user code, a caller is written against OLD's package: it names the
method, passes the parameter with its old type, reads a response field into its old type, writes
a request field, or names an enum member. mypy --strict must accept every caller against OLD (the
callers are honest user code), and against NEW must reject exactly the callers of findings that
say code no longer type-checks.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from generator.document.loader import load_document
from generator.drift.engine import compare
from generator.drift.surface import Finding, SurfaceMapper
from generator.emit.type_text import py_type
from generator.ir.types import Operation
from tests.helpers import WARM_MYPY, keep_mypy_cache, run_cli, seeded_mypy_cache

# ``make test`` measures the first pair (a sample of the sweep), ``make test-heavy`` the other too.
PAIRS = [
    pytest.param(
        "platform-api.03_bdf1ffb62e5b.yaml", "platform-api.05_018d2f81e72e.yaml", id="03-05"
    ),
    pytest.param(
        "platform-api.05_018d2f81e72e.yaml",
        "platform-api.07_3320af8370b0.yaml",
        id="05-07",
        marks=pytest.mark.heavy,
    ),
]
PKG = "cubepkg"
HEADER = f"""\
from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import AwareDatetime

from {PKG} import CubepkgClient as Client
from {PKG} import models as _models
from {PKG}._models import Open
"""


@dataclass
class Caller:
    finding: Finding
    code: str


def _generate(spec: Path, out: Path) -> Path:
    proc = run_cli("generate", "--spec", str(spec), "--package", PKG, "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    return out


def _model_classes(models_py: Path) -> dict[str, ast.ClassDef]:
    tree = ast.parse(models_py.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def _field_annotation(cls: ast.ClassDef, field: str, source: str) -> str | None:
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id == field:
                ann = node.annotation
                if (
                    isinstance(ann, ast.Subscript)
                    and isinstance(ann.value, ast.Name)
                    and ann.value.id == "Annotated"
                    and isinstance(ann.slice, ast.Tuple)
                ):
                    ann = ann.slice.elts[0]
                return _qualify(ast.get_source_segment(source, ann) or "")
    return None


_BUILTIN = {
    "list",
    "dict",
    "str",
    "int",
    "float",
    "bool",
    "None",
    "Any",
    "Literal",
    "Open",
    "date",
    "datetime",
    "AwareDatetime",
    "bytes",
    "set",
    "tuple",
}


def _qualify(annotation: str) -> str:
    """Model class names in an annotation from models.py, seen from the caller module."""
    return re.sub(
        r"(?<![\w.'\"])([A-Z]\w*)\b",
        lambda m: m.group(1) if m.group(1) in _BUILTIN else f"_models.{m.group(1)}",
        annotation,
    )


def _enum_members(cls: ast.ClassDef) -> dict[str, object]:
    members: dict[str, object] = {}
    for node in cls.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant):
                members[target.id] = node.value.value
    return members


def _call(op: Operation, resource: str, extra: dict[str, str]) -> tuple[list[str], str]:
    """Parameters of a caller and the call itself, passing every required argument of ``op``."""
    params: list[str] = []
    positional: list[str] = []
    keywords: list[str] = []
    extra = dict(extra)
    for p in op.parameters:
        if p.location == "path" and p.py_name in extra:
            params.append(f"v_{p.py_name}: {extra.pop(p.py_name)}")
            positional.append(f"v_{p.py_name}")
        elif p.location == "path":
            params.append(f"{p.py_name}: {py_type(p.type)}")
            positional.append(str(p.py_name))
        elif p.required and p.py_name not in extra:
            params.append(f"{p.py_name}: {py_type(p.type)}")
            keywords.append(f"{p.py_name}={p.py_name}")
    if op.body is not None:
        if op.body.fields is None:
            if op.body.required and "body" not in extra:
                params.append(f"body: {py_type(op.body.type)}")
                keywords.append("body=body")
        else:
            for f in op.body.fields:
                if f.required and f.py_name not in extra:
                    params.append(f"{f.py_name}: {py_type(f.type)}")
                    keywords.append(f"{f.py_name}={f.py_name}")
    for name, annotation in extra.items():
        params.append(f"v_{name}: {annotation}")
        keywords.append(f"{name}=v_{name}")
    args = ", ".join([*positional, *keywords])
    return params, f"client.{resource}.{op.py_name}({args})"


def _old_type(op: Operation, name: str) -> str | None:
    for p in op.parameters:
        if p.py_name == name:
            return py_type(p.type)
    if op.body is not None and op.body.fields is not None:
        for f in op.body.fields:
            if f.py_name == name:
                return py_type(f.type)
    return None


def _callers(mapper: SurfaceMapper, findings: list[Finding], models_py: Path) -> list[Caller]:
    source = models_py.read_text(encoding="utf-8")
    classes = _model_classes(models_py)
    callers: list[Caller] = []
    old_ops = {
        (str(r.attr), str(op.py_name)): op
        for r in (mapper.old.family.resources if mapper.old.family else ())
        for op in r.operations
    }
    # A method with a change that stops old calls from type-checking cannot show whether another
    # change on it does: its callers are measured for that change only.
    stopped = {
        (f.surface.resource, f.surface.method)
        for f in findings
        if not f.type_checks and f.surface.kind in ("method", "parameter")
    }
    for n, f in enumerate(findings):
        s = f.surface
        if f.type_checks and s.method and (s.resource, s.method) in stopped:
            continue
        name = f"c{n}"
        op = old_ops.get((s.resource, s.method))
        if s.kind == "method" and op is not None:
            if f.change.id == "operation-removed":
                code = f"def {name}(client: Client) -> object:\n    return client.{s.resource}.{s.method}\n"
            else:
                params, call = _call(op, s.resource, {})
                code = f"def {name}({', '.join(['client: Client', *params])}) -> object:\n    return {call}\n"
        elif s.kind == "parameter" and op is not None:
            old = _old_type(op, s.name)
            extra = {s.name: old} if old is not None else {}
            params, call = _call(op, s.resource, extra)
            code = f"def {name}({', '.join(['client: Client', *params])}) -> object:\n    return {call}\n"
        elif s.kind == "field" and s.model in classes:
            annotation = _field_annotation(classes[s.model], s.name, source)
            if annotation is None:
                continue
            if f.change.id.startswith("response-"):
                code = f"def {name}(x: _models.{s.model}) -> {annotation}:\n    return x.{s.name}\n"
            else:
                code = f"def {name}(x: _models.{s.model}, v: {annotation}) -> None:\n    x.{s.name} = v\n"
        elif (
            s.kind == "model" and s.model in classes and f.change.id.endswith("enum-value-removed")
        ):
            values = set(re.findall(r"'([^']*)'", f.change.message))
            members = [m for m, v in _enum_members(classes[s.model]).items() if v in values]
            if not members:
                continue
            code = f"def {name}() -> object:\n    return _models.{s.model}.{members[0]}\n"
        else:
            continue
        callers.append(Caller(f, code))
    return callers


def _mypy(
    package_root: Path, callers: list[Caller], folder: Path, tag: str, after: Path | None = None
) -> set[int]:
    """Indexes of the callers mypy --strict rejects against the package in ``package_root``.

    With no kept cache for that document (a fresh clone), the check starts from the cache the
    check of the package in ``after`` left (the same package name, most modules unchanged from
    one published document to the next): mypy then reads again only the modules whose text
    differs, and what depends on them, and answers as it would from cold."""
    text = HEADER
    starts: list[int] = []
    for caller in callers:
        text += "\n\n"
        starts.append(text.count("\n") + 1)
        text += caller.code
    module = folder / f"callers_{tag}.py"
    module.write_text(text, encoding="utf-8")
    # the package's cache, starting from what the last passing run kept for that document
    key = f"claims-{package_root.name.rstrip('0123456789')}"
    cache = _cache_of(package_root)
    if after is not None and not (WARM_MYPY / key).is_dir() and _cache_of(after).is_dir():
        shutil.copytree(_cache_of(after), cache)
    cache = seeded_mypy_cache(cache, key)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--no-error-summary",
            "--cache-dir",
            str(cache),
            str(module),
        ],
        cwd=folder,
        env={"MYPYPATH": str(package_root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    keep_mypy_cache(key, cache)
    rejected: set[int] = set()
    for line in proc.stdout.splitlines():
        match = re.match(rf"{re.escape(module.name)}:(\d+): error", line)
        assert match or not line.strip() or ": note:" in line, line
        if match:
            lineno = int(match.group(1))
            index = max(i for i, start in enumerate(starts) if start <= lineno)
            rejected.add(index)
    return rejected


def _cache_of(package_root: Path) -> Path:
    return package_root.parent / f".mypy-{package_root.name}"


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """Each published document generated once for the whole module (05 is in both pairs)."""
    made: dict[Path, Path] = {}

    def package(spec: Path) -> Path:
        if spec not in made:
            made[spec] = _generate(spec, tmp_path_factory.mktemp(spec.stem.replace(".", "_")))
        return made[spec]

    return package


@pytest.mark.slow
@pytest.mark.parametrize(("old_name", "new_name"), PAIRS)
def test_type_check_claims_hold(
    shared_dir: Path,
    tmp_path: Path,
    packages: Callable[[Path], Path],
    old_name: str,
    new_name: str,
) -> None:
    old_file = shared_dir / "specs" / "cube" / old_name
    new_file = shared_dir / "specs" / "cube" / new_name
    old_doc, new_doc = load_document(old_file), load_document(new_file)
    report = compare(old_doc, new_doc, old_file=str(old_file), new_file=str(new_file))
    mapper = SurfaceMapper(old_doc, new_doc, str(old_file), str(new_file))
    findings = mapper.findings(report)
    old_pkg, new_pkg = packages(old_file), packages(new_file)
    callers = _callers(mapper, findings, old_pkg / PKG / "models.pyi")

    assert _mypy(old_pkg, callers, tmp_path, "old") == set()  # honest callers of the old package
    rejected = _mypy(new_pkg, callers, tmp_path, "new", after=old_pkg)
    claims = {i for i, c in enumerate(callers) if not c.finding.type_checks}
    wrong = sorted(
        f"{callers[i].finding.change.id} {callers[i].finding.surface.python}: "
        f"claimed {'no' if i in claims else 'yes'}, mypy {'rejects' if i in rejected else 'accepts'}"
        for i in claims ^ rejected
    )
    assert wrong == [], "\n".join(wrong)
    breaking = [c for c in callers if c.finding.change.level == "breaking"]
    if report.count("breaking"):
        assert sum(1 for c in breaking if not c.finding.type_checks) >= 5
        assert any(c.finding.type_checks for c in breaking)  # breaking at run time only
    assert sum(1 for c in callers if c.finding.change.level != "breaking") >= 2
