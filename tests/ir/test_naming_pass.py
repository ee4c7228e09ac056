"""Class names are made in one pass before the IR is built (``ir/naming_pass.py``): the builder
makes the IR from the pass's types and never types a schema itself, and a frozen catalogue names
nothing."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.diagnostics import CodegenError
from generator.ir.build import FamilyBuilder
from generator.ir.schemas import NotNamed
from generator.ir.types import Family, ModelRef
from generator.pipeline import load_family, single_document_config
from tests.breadth.big_documents import assistant_document
from tests.breadth.test_corpus import corpus_documents
from tests.ir import naming_guard


def _builder(spec: Path, out: Path) -> tuple[FamilyBuilder, Family]:
    config = single_document_config(spec, (), "named_client", out)
    fam = load_family(config, config.families[0])
    builder = FamilyBuilder(fam.document, fam.file, fam.config)
    return builder, builder.build()


@pytest.fixture
def typing_only_in_the_pass() -> Iterator[list[int]]:
    """After the naming pass, any type lookup fails the build; gives how many passes ran."""
    with naming_guard.typing_only_in_the_pass() as passes:
        yield passes.named


def _built(doc: dict[str, Any], tmp_path: Path) -> tuple[FamilyBuilder, Family]:
    spec = tmp_path / "doc.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    return _builder(spec, tmp_path / "out")


def _document(paths: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "N", "version": "1"},
        "paths": paths,
        "components": {"schemas": schemas},
    }


def _object(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def _thing_document() -> dict[str, Any]:
    """Operation ``a`` has a query parameter ``b`` that is an inline object (hint ``AB``); the
    component ``A`` has a property ``b`` that is a discriminated union (hint ``AB`` too), which
    only the walk over the models reaches."""
    union = {
        "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
        "discriminator": {"propertyName": "kind"},
    }
    pet = {"type": "string"}
    return _document(
        {
            "/a": {
                "get": {
                    "operationId": "a",
                    "parameters": [
                        {"name": "b", "in": "query", "schema": _object(x={"type": "integer"})}
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": _object(y=pet)}},
                        }
                    },
                }
            }
        },
        {"A": _object(b=union), "Cat": _object(kind=pet), "Dog": _object(kind=pet)},
    )


def test_names_follow_the_builders_order_operations_first(
    tmp_path: Path, typing_only_in_the_pass: list[int]
) -> None:
    builder, family = _built(_thing_document(), tmp_path)
    assert typing_only_in_the_pass == [1]
    (op,) = family.resources[0].operations
    (param,) = op.parameters
    assert param.type == ModelRef("AB")  # the operation's site came first
    assert op.success.type == ModelRef("AResponse")
    field = next(m for m in family.models if m.name == "A").fields[0]  # type: ignore[union-attr]
    assert field.type.members[0] == ModelRef("AB2")  # the model walk came after
    twins = {m.name: m.input_name for m in family.models if m.input_name}
    assert twins == {"AB": "ABParam"}  # named in the pass: only the parameter's class is sent
    assert builder.ctx.catalog.frozen


def test_a_frozen_catalogue_names_nothing(tmp_path: Path) -> None:
    builder, family = _built(_thing_document(), tmp_path)
    types, catalog = builder.ctx.types, builder.ctx.catalog
    before = dict(catalog.models)
    assert types.type_of({"$ref": "#/components/schemas/Cat"}, "Any") == ModelRef("Cat")  # reads
    with pytest.raises(NotNamed, match="Late"):
        types.type_of(_object(z={"type": "string"}), "Late")
    with pytest.raises(NotNamed, match="paths"):
        types.type_of({"$ref": "#/paths/~1a/get/responses/200"}, "Elsewhere")
    with pytest.raises(NotNamed, match="Hoisted"):
        catalog.hoist(_object(z={"type": "string"}), "Hoisted")
    assert catalog.models == before
    assert sorted(m.name for m in family.models) == sorted(before)  # every class has its model


# the payments document's check is tests/breadth/test_big_documents.py's: the same build as its
# generation test there, made once
@pytest.mark.parametrize("make", [assistant_document])
@pytest.mark.slow
def test_big_documents_build_without_typing_after_the_pass(
    make: Callable[[], dict[str, Any]], tmp_path: Path, typing_only_in_the_pass: list[int]
) -> None:
    builder, family = _built(make(), tmp_path)
    assert typing_only_in_the_pass == [sum(len(r.operations) for r in family.resources)]
    assert len(family.models) == len(builder.ctx.catalog.models) > 100


def test_every_corpus_document_builds_without_typing_after_the_pass(
    shared_dir: Path, tmp_path: Path, typing_only_in_the_pass: list[int]
) -> None:
    built = 0
    for spec in corpus_documents(shared_dir / "specs"):
        try:
            builder, _ = _builder(spec, tmp_path / "out")
        except CodegenError:
            continue  # refused documents (Swagger 2.0, broken ones) build nothing
        assert builder.ctx.catalog.frozen, spec
        built += 1
    assert built >= 40
    assert len(typing_only_in_the_pass) == built


def test_each_operations_findings_stay_together_in_document_order(tmp_path: Path) -> None:
    """Method names are all made before the pass, but what naming found is said with the rest
    of its operation's findings."""
    ok = {"200": {"description": "ok"}}
    doc = _document(
        {"/a/{x}": {"get": {"responses": ok}}, "/b/{y}": {"get": {"responses": ok}}}, {}
    )
    builder, _ = _built(doc, tmp_path)
    found = [(d.id, d.pointer) for d in builder.diagnostics]
    assert found == [
        ("operation-id-missing", "/paths/~1a~1{x}/get"),
        ("path-parameter-undeclared", "/paths/~1a~1{x}/get"),
        ("operation-id-missing", "/paths/~1b~1{y}/get"),
        ("path-parameter-undeclared", "/paths/~1b~1{y}/get"),
    ]
