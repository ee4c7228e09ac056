"""Large and awkward documents of our own making give a clean package: many schemas, deep
``$ref`` rings, huge enums, names that collide after Python naming, cyclic discriminated unions,
and a package name ending in ``_``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import check_clean_and_typed, generate_package, run_python

PACKAGE = "stress_"
SCHEMAS = 600
RING = 40


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def stress_document() -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for i in range(SCHEMAS):  # objects in rings of ten, each referring to the next
        ring_next = i - i % 10 + (i + 1) % 10
        schemas[f"Item{i}"] = {
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "integer"},
                "next": _ref(f"Item{ring_next}"),
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 20}},
            },
        }
    for i in range(RING):  # a ring of value schemas through arrays and unions
        schemas[f"Ring{i}"] = {
            "anyOf": [{"type": "string"}, {"type": "array", "items": _ref(f"Ring{(i + 1) % RING}")}]
        }
    schemas["Huge"] = {"type": "string", "enum": [f"v{i}" for i in range(2000)]}
    for spelling in ("pet-name", "pet_name", "PetName", "petName", "Pet Name", "pet.name"):
        schemas[spelling] = {"type": "object", "properties": {spelling: {"type": "string"}}}
    schemas["Animal"] = {
        "oneOf": [_ref("Cat"), _ref("Dog")],
        "discriminator": {"propertyName": "kind", "mapping": {"cat": "#/components/schemas/Cat"}},
    }
    for name, kind in (("Cat", "cat"), ("Dog", "dog")):
        schemas[name] = {
            "allOf": [
                _ref("AnimalBase"),
                {
                    "type": "object",
                    "properties": {
                        "kind": {"const": kind},
                        "friends": {"type": "array", "items": _ref("Animal")},
                    },
                },
            ]
        }
    schemas["AnimalBase"] = {"type": "object", "properties": {"kind": {"type": "string"}}}
    list_response = {
        "200": {
            "description": "ok",
            "content": {"application/json": {"schema": {"type": "array", "items": _ref("Animal")}}},
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Stress", "version": "1"},
        "paths": {
            "/animals": {"get": {"operationId": "listAnimals", "responses": list_response}},
            "/items/{id}": {
                "get": {
                    "operationId": "getItem",
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "integer"},
                        },
                        {"name": "huge", "in": "query", "schema": _ref("Huge")},
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": _ref("Item0")}},
                        }
                    },
                }
            },
        },
        "components": {"schemas": schemas},
    }


@pytest.mark.slow
def test_stress_document_gives_a_clean_typed_package(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    generate_package(stress_document(), out, PACKAGE)
    check_clean_and_typed(out, PACKAGE, tmp_path / "mypy")
    run_python(
        f"from {PACKAGE} import models\n"
        "a = models.Animal.model_validate({'kind': 'cat', 'friends': [{'kind': 'dog'}]})\n"
        "assert a.root.kind == 'cat'\n"
        "i = models.Item0.model_validate({'id': 1, 'next': {'id': 2}})\n"
        "assert i.next is not None and i.next.id == 2\n"
        "r = models.Ring0.model_validate([['x']])\n"
        "assert isinstance(r.root, list)\n",
        out,
    )
