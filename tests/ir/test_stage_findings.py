"""Loading stages return what they worked around beside the document; nothing is written into it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.diagnostics import CodegenError
from generator.document.refs import bundle
from generator.document.validate import validate
from tests.helpers import openapi_document


def test_validate_returns_its_workarounds() -> None:
    doc = openapi_document(
        schemas={"Pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}},
        title="T",
    )
    repaired, found = validate(doc, "doc.yaml")
    pair = repaired["components"]["schemas"]["Pair"]
    assert "prefixItems" in pair and "items" not in pair
    assert [(d.id, d.level, d.file, d.pointer) for d in found] == [
        ("openapi-repaired", "warning", "doc.yaml", "/components/schemas/Pair/items")
    ]
    assert not [k for k in repaired if str(k).startswith("x-")]


def test_bundle_refuses_a_missing_file_with_its_pointer(tmp_path: Path) -> None:
    """A schema ``$ref`` to a file that is not there is broken input, like a missing component."""
    root = tmp_path / "root.json"
    doc = openapi_document(schemas={"A": {"$ref": "gone.yaml#/B"}}, title="T")
    root.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(CodegenError) as info:
        bundle(doc, str(root))
    (found,) = info.value.diagnostics
    assert (found.id, found.level, found.pointer) == (
        "ref-dangling",
        "error",
        "/components/schemas/A",
    )
    assert "gone.yaml" in found.message


def test_a_valid_document_comes_back_with_no_findings() -> None:
    doc = openapi_document(schemas={"A": {"type": "string"}}, title="T")
    assert validate(doc, "doc.yaml") == (doc, [])
    assert bundle(doc, "doc.yaml") == (doc, [])
