"""The drift check on the platform's real published documents (and the large Box document).

The expected operations added and removed are computed here by plain set arithmetic over method
and full URL path (server path prefix + path key, parameters normalised), not by the engine.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from generator.document.loader import load_document
from generator.drift import compare

METHODS = {"get", "put", "post", "delete", "patch", "options", "head", "trace"}
PARAM = re.compile(r"\{[^}]*\}")


def cube_docs(shared: Path) -> list[Path]:
    found = sorted((shared / "specs" / "cube").glob("platform-api.*.yaml"))
    if len(found) < 3:
        pytest.skip("the three platform-api documents are not in the shared folder")
    return found


def prefix(doc: dict[str, Any]) -> str:
    server = doc["servers"][0]
    url = server["url"]
    for name, var in server.get("variables", {}).items():
        url = url.replace("{" + name + "}", var["default"])
    return str(urlsplit(url).path).rstrip("/")


def operations(doc: dict[str, Any]) -> set[tuple[str, str]]:
    base = prefix(doc)
    return {
        (method.upper(), PARAM.sub("{}", base + path))
        for path, item in doc["paths"].items()
        for method in item
        if method in METHODS
    }


def reported(doc_changes: Any, rule: str) -> set[tuple[str, str]]:
    out = set()
    for change in doc_changes:
        if change.id == rule:
            method, path = change.operation.split(" ", 1)
            out.add((method, PARAM.sub("{}", path)))
    return out


@pytest.fixture(scope="module")
def documents(shared_dir: Path) -> list[dict[str, Any]]:
    return [load_document(p) for p in cube_docs(shared_dir)]


@pytest.mark.parametrize("pair", [(0, 1), (1, 2), (0, 2)], ids=["03-05", "05-07", "03-07"])
def test_operations_added_and_removed_match_set_arithmetic(
    documents: list[dict[str, Any]], pair: tuple[int, int]
) -> None:
    old, new = documents[pair[0]], documents[pair[1]]
    report = compare(old, new)
    assert reported(report.changes, "operation-added") == operations(new) - operations(old)
    assert reported(report.changes, "operation-removed") == operations(old) - operations(new)
    added = [c for c in report.changes if c.id == "operation-added"]
    assert len(added) == len({c.operation for c in added})  # each operation reported once


def test_base_path_move_is_not_a_removal(documents: list[dict[str, Any]]) -> None:
    old, new = documents[0], documents[1]
    assert prefix(old) == "/api" and prefix(new) == ""  # the move this test is about
    naive_old = {(m.upper(), PARAM.sub("{}", p)) for p, item in old["paths"].items() for m in item}
    naive_new = {(m.upper(), PARAM.sub("{}", p)) for p, item in new["paths"].items() for m in item}
    assert not naive_old & naive_new  # by path key alone, every operation would look replaced
    kept = operations(old) & operations(new)
    assert len(kept) >= 30
    removed = reported(compare(old, new).changes, "operation-removed")
    assert not removed & kept
    assert len(removed) == len(operations(old)) - len(kept)


def test_base_path_move_is_reported_once_as_a_warning(documents: list[dict[str, Any]]) -> None:
    changes = [
        c for c in compare(documents[0], documents[1]).changes if c.id == "server-base-path-changed"
    ]
    assert [(c.level, c.operation, c.pointer) for c in changes] == [("warning", None, "/servers/0")]


def test_every_document_compared_with_itself_is_unchanged(documents: list[dict[str, Any]]) -> None:
    for doc in documents:
        assert compare(doc, copy.deepcopy(doc)).changes == ()


def test_report_is_deterministic(documents: list[dict[str, Any]]) -> None:
    first = compare(documents[0], documents[2]).changes
    again = compare(copy.deepcopy(documents[0]), copy.deepcopy(documents[2])).changes
    assert first == again
    assert list(first) == sorted(first, key=lambda c: c.sort_key())


def test_box_with_modifications(shared_dir: Path) -> None:
    path = shared_dir / "specs" / "large" / "box" / "openapi.json"
    if not path.is_file():
        pytest.skip("the Box document is not in the shared folder")
    old = load_document(path)
    new = copy.deepcopy(old)
    assert compare(old, new).changes == ()
    first_path = next(iter(new["paths"]))
    removed_ops = {m for m in new["paths"].pop(first_path) if m in METHODS}
    schemas = new["components"]["schemas"]
    schema_name = next(
        name
        for item in new["paths"].values()
        for op in [item.get("get")]
        if op is not None
        for media in [op["responses"].get("200", {}).get("content", {}).get("application/json")]
        if media is not None and "$ref" in media.get("schema", {})
        for name in [media["schema"]["$ref"].rsplit("/", 1)[1]]
        if len(schemas[name].get("properties", {})) > 1
    )
    schema = schemas[schema_name]
    gone = next(iter(schema["properties"]))
    del schema["properties"][gone]
    changes = compare(old, new).changes
    removed = {str(c.operation).split(" ")[0] for c in changes if c.id == "operation-removed"}
    assert removed == {m.upper() for m in removed_ops}
    pointer = f"/components/schemas/{schema_name}/properties/{gone}"
    assert any(c.pointer == pointer and c.id.endswith("property-removed") for c in changes)
