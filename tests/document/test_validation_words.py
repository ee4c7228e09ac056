"""Validation failures are told in the project's words: no library phrasing leaks into a
diagnostic (errors, or the warnings about what was worked around)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.diagnostics import CodegenError
from generator.document.validate import validate
from tests.helpers import run_cli

LIBRARY_PHRASES = (
    "Input should",
    "Field required",
    "valid dictionary",
    "Value error,",
    "further information",
    "pydantic",
    "Extra inputs",
    "Input tag",
)


def _doc(**over: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}, **over}


def _op(**op: Any) -> dict[str, Any]:
    return _doc(paths={"/a": {"get": {"responses": {"204": {"description": "ok"}}, **op}}})


BAD = {
    "openapi-3.0-short": ({**_doc(), "openapi": "3.0"}, "/openapi", "full version"),
    "openapi-3.1-short": ({**_doc(), "openapi": "3.1"}, "/openapi", "full version"),
    "info-version-missing": (_doc(info={"title": "t"}), "/info/version", "is missing"),
    "responses-number": (_op(responses=7), "/paths/~1a/get/responses", "must be a mapping"),
    "summary-list": (_op(summary=["x"]), "/paths/~1a/get/summary", "must be a string"),
    "deprecated-string": (_op(deprecated="very"), "/paths/~1a/get/deprecated", "true or false"),
    "servers-not-list": (_doc(servers={"url": "x"}), "/servers", "must be a list"),
    "parameter-in-bad": (
        _op(parameters=[{"name": "q", "in": "body", "schema": {}}]),
        "",
        "",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_invalid_documents_are_described_in_our_words(case: str) -> None:
    doc, ptr, words = BAD[case]
    try:
        _, repaired = validate(doc, "api.yaml")
    except CodegenError as exc:
        messages = [d.message for d in exc.diagnostics]
        if ptr:
            assert exc.first.pointer == ptr, exc.first
        if words:
            assert words in exc.first.message, exc.first.message
    else:  # worked around: the warning about it is in our words too
        messages = [d.message for d in repaired]
        assert messages, "neither refused nor repaired"
    for message in messages:
        for phrase in LIBRARY_PHRASES:
            assert phrase not in message, message


def test_short_openapi_version_on_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "api.yaml").write_text(
        "openapi: '3.0'\ninfo: {title: t, version: '1'}\npaths: {}\n"
    )
    proc = run_cli(
        "generate", "--spec", str(tmp_path / "api.yaml"), "--out", str(tmp_path / "o"),
        "--package", "p",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "api.yaml#/openapi" in proc.stderr and "full version such as 3.0.3" in proc.stderr
    assert not any(phrase in proc.stderr for phrase in LIBRARY_PHRASES), proc.stderr


def test_invalid_configuration_is_described_in_our_words(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "package: {name: ok, distribution: x, tests: maybe}\n"
        "families: [{name: a, document: a.yaml, module: a, client: A}]\n"
    )
    proc = run_cli("generate", "--config", str(tmp_path / "c.yaml"))
    assert proc.returncode == 2
    assert "c.yaml#/package/tests" in proc.stderr and "true or false" in proc.stderr
    assert not any(phrase in proc.stderr for phrase in LIBRARY_PHRASES), proc.stderr
