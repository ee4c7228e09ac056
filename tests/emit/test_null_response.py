"""An operation whose JSON response allows only null gets generated tests that type-check and
pass (found by the fuzzer: the tests assigned the result of a method typed ``-> None``, which
``mypy --strict`` refuses as func-returns-value)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import (
    TYPED_PACKAGE,
    check_clean,
    check_tests_typed,
    generate_package,
    openapi_document,
    operation,
    run_package_tests,
)


def _doc() -> dict[str, Any]:
    return openapi_document(
        {"/ping": {"get": operation("ping", {"type": "null"})}}, title="Nothing"
    )


def test_null_only_json_response_tests_typecheck_and_pass(tmp_path: Path) -> None:
    out = tmp_path / "nothing"
    files = generate_package(_doc(), out, TYPED_PACKAGE)
    assert "-> None:" in files[f"{TYPED_PACKAGE}/resources/default.py"]
    check_clean(out)  # the package is type-checked with its tests, below
    check_tests_typed(out, TYPED_PACKAGE, tmp_path / "mypy-cache")
    run_package_tests(out)
