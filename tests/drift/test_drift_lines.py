"""The source lines drift gives a finding: a JSON file is read by its own scanner, not composed
as YAML, and gives the lines the YAML reading gives, for every pointer of a document and for
pointers that are not there (their nearest existing ancestor)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from generator.diagnostics import join_pointer
from generator.drift.lines import LineIndex
from tests.helpers import openapi_document

DOC = openapi_document(
    {
        "/a/{id}": {
            "get": {
                "parameters": [{"name": "id", "in": "path", "required": True}],
                "responses": {"200": {"description": "ok", "x-list": [1, [2, {"k": '}"{'}]]}},
            }
        },
        "/b": {"post": {"responses": {"204": {"description": "none"}}}},
    }
)


def _pointers(value: Any, at: str = "") -> list[str]:
    found = [at]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _pointers(child, join_pointer(at, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found += _pointers(child, join_pointer(at, str(i)))
    return found


def _yaml_lines(path: Path, pointers: list[str]) -> list[int | None]:
    """What the YAML reading gives (JSON is YAML): the index with its JSON scanner turned off."""
    index = LineIndex(path.read_text(encoding="utf-8"), is_json=False)
    return [index.line(p) for p in pointers]


def test_json_lines_match_the_yaml_reading(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(DOC, indent=2), encoding="utf-8")
    pointers = [*_pointers(DOC), "/paths/~1a~1{id}/get/nope/deeper", "/paths/~1c", "/x/9", "bad"]
    index = LineIndex.of_file(path)
    got = [index.line(p) for p in pointers]
    assert got == _yaml_lines(path, pointers)
    assert len(set(got)) > 20  # the pointers really are on different lines
    assert index.line("/paths/~1b/post") == 1 + next(
        i for i, line in enumerate(path.read_text().splitlines()) if '"post"' in line
    )


def test_yaml_and_unreadable_files(tmp_path: Path) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(yaml.safe_dump(DOC, sort_keys=False), encoding="utf-8")
    lines = path.read_text().splitlines()
    assert LineIndex.of_file(path).line("/paths/~1b") == 1 + lines.index("  /b:") + 1
    assert LineIndex.of_file(tmp_path / "missing.json").line("/paths") is None
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": [1, 2', encoding="utf-8")  # neither JSON nor YAML: no lines
    assert LineIndex.of_file(broken).line("/a/1") is None
