"""Operations whose payloads are untyped (open objects without fields) are listed in the package
README, and only those: a typed body or a typed answer keeps an operation out of the list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import generate_package

OPEN = {"type": "object", "additionalProperties": True}


def _op(op_id: str, body: Any, answer: Any) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": op_id,
        "tags": ["Things"],
        "responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": answer}}}
        },
    }
    if body is not None:
        op["requestBody"] = {"content": {"application/json": {"schema": body}}}
    return op


def _doc() -> dict[str, Any]:
    ref = {"$ref": "#/components/schemas/Open"}
    typed = {"$ref": "#/components/schemas/Typed"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Things", "version": "1"},
        "servers": [{"url": "https://example.test"}],
        "paths": {
            "/open": {"post": _op("startOpen", ref, ref), "get": _op("getOpen", None, ref)},
            "/typed-answer": {"post": _op("typedAnswer", ref, typed)},
            "/typed-body": {"post": _op("typedBody", typed, ref)},
        },
        "components": {
            "schemas": {
                "Open": OPEN,
                "Typed": {"type": "object", "properties": {"name": {"type": "string"}}},
            }
        },
    }


def test_readme_lists_only_operations_without_typed_payloads(tmp_path: Path) -> None:
    files = generate_package(_doc(), tmp_path / "out", "things_client")
    (readme,) = [text for name, text in files.items() if name == "README.md"]
    assert "## Operations without published shapes" in readme
    section = readme.split("## Operations without published shapes", 1)[1]
    assert "`things.start_open`" in section and "`things.get_open`" in section
    assert "typed_answer" not in section and "typed_body" not in section


def test_no_section_when_every_operation_is_typed(tmp_path: Path) -> None:
    doc = _doc()
    del doc["paths"]["/open"]
    doc["paths"]["/typed-body"]["post"] = _op(
        "typedBody", {"$ref": "#/components/schemas/Typed"}, {"$ref": "#/components/schemas/Typed"}
    )
    del doc["paths"]["/typed-answer"]
    files = generate_package(doc, tmp_path / "out", "things_client")
    (readme,) = [text for name, text in files.items() if name == "README.md"]
    assert "Operations without published shapes" not in readme
