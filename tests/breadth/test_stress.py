"""Large and awkward documents of our own making give a clean package: many schemas, deep
``$ref`` rings, huge enums, names that collide after Python naming, cyclic discriminated unions,
and a package name ending in ``_``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.pipeline import generate, single_document_config, strip_root

PACKAGE = "stress_"
SCHEMAS = 600
RING = 40


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def stress_document() -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for i in range(SCHEMAS):  # objects referring to the next: one long chain with back-links
        schemas[f"Item{i}"] = {
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "integer"},
                "next": _ref(f"Item{(i + 1) % SCHEMAS}"),
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
    spec = tmp_path / "stress.json"
    spec.write_text(json.dumps(stress_document()), encoding="utf-8")
    out = tmp_path / "dist"
    result = generate(single_document_config(spec, (), PACKAGE, out))
    assert not [d for d in result.diagnostics if d.level == "error"]
    for rel, text in strip_root(result.files, PACKAGE).items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    bin_dir = Path(sys.executable).parent
    for args in (
        [str(bin_dir / "ruff"), "check", "--no-cache", "."],
        [str(bin_dir / "ruff"), "format", "--check", "--no-cache", "."],
        [str(bin_dir / "mypy"), "--cache-dir", str(tmp_path / "mypy"), PACKAGE],
    ):
        proc = subprocess.run(
            args, cwd=out, capture_output=True, text=True, timeout=600, check=False
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]
    probe = (
        f"from {PACKAGE} import models\n"
        "a = models.Animal.model_validate({'kind': 'cat', 'friends': [{'kind': 'dog'}]})\n"
        "assert a.root.kind == 'cat'\n"
        "i = models.Item0.model_validate({'id': 1, 'next': {'id': 2}})\n"
        "assert i.next is not None and i.next.id == 2\n"
        "r = models.Ring0.model_validate([['x']])\n"
        "assert isinstance(r.root, list)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
