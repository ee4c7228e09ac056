"""The catalogue's facts memo (``ir/schemas.py``): each rewritten schema's facts are derived from
the facts of the schema it was rewritten from, not read again; they must say what reading the
rewrite afresh says, for every node the builder typed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.document.schema_facts import facts
from generator.ir.build import FamilyBuilder
from generator.pipeline import load_family, single_document_config
from tests.document.test_schema_facts import same_facts
from tests.helpers import mappings_in, openapi_document, operation, schema_ref

_TWIN = {"type": "object", "properties": {"n": {"type": "integer"}}}
_SCHEMAS: dict[str, Any] = {
    # alike but for one keyword each: a bad default (left out), an unusable pattern (left out)
    "Good": {**_TWIN, "properties": {"n": {"type": "integer", "default": 2}}},
    "Bad": {**_TWIN, "properties": {"n": {"type": "integer", "default": "x"}}},
    "Patterned": {"type": "string", "pattern": "^a+$"},
    "Unpatterned": {"type": "string", "pattern": "(?<=a)b"},
    "Pet": {
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": {"type": "integer", "minimum": 1, "default": 0},
            "owner": {"type": "object", "properties": {"name": {"type": "string"}}},
            "tags": {"type": "array", "items": {"type": "object", "properties": {}}},
            "kind": {"oneOf": [], "anyOf": [schema_ref("Good"), {"type": "null"}]},
            "map": {"type": "object", "additionalProperties": schema_ref("Pet")},
            "alias": {"allOf": [schema_ref("Bad")], "description": "one member"},
            "either": {
                "oneOf": [schema_ref("Good"), schema_ref("Bad")],
                "discriminator": {"propertyName": "n", "mapping": {"1": "Good", "2": "Bad"}},
            },
            "nullable": {"type": ["string", "null"], "enum": ["a", None]},
        },
    },
    "Cat": {"allOf": [schema_ref("Pet"), {"properties": {"lives": {"type": "integer"}}}]},
}


def _built(tmp_path: Path) -> FamilyBuilder:
    doc = openapi_document(
        {
            "/pets": {
                "post": operation(
                    "addPet", schema_ref("Cat"), body={**_TWIN, "properties": {"p": _TWIN}}
                )
            },
            "/tags": {"get": operation("tags", {"type": "array", "items": schema_ref("Pet")})},
        },
        schemas=_SCHEMAS,
    )
    spec = tmp_path / "doc.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    config = single_document_config(spec, (), "facts_client", tmp_path / "out")
    fam = load_family(config, config.families[0])
    builder = FamilyBuilder(fam.document, fam.file, fam.config)
    builder.build()
    return builder


def test_every_catalogue_node_reads_as_read_afresh(tmp_path: Path) -> None:
    """Over every node of the built catalogue the memo read: the memo's facts are the node's
    own, fact by fact (a rewrite's children, not those of the schema it came from)."""
    catalog = _built(tmp_path).ctx.catalog
    checked = 0
    for node in mappings_in(list(catalog.models.values())):
        found = catalog.facts.get(id(node))
        if found is None:
            continue
        same_facts(found, facts(node))
        checked += 1
    assert checked >= 20, checked  # the walk met the rewritten nodes


def test_schemas_alike_but_for_a_dropped_keyword_keep_their_own_facts(tmp_path: Path) -> None:
    """Two schemas alike but for a default or a pattern the rewrite leaves out: each reads as
    it now stands, one with its default and one without, one with its pattern, one without."""
    catalog = _built(tmp_path).ctx.catalog
    good_n = catalog.models["Good"]["properties"]["n"]
    bad_n = catalog.models["Bad"]["properties"]["n"]
    assert catalog.facts(good_n).default == (2,)
    assert "default" not in bad_n and catalog.facts(bad_n).default == ()
    assert catalog.facts(catalog.models["Patterned"]).pattern == "^a+$"
    assert catalog.facts(catalog.models["Unpatterned"]).pattern is None
    owner = catalog.models["Pet"]["properties"]["owner"]  # hoisted: a reference now
    assert catalog.facts(owner).ref is not None and catalog.facts(owner).properties is None


def test_a_node_with_nothing_to_rewrite_is_the_documents_own(tmp_path: Path) -> None:
    """A node with no reference, child schema, default or pattern is not copied (most nodes of a
    large document); one with any of them is a rewrite, and the document is left as it was."""
    builder = _built(tmp_path)
    catalog, doc = builder.ctx.catalog, builder.ctx.doc
    pet = catalog.models[catalog.by_pointer["#/components/schemas/Pet"]]
    source = doc["components"]["schemas"]["Pet"]
    assert pet["properties"]["nullable"] is source["properties"]["nullable"]  # a leaf: kept
    assert pet is not source and pet["properties"]["id"] is not source["properties"]["id"]
    assert "default" in source["properties"]["id"]  # a rewrite never changes the document
    assert doc == json.loads((tmp_path / "doc.json").read_text(encoding="utf-8"))
