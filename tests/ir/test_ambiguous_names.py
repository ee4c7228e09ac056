"""A parameter or field the document names ``l`` (or ``L``) is ``l_`` in Python: the linter
refuses a lone ``l`` as a name (E741), and the wire name is still sent as written. A schema
named ``O`` or ``I`` (or ``o``, ``i``) is class ``OModel``/``IModel``: the linter refuses those
letters as class names (E742; found by the fuzzer)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from generator.ir.naming import ClassName, PythonIdentifier, rename_reason
from tests.helpers import generate_with_report


def test_a_lone_l_is_renamed_and_said_so() -> None:
    assert PythonIdentifier("l") == "l_"
    assert PythonIdentifier("L") == "l_"
    assert PythonIdentifier("level") == "level"
    assert rename_reason("l", "l_", "l_") == (
        "info",
        "a lone `l` reads like `1` or `I` (the linter refuses it as a name)",
    )


def test_a_lone_o_or_i_class_is_renamed_and_said_so() -> None:
    assert [ClassName(n) for n in ("O", "o", "I", "i", "l", "Io")] == [
        "OModel",
        "OModel",
        "IModel",
        "IModel",
        "L",
        "Io",
    ]
    assert rename_reason("o", "OModel", "OModel") == (
        "info",
        "a lone `O` reads like a digit (the linter refuses it as a class name)",
    )


def _doc() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.test"}],
        "paths": {
            "/items/{L}": {
                "get": {
                    "operationId": "getItem",
                    "parameters": [
                        {
                            "name": "L",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "integer"},
                        },
                        {"name": "l", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {"schema": {"$ref": "#/components/schemas/O"}}
                            },
                        }
                    },
                }
            }
        },
        "components": {
            "schemas": {
                "O": {
                    "anyOf": [{"type": "object"}, {"type": "array", "items": {"type": "boolean"}}]
                },
                "I": {"type": "object", "properties": {"o": {"$ref": "#/components/schemas/O"}}},
            }
        },
    }


def test_the_package_passes_the_linter_and_sends_the_wire_names(tmp_path: Path) -> None:
    out = tmp_path / "out"
    files, _ = generate_with_report(_doc(), out, "amb_client")
    source = files["amb_client/resources/default.py"]
    assert '"L": l_,' in source and '"l": l_2,' in source
    assert "\n        l: " not in source
    classes = "".join(text for name, text in files.items() if "/_classes/" in name)
    assert "class OModel(" in classes and "class IModel(" in classes
    assert "class O(" not in classes and "class I(" not in classes
    ruff = Path(sys.executable).with_name("ruff")
    proc = subprocess.run(
        [str(ruff), "check", "--no-cache", "."],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout
