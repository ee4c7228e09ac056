"""A parameter or field the document names ``l`` (or ``L``) is ``l_`` in Python: the linter
refuses a lone ``l`` as a name (E741), and the wire name is still sent as written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from generator.ir.naming import PythonIdentifier, rename_reason
from tests.helpers import generate_with_report


def test_a_lone_l_is_renamed_and_said_so() -> None:
    assert PythonIdentifier("l") == "l_"
    assert PythonIdentifier("L") == "l_"
    assert PythonIdentifier("level") == "level"
    assert rename_reason("l", "l_", "l_") == (
        "info",
        "a lone `l` reads like `1` or `I` (the linter refuses it as a name)",
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
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }


def test_the_package_passes_the_linter_and_sends_the_wire_names(tmp_path: Path) -> None:
    out = tmp_path / "out"
    files, _ = generate_with_report(_doc(), out, "amb_client")
    source = files["amb_client/resources/default.py"]
    assert '"L": l_,' in source and '"l": l__2,' in source
    assert "\n        l: " not in source
    ruff = Path(sys.executable).with_name("ruff")
    proc = subprocess.run(
        [str(ruff), "check", "--no-cache", "."],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout
