"""A schema may be named like anything a generated class module imports (``Open``,
``BaseModel``, ``Field``, ``Literal``...): the list is the emitter's own import table, so a name
the emitter starts to import is reserved the day it does, and the package still imports."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from generator.ir.contracts import model_module_names
from tests.helpers import ROOT, generate_package, run_python

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
        "properties": {name.lower(): {"$ref": f"#/components/schemas/{name}"} for name in names},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/holder": {
                "get": {
                    "operationId": "getHolder",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Holder"}
                                }
                            },
                        }
                    },
                }
            }
        },
        "components": {"schemas": schemas},
    }


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
