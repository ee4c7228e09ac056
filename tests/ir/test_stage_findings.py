"""Loading stages return what they worked around beside the document; nothing is written into it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.diagnostics import CodegenError
from generator.document.refs import bundle
from generator.document.validate import validate


def _doc(schemas: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {},
        "components": {"schemas": schemas},
    }


def test_validate_returns_its_workarounds() -> None:
    doc = _doc({"Pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}})
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
    doc = _doc({"A": {"$ref": "gone.yaml#/B"}})
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
    doc = _doc({"A": {"type": "string"}})
    assert validate(doc, "doc.yaml") == (doc, [])
    assert bundle(doc, "doc.yaml") == (doc, [])
