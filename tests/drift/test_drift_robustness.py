"""The comparison never crashes: arbitrary shapes inside a valid skeleton give a report or one
:class:`CodegenError`, and every document compared with a copy of itself is unchanged."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnostics import CodegenError
from generator.drift import compare

KEYS = st.sampled_from(
    [
        "type", "properties", "items", "required", "enum", "nullable", "oneOf", "anyOf", "allOf",
        "$ref", "format", "additionalProperties", "readOnly", "writeOnly", "const", "schema",
        "content", "application/json", "200", "default", "parameters", "name", "in", "security",
        "servers", "url", "variables", "requestBody", "responses", "deprecated", "a", "b", "get",
        "post", "x-ext", "tags", "operationId", "title",
    ]
)  # fmt: skip
REFS = st.sampled_from(["#/components/schemas/A", "#/components/schemas/B", "other.yaml#/X", "#/"])
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["string", "object", "array", "integer", "null", "query", "path", "header"]),
    REFS,
)
JSONISH = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(KEYS, children, max_size=4)
    ),
    max_leaves=25,
)


def skeleton(paths: Any, schemas: Any, security: Any) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://h/api"}],
        "security": security,
        "paths": {"/a/{id}": paths, "/b": {"get": paths}},
        "components": {
            "schemas": {"A": schemas, "B": {"type": "object", "properties": {"a": schemas}}}
        },
    }


DOCS = st.builds(skeleton, JSONISH, JSONISH, JSONISH)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(DOCS, DOCS)
def test_compare_gives_a_report_or_one_codegen_error(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    try:
        report = compare(old, new)
    except CodegenError as exc:
        assert exc.first.id in ("drift-invalid-ref", "drift-invalid-document")
        return
    assert list(report.changes) == sorted(report.changes, key=lambda c: c.sort_key())
    for change in report.changes:
        assert change.pointer.startswith("/") or change.pointer == ""


@settings(max_examples=200, deadline=None, derandomize=True)
@given(DOCS)
def test_a_document_compared_with_its_copy_is_unchanged(doc: dict[str, Any]) -> None:
    try:
        report = compare(doc, copy.deepcopy(doc))
    except CodegenError:
        return
    assert report.changes == ()
