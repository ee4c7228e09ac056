"""A path or query parameter whose schema allows only null, or a path parameter with an object,
array or binary schema, still gives a package that type-checks and whose own tests pass.

Found by the fuzzer: ``type: "null"`` on a path parameter typed the argument ``None`` (no value
can fill a path segment; the runtime refuses ``None``) and the generated tests passed the string
``"value"`` for it and for a null-only query parameter, so ``mypy --strict`` failed on them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import (
    TYPED_PACKAGE,
    check_clean_and_typed,
    generate_with_report,
    openapi_document,
    operation,
    parameter,
    run_package_tests,
)


def _doc() -> dict[str, Any]:
    null = {"type": "null"}
    params = [parameter("key", "path", null), parameter("q", "query", null, required=True)]
    return openapi_document(
        {"/things/{key}": {"get": operation("getThing", parameters=params)}}, title="Nulls"
    )


def test_null_only_parameters_typecheck_and_their_tests_pass(tmp_path: Path) -> None:
    out = tmp_path / "nulls"
    files, report = generate_with_report(_doc(), out, TYPED_PACKAGE)
    warned = [d for d in report["diagnostics"] if d["id"] == "path-parameter-null"]
    assert len(warned) == 1 and warned[0]["pointer"].endswith("/parameters/0/schema"), warned
    assert "key: str," in files[f"{TYPED_PACKAGE}/resources/default.py"]
    check_clean_and_typed(out, TYPED_PACKAGE, tmp_path / "mypy-cache")
    run_package_tests(out)


def test_structured_path_parameters_are_typed_str(tmp_path: Path) -> None:
    """An object, array or binary schema on a path parameter (found by the fuzzer: a model
    argument, sent as its repr, that the generated tests passed a string for) is typed str."""
    doc = _doc()
    doc["paths"] = {
        "/things/{obj}/{arr}/{raw}/{color}": {
            "get": {
                "operationId": "getThing",
                "parameters": [
                    {
                        "name": "obj",
                        "in": "path",
                        "required": True,
                        "schema": {"$ref": "#/components/schemas/Thing"},
                    },
                    {
                        "name": "arr",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "array", "items": {"type": "integer"}},
                    },
                    {
                        "name": "raw",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "format": "binary"},
                    },
                    {
                        "name": "color",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": ["red", "green"]},
                    },
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    }
    doc["components"] = {
        "schemas": {"Thing": {"type": "object", "properties": {"v": {"type": "string"}}}}
    }
    out = tmp_path / "paths"
    files, report = generate_with_report(doc, out, TYPED_PACKAGE)
    warned = sorted(
        d["pointer"].split("/")[-2]
        for d in report["diagnostics"]
        if d["id"] == "path-parameter-structured"
    )
    assert warned == ["0", "1", "2"], report["diagnostics"]
    source = files[f"{TYPED_PACKAGE}/resources/default.py"]
    for arg in ("obj: str,", "arr: str,", "raw: str,", 'color: Literal["red", "green"],'):
        assert arg in source
    check_clean_and_typed(out, TYPED_PACKAGE, tmp_path / "mypy-cache")
