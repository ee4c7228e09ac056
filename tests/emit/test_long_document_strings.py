"""Statements that carry a document's strings are laid out as the formatter would whatever
their length: a server URL just over the line (the formatter puts it in parentheses) and a
long, escaped credential header name in the generated tests' request check (found by the
fuzzer: ``ruff format --check`` failed on the generated tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    TYPED_PACKAGE,
    check_clean,
    check_clean_and_typed,
    generate_package,
    openapi_document,
    operation,
)

HEADER = "X-\U000c374b\U0002ca15\u00f6-Very-Long-Credential-Header-Name-For-This-Service-\U000901b4"


def _doc(url: str) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Long", "version": "1"},
        "servers": [{"url": url}],
        "components": {
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": HEADER}}
        },
        "security": [{"key": []}],
        "paths": {
            "/things": {
                "get": {
                    "operationId": "listThings",
                    "responses": {"204": {"description": "done"}},
                }
            }
        },
    }


@pytest.mark.parametrize("length", [86, 92, 120])
def test_long_document_strings_pass_the_formatter(tmp_path: Path, length: int) -> None:
    url = "https://api.example.com/" + "v" * (length - len("https://api.example.com/"))
    out = tmp_path / "long"
    files = generate_package(_doc(url), out, TYPED_PACKAGE)
    client = files[f"{TYPED_PACKAGE}/_client.py"]
    assert url in client
    tests = "".join(text for name, text in files.items() if name.startswith("tests/test_"))
    assert "CREDENTIAL" in tests and "\\U000901b4" in tests
    check_clean_and_typed(out, TYPED_PACKAGE, tmp_path / "mypy")


@pytest.mark.parametrize("said", ["\xa0", " \u2003 "])
def test_an_error_description_of_blank_characters_leaves_no_trailing_space(
    tmp_path: Path, said: str
) -> None:
    """An error response described only by characters the docstring drops (a no-break space;
    found by the fuzzer) is listed without a dangling `` - ``, which the formatter would
    strip (``ruff format --check`` failed on the generated resource)."""
    get = operation("getA")
    get["responses"]["404"] = {"description": said}
    get["responses"]["400"] = {"description": "bad input"}
    out = tmp_path / "blank_client"
    files = generate_package(openapi_document({"/a": {"get": get}}), out, "blank_client")
    resource = files["blank_client/resources/default.py"]
    assert "BadRequestError: 400 - bad input\n" in resource
    assert "NotFoundError: 404\n" in resource
    check_clean(out)
