"""``Resolver.check_all`` refuses the first broken reference in document order and names where
it stands, though it spells no pointer while walking."""

from __future__ import annotations

from typing import Any

import pytest

from generator.diagnostics import CodegenError
from generator.document.refs import Resolver


def _refused(doc: Any, *, local_only: bool = False) -> str:
    with pytest.raises(CodegenError) as caught:
        Resolver(doc, "doc.yaml").check_all(local_only=local_only)
    (d,) = caught.value.diagnostics
    return f"{d.id} {d.pointer}"


def test_the_first_dangling_reference_in_document_order_is_named() -> None:
    doc = {
        "paths": {"/a~b": {"get": {"parameters": [{"$ref": "#/ok"}, {"$ref": "#/gone/1"}]}}},
        "components": {"x": {"$ref": "#/gone/2"}},
        "ok": {},
    }
    assert _refused(doc) == "ref-dangling /paths/~1a~0b/get/parameters/1/$ref"
    del doc["paths"]
    assert _refused(doc) == "ref-dangling /components/x/$ref"


def test_a_node_shared_by_two_places_is_named_where_it_first_stands() -> None:
    shared = {"$ref": "#/nothing"}  # as YAML aliases give: one object, two places
    doc = {"first": [{}, shared], "second": shared}
    assert _refused(doc) == "ref-dangling /first/1/$ref"


def test_bundled_documents_refuse_what_is_not_local() -> None:
    assert _refused({"a": {"b": {"$ref": "other.yaml#/x"}}}, local_only=True) == (
        "ref-unresolved /a/b"
    )
    assert _refused({"a": [{"$ref": 5}]}, local_only=True) == "ref-invalid /a/0/$ref"
    Resolver({"a": {"$ref": "other.yaml#/x"}}, "doc.yaml").check_all()  # followed elsewhere


def test_an_invalid_pointer_is_named_and_a_good_one_is_remembered() -> None:
    doc = {"a": {"$ref": "#b"}, "b": {}}
    assert _refused(doc) == "ref-invalid /a/$ref"
    good = {"a": {"$ref": "#/b"}, "b": {"c": 1}}
    resolver = Resolver(good, "doc.yaml")
    resolver.check_all()
    assert resolver.lookup("#/b", "") == ({"c": 1}, "/b")


def _self_contained(doc: Any) -> str:
    """What the one-walk check says of ``doc``: "bundle" (it names another file), "ok", or
    the diagnostic of the reference it refuses."""
    try:
        return "ok" if Resolver(doc, "doc.yaml").check_self_contained() else "bundle"
    except CodegenError as exc:
        (d,) = exc.diagnostics
        return f"{d.id} {d.pointer}"


@pytest.mark.parametrize(
    "doc",
    [
        {
            "paths": {"/a~b": {"get": {"parameters": [{"$ref": "#/ok"}, {"$ref": "#/gone/1"}]}}},
            "components": {"x": {"$ref": "#/gone/2"}},
            "ok": {},
        },
        {"components": {"x": {"$ref": "#/gone/2"}}, "later": [{"$ref": "#/gone/3"}]},
        {"first": [{}, {"$ref": "#b"}], "second": {"$ref": "#/nothing"}},
        {"a": [{"$ref": 5}], "b": {"$ref": "#/nothing"}},
        {"a": [{"$ref": "#/b"}], "b": {"c": [1, {"$ref": "#/a/0"}]}},
    ],
)
def test_a_self_contained_document_is_judged_as_the_full_check_judges_it(doc: Any) -> None:
    """One walk instead of two for a document that names no other file: the same verdict, and
    the same first broken reference in document order, as the check of the bundled document."""
    try:
        Resolver(doc, "doc.yaml").check_all(local_only=True)
        expected = "ok"
    except CodegenError as exc:
        (d,) = exc.diagnostics
        expected = f"{d.id} {d.pointer}"
    assert _self_contained(doc) == expected


@pytest.mark.parametrize(
    "doc",
    [
        {"a": {"$ref": "#/nothing"}, "z": {"b": {"$ref": "other.yaml#/x"}}},
        {"a": {"$ref": 5}, "z": [{"$ref": "other.json"}]},
        {"s": {"discriminator": {"propertyName": "k", "mapping": {"c": "cat.yaml#/Cat"}}}},
    ],
)
def test_a_document_naming_another_file_goes_to_the_bundler_first(doc: Any) -> None:
    """A broken local reference is not judged before bundling (the bundler's own findings come
    first, as they did): the walk only says the document needs it."""
    assert _self_contained(doc) == "bundle"
