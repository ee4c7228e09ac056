"""Duplicate keys are errors, never a silent "last one wins": documents and overlays, YAML and
JSON, each reported as one line with the file, the pointer, the lines and the key, exit 2,
nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.diagnostics import CodegenError
from generator.document.loader import parse_text
from tests.helpers import run_cli

HEAD = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"
OK = "{responses: {'204': {description: ok}}}"

DOCUMENTS = {
    "yaml-path-twice": (
        "api.yaml",
        HEAD + f"paths:\n  /a:\n    get: {OK}\n  /b:\n    get: {OK}\n  /a:\n    post: {OK}\n",
        "duplicate key '/a' at line 8 (first at line 4)",
        "#/paths/~1a",
    ),
    "yaml-title-twice": (
        "api.yaml",
        "openapi: 3.1.0\ninfo:\n  title: one\n  version: '1'\n  title: two\npaths: {}\n",
        "duplicate key 'title' at line 5 (first at line 3)",
        "#/info/title",
    ),
    "yaml-status-as-number-and-string": (
        "api.yaml",
        HEAD + "paths:\n  /a:\n    get:\n      responses:\n        200: {description: a}\n"
        "        '200': {description: b}\n",
        "duplicate key '200' at line 8 (first at line 7)",
        "#/paths/~1a/get/responses/200",
    ),
    "json-paths-twice": (
        "api.json",
        '{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},\n'
        ' "paths": {"/a": {"get": {"responses": {"204": {"description": "ok"}}}}},\n'
        ' "paths": {"/b": {"get": {"responses": {"204": {"description": "ok"}}}}}}\n',
        "duplicate key 'paths' at line 3 (first at line 2)",
        "#/paths",
    ),
}


@pytest.mark.parametrize("case", sorted(DOCUMENTS))
def test_duplicate_key_in_a_document_is_an_error(tmp_path: Path, case: str) -> None:
    name, text, message, ptr = DOCUMENTS[case]
    (tmp_path / name).write_text(text)
    out = tmp_path / "out"
    proc = run_cli("generate", "--spec", str(tmp_path / name), "--out", str(out), "--package", "p")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{tmp_path / name}{ptr}: error: {message}" in lines[0], lines[0]
    assert "[duplicate-key]" in lines[0]
    assert not out.exists()


OVERLAYS = {
    "overlay.yaml": (
        "overlay: 1.0.0\ninfo: {title: o, version: '1'}\nactions:\n"
        "  - target: $.info\n    update: {x-a: 1}\n    description: one\n"
        "    update: {x-b: 2}\n",
        "#/actions/0/update: error: duplicate key 'update' at line 7 (first at line 5)",
    ),
    "overlay.json": (
        '{"overlay": "1.0.0", "info": {"title": "o", "version": "1"},\n'
        ' "actions": [{"target": "$.info", "update": {"x-a": 1},\n'
        '              "target": "$.paths"}]}\n',
        "#/actions/0/target: error: duplicate key 'target' at line 3 (first at line 2)",
    ),
}


@pytest.mark.parametrize("name", sorted(OVERLAYS))
def test_duplicate_key_in_an_overlay_is_an_error(tmp_path: Path, name: str) -> None:
    text, message = OVERLAYS[name]
    (tmp_path / "api.yaml").write_text(HEAD + f"paths:\n  /a:\n    get: {OK}\n")
    (tmp_path / name).write_text(text)
    out = tmp_path / "out"
    spec, overlay = str(tmp_path / "api.yaml"), str(tmp_path / name)
    for args in (
        ["generate", "--spec", spec, "--out", str(out), "--package", "p", "--overlay", overlay],
        ["overlay", "check", "--spec", spec, overlay],
    ):
        proc = run_cli(*args)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert str(tmp_path / name) + message in lines[0], lines[0]
    assert not out.exists()


def test_merge_keys_may_still_override() -> None:
    """YAML's ``<<`` merge is an explicit override, not a duplicate."""
    doc = parse_text("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  x: 3\n", "f.yaml")
    assert doc["d"] == {"x": 3, "y": 2}


def test_same_key_in_different_objects_is_fine() -> None:
    doc = parse_text('{"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 3}, {"k": 4}]}', "f.json")
    assert doc["c"][1]["k"] == 4


def test_json_duplicate_with_escaped_quotes_names_its_lines() -> None:
    with pytest.raises(CodegenError) as info:
        parse_text('{"a\\"b": 1,\n "x": {"a\\"b": 1},\n "a\\"b": 2}', "f.json")
    assert "duplicate key 'a\"b' at line 3 (first at line 1)" in info.value.first.message
    assert info.value.first.pointer == '/a"b'


def test_json_duplicate_inside_a_list_names_its_pointer() -> None:
    with pytest.raises(CodegenError) as info:
        parse_text('{"a": [1, {"q": 1}, {"b/c": 1,\n "b/c": 2}]}', "f.json")
    assert info.value.first.pointer == "/a/2/b~1c"
    assert "at line 2 (first at line 1)" in info.value.first.message


def test_yaml_keys_are_read_as_written(tmp_path: Path) -> None:
    """YAML 1.1 reads ``1`` and ``true`` as the same Python key (one entry would vanish) and
    ``yes`` as a boolean: OpenAPI's keys are strings, so each is kept as written."""
    from generator.document.loader import load_document

    doc = tmp_path / "keys.yaml"
    doc.write_text(
        "a:\n  1: one\n  true: yes\n  yes: on\n  200: ok\n  0x1F: hex\n", encoding="utf-8"
    )
    assert load_document(doc) == {
        "a": {"1": "one", "true": True, "yes": True, "200": "ok", "0x1F": "hex"}
    }
