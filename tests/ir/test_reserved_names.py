"""A schema may be named like anything a generated class module imports (``Open``,
``BaseModel``, ``Field``, ``Literal``...): the list is the emitter's own import table, so a name
the emitter starts to import is reserved the day it does, and the package still imports."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from generator.ir.contracts import model_module_names
from generator.ir.naming import ClassName, PythonIdentifier
from tests.helpers import (
    ROOT,
    generate_package,
    openapi_document,
    operation,
    run_python,
    schema_ref,
)

GENERATED = ROOT / "generated" / "cube_client" / "cube_client"


def test_the_reserved_names_are_the_class_modules_imports() -> None:
    assert {
        "Open",
        "BaseModel",
        "Field",
        "Literal",
        "RootModel",
        "Annotated",
    } <= model_module_names()
    bound: set[str] = set()
    for path in sorted(GENERATED.glob("*/_classes/*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom | ast.Import) and not getattr(node, "level", 0):
                bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    assert len(bound) > 10  # the committed package's class modules were read
    assert bound <= model_module_names(), bound - model_module_names()


def _document() -> dict[str, Any]:
    names = sorted(n for n in model_module_names() if n[0].isupper())
    schemas: dict[str, Any] = {
        name: {
            "type": "object",
            "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "integer"}},
        }
        for name in names
    }
    schemas["Holder"] = {
        "type": "object",
        "properties": {name.lower(): schema_ref(name) for name in names},
    }
    return openapi_document(
        {"/holder": {"get": operation("getHolder", schema_ref("Holder"))}},
        schemas=schemas,
        server="https://api.example.com",
    )


def test_schemas_named_like_the_modules_imports_give_a_package_that_reads(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    generate_package(_document(), out, "reserved")
    run_python(
        "from reserved import models\n"
        "body = {'open': {'kind': 'a', 'n': 1}, 'basemodel': {'kind': 'c', 'n': 2}}\n"
        "holder = models.Holder.model_validate(body)\n"
        "assert holder.open is not None and holder.open.kind == 'a' and holder.open.n == 1\n"
        "assert holder.basemodel is not None and holder.basemodel.n == 2\n"
        "assert type(holder.open).__name__ == 'OpenModel'\n",
        out,
    )


def test_a_name_made_once_follows_the_reserved_names_of_its_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Class names are made once per spelling, with the reserved names as part of what they are
    made from: while the stub renders (nothing is reserved yet) ``Unknown`` stays itself, after
    it the same spelling steps off, and identifiers alike but for a flag differ."""
    from generator.ir import bound_names as bn

    assert ClassName("Unknown") == "UnknownModel"
    monkeypatch.setitem(bn._state, "bootstrapping", True)
    assert ClassName("Unknown") == "Unknown"
    monkeypatch.setitem(bn._state, "bootstrapping", False)
    assert ClassName("Unknown") == "UnknownModel"
    assert PythonIdentifier("list") == "list"
    assert PythonIdentifier("list", avoid_builtins=True) == "list_"
    assert PythonIdentifier("9lives", prefix="field") == "field_9lives"
    assert PythonIdentifier("9lives", prefix="param") == "param_9lives"
