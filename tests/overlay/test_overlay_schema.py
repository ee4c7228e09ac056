"""Overlay documents: our schema's rules, one-line errors with pointers, and loading from files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from generator.diagnostics import CodegenError, resolve_pointer
from generator.overlay import load_overlay, parse_overlay, validate_overlay_document
from generator.overlay.schema import overlay_schema

FILE = "x.overlay.yaml"


def doc(version: str = "1.1.0", /, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "overlay": version,
        "info": {"title": "t", "version": "1"},
        "actions": [{"target": "$.info", "update": {"x-a": 1}}],
    }
    base.update(extra)
    return base


def rejected(document: Any) -> CodegenError:
    with pytest.raises(CodegenError) as info:
        validate_overlay_document(document, FILE)
    error = info.value
    assert error.first.id == "overlay-invalid" and error.first.file == FILE
    assert "\n" not in error.first.message
    return error


@pytest.mark.parametrize("feature_set", ["1.0", "1.1"])
def test_our_schemas_are_valid_json_schema(feature_set: str) -> None:
    Draft202012Validator.check_schema(overlay_schema(feature_set))


def test_unknown_feature_set_is_refused() -> None:
    with pytest.raises(ValueError, match=r"1\.2"):
        overlay_schema("1.2")


@pytest.mark.parametrize(
    ("version", "feature_set"), [("1.0.0", "1.0"), ("1.0.7", "1.0"), ("1.1.0", "1.1")]
)
def test_valid_documents_report_their_feature_set(version: str, feature_set: str) -> None:
    assert validate_overlay_document(doc(version), FILE) == feature_set


@pytest.mark.parametrize(
    ("document", "ptr", "words"),
    [
        (["not", "an", "object"], "", "must be an object"),
        ({"info": {}, "actions": []}, "", "'overlay' is required"),
        (doc(overlay=1.1), "/overlay", "version string"),
        (doc("1.2.0"), "/overlay", "unsupported overlay version '1.2.0'"),
        (doc("2.0"), "/overlay", "unsupported"),
        ({k: v for k, v in doc().items() if k != "info"}, "", "'info' is required"),
        (doc(info={"title": "t"}), "/info", "'version' is required"),
        (doc(info={"title": 3, "version": "1"}), "/info/title", "must be a string, not a number"),
        (doc(actions=[]), "/actions", "at least one action"),
        (doc(actions={}), "/actions", "must be an array"),
        (doc(actions=[{"update": {}}]), "/actions/0", "'target' is required"),
        (doc(actions=[{"target": "info.x"}]), "/actions/0/target", "must start with '$'"),
        (doc(actions=[{"target": "$", "remove": "yes"}]), "/actions/0/remove", "a boolean"),
        (doc(actions=[{"target": "$", "description": 1}]), "/actions/0/description", "string"),
        (doc(actions=[{"target": "$", "add": {}}]), "/actions/0/add", "unknown property 'add'"),
        (doc(extends={}), "/extends", "must be a string"),
        (doc(oops=True), "/oops", "unknown property 'oops'"),
        (doc(actions=[{"target": "$"}, {"target": "$"}]), "/actions/1", "repeats action #0"),
        (
            doc(actions=[{"target": "$", "copy": "$.a", "update": {}}]),
            "/actions/0",
            "both 'update' and 'copy'",
        ),
        (doc(actions=[{"target": "$", "copy": 5}]), "/actions/0/copy", "must be a string"),
        (doc(actions=[{"target": "$", "copy": "a.b"}]), "/actions/0/copy", "start with '$'"),
        (
            doc(actions=[{"target": "$", "x-cube-optional": "yes"}]),
            "/actions/0/x-cube-optional",
            "a boolean",
        ),
        # 1.1-only fields in a 1.0 overlay
        (doc("1.0.0", actions=[{"target": "$", "copy": "$.a"}]), "/actions/0/copy", "1.1.0"),
        (
            doc("1.0.0", info={"title": "t", "version": "1", "description": "d"}),
            "/info/description",
            "1.1.0",
        ),
    ],
)
def test_invalid_documents_give_one_line_with_pointer(document: Any, ptr: str, words: str) -> None:
    error = rejected(document)
    assert error.first.pointer == ptr
    assert words in error.first.message
    assert str(error.first).startswith(f"{FILE}#{ptr}: error: " if ptr else f"{FILE}: error: ")
    resolve_pointer(document, ptr)  # the pointer names a value that exists


@pytest.mark.parametrize(
    "document",
    [
        doc(**{"x-root": {"any": ["thing"]}}),
        doc(info={"title": "t", "version": "1", "x-info": None}),
        doc(actions=[{"target": "$", "x-action": 1, "x-cube-optional": True}]),
        doc(actions=[{"target": "$", "update": None}]),
        doc(actions=[{"target": "$", "remove": True, "update": {"a": 1}}]),
        doc(actions=[{"target": "$.a", "remove": True, "copy": "$.b"}]),
        doc(info={"title": "t", "version": "1", "description": "d"}),
        doc(extends="./openapi.yaml"),
        doc("1.0.0", actions=[{"target": "$"}]),
    ],
)
def test_valid_documents(document: Any) -> None:
    assert validate_overlay_document(document, FILE) in ("1.0", "1.1")


def test_each_missing_property_is_reported_once() -> None:
    error = rejected({"overlay": "1.1.0"})
    assert [d.message for d in error.diagnostics] == ["'info' is required", "'actions' is required"]


def test_every_schema_error_is_kept_and_the_first_is_summarised() -> None:
    error = rejected(doc(info={"title": 1, "version": 2}))
    assert [d.pointer for d in error.diagnostics] == ["/info/title", "/info/version"]
    assert error.summary().endswith("(and 1 more)")


def test_untrusted_text_in_messages_is_folded() -> None:
    error = rejected(doc(**{"bad\nname": 1}))
    assert "bad\\x0aname" in error.first.message
    assert error.first.pointer == "/bad\nname"  # the pointer stays exact; the CLI folds lines


def test_model_built_from_document() -> None:
    overlay = parse_overlay(
        doc(
            "1.1.3",
            extends="https://example.com/api.yaml",
            actions=[
                {"target": "$.a", "update": None, "description": "null on purpose"},
                {"target": "$.b", "remove": True, "x-cube-optional": True},
                {"target": "$.c", "copy": "$.d"},
            ],
        ),
        FILE,
    )
    assert (overlay.file, overlay.version, overlay.feature_set) == (FILE, "1.1.3", "1.1")
    assert overlay.extends == "https://example.com/api.yaml"
    first, second, third = overlay.actions
    assert (first.index, first.has_update, first.update, first.description) == (
        0,
        True,
        None,
        "null on purpose",
    )
    assert (second.remove, second.allow_unmatched, second.has_update) == (True, True, False)
    assert (third.copy, third.pointer) == ("$.d", "/actions/2")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_load_overlay_reads_yaml_and_json(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"a.overlay{suffix}"
    document = doc()
    if suffix == ".json":
        path.write_text(json.dumps(document), encoding="utf-8")
    else:
        path.write_text(
            "overlay: 1.1.0\ninfo: {title: t, version: '1'}\n"
            "actions:\n  - target: $.info\n    update: {x-a: 1}\n",
            encoding="utf-8",
        )
    overlay = load_overlay(path)
    assert overlay.file == str(path)
    assert overlay.actions[0].update == {"x-a": 1}


def test_load_overlay_errors_are_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.overlay.yaml"
    with pytest.raises(CodegenError) as info:
        load_overlay(missing)
    assert info.value.first.id == "file-not-found"

    broken = tmp_path / "broken.overlay.yaml"
    broken.write_text("overlay: [1.1.0\n", encoding="utf-8")
    with pytest.raises(CodegenError) as info:
        load_overlay(broken)
    assert info.value.first.file == str(broken) and "\n" not in info.value.summary()

    invalid = tmp_path / "invalid.overlay.yaml"
    invalid.write_text("overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions: []\n")
    with pytest.raises(CodegenError) as info:
        load_overlay(invalid)
    assert (info.value.first.file, info.value.first.pointer) == (str(invalid), "/actions")
