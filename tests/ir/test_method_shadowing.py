"""An operation method never shadows a name the annotations of its resource class read.

A method named ``str`` (operationId ``str``) made every later ``body: str`` in the class name the
method, and ``mypy --strict`` failed on the generated package (found by the fuzzer); ``datetime``
(the module the resource imports for date annotations) did the same.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from generator.ir.naming import RESOURCE_ANNOTATION_NAMES
from tests.helpers import check_clean_and_typed, generate_with_report

SHADOWING = ["str", "int", "bytes", "list", "dict", "float", "bool", "object", "datetime"]


def _doc() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for name in SHADOWING:
        paths[f"/{name}/{{key}}"] = {
            "post": {
                "operationId": name,
                "parameters": [
                    {"name": "key", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "when", "in": "query", "schema": {"type": "string", "format": "date"}},
                ],
                "requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}},
                "responses": {"200": {"description": "ok"}},
            }
        }
    return {"openapi": "3.1.0", "info": {"title": "Shadow", "version": "1"}, "paths": paths}


def test_builtin_type_and_import_names_are_reserved() -> None:
    assert {"str", "int", "list", "dict", "bytes", "datetime"} <= RESOURCE_ANNOTATION_NAMES
    assert "open" not in RESOURCE_ANNOTATION_NAMES  # a function: no annotation reads it
    assert "id" not in RESOURCE_ANNOTATION_NAMES


def test_methods_named_like_annotation_names_are_renamed_and_typecheck(tmp_path: Path) -> None:
    out = tmp_path / "shadow_client"
    files, report = generate_with_report(_doc(), out, "shadow_client")
    source = files["shadow_client/resources/default.py"]
    methods = {
        node.name
        for cls in ast.parse(source).body
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assert not methods & set(SHADOWING), methods
    assert {f"{name}_2" for name in SHADOWING} <= methods
    renamed = [d for d in report["diagnostics"] if d["id"] == "operation-renamed"]
    assert len(renamed) == len(SHADOWING), renamed
    check_clean_and_typed(out, "shadow_client", tmp_path / "mypy-cache")
