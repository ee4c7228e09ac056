"""Generated tests come one file per resource with class names from ``Namespace``; the README
escapes document text for the markdown context it lands in."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from generator.emit.render import markdown_code, markdown_text
from generator.pipeline import generate, single_document_config, strip_root

PACKAGE = "layout_client"


def _op(op_id: str, tag: str) -> dict[str, Any]:
    return {"operationId": op_id, "tags": [tag], "responses": {"204": {"description": "ok"}}}


def _generate(tmp_path: Path, doc: dict[str, Any]) -> dict[str, str]:
    spec = tmp_path / "doc.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    config = single_document_config(spec, (), PACKAGE, tmp_path / "out")
    return strip_root(generate(config).files, PACKAGE)


def _classes(text: str) -> list[str]:
    return [n.name for n in ast.parse(text).body if isinstance(n, ast.ClassDef)]


def test_colliding_test_class_names_are_made_distinct(tmp_path: Path) -> None:
    # tag "A B" + operation "c" and tag "A" + operation "bC" spell the same class name
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {"/x": {"get": _op("c", "A B")}, "/y": {"get": _op("bC", "A")}},
    }
    files = _generate(tmp_path, doc)
    tests = {k: v for k, v in files.items() if k.startswith("tests/test_")}
    assert sorted(tests) == [
        f"tests/test_{PACKAGE}_api_a.py",
        f"tests/test_{PACKAGE}_api_a_b.py",
    ]
    names = [c for text in tests.values() for c in _classes(text)]
    assert len(names) == 2 and names[0].lower() != names[1].lower(), names


def test_readme_code_spans_hold_document_text_literally(tmp_path: Path) -> None:
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {"/a_b/`{id}`|x": {"get": _op("get", "things")}},
    }
    readme = _generate(tmp_path, doc)["README.md"]
    row = next(line for line in readme.splitlines() if line.startswith("| `get` |"))
    assert "``GET /a_b/`{id}`\\|x``" in row, row


def test_markdown_escaping_depends_on_the_context() -> None:
    assert markdown_code("$CUBE_API_KEY") == "`$CUBE_API_KEY`"
    assert markdown_code("a`b") == "``a`b``"
    assert markdown_code("a|b", table=True) == "`a\\|b`"
    assert markdown_text("$CUBE_API_KEY") == "$CUBE\\_API\\_KEY"
