"""The generated test for a missing or null required response field type-checks whatever the
other fields hold (found by the fuzzer on a damaged SCIM document).

Its body was an unannotated dict literal: with lists, strings and objects beside the null field,
mypy inferred ``dict[str, Collection[Collection[str]]]`` and refused the ``None``, so
``mypy --strict`` failed on the generated tests.
"""

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
    parameter,
    schema_ref,
)


def _doc() -> dict[str, Any]:
    group = {
        "type": "object",
        "required": ["displayName"],
        "properties": {
            "schemas": {"type": "array", "items": {"type": "string"}},
            "id": {"type": "string"},
            "displayName": {"type": "string"},
            "members": {"type": "array", "items": {"type": "object"}},
            "meta": {
                "type": "object",
                "properties": {"kind": {"type": "string"}, "location": {"type": "string"}},
            },
        },
    }
    get = operation("getGroup", schema_ref("Group"), parameters=[parameter("id", "path")])
    return openapi_document(
        {"/groups/{id}": {"get": get}}, schemas={"Group": group}, title="Groups", openapi="3.0.3"
    )


def test_required_field_test_typechecks_beside_mixed_fields(tmp_path: Path) -> None:
    files = generate_package(_doc(), tmp_path / "g", TYPED_PACKAGE)
    tests = "".join(t for rel, t in files.items() if rel.startswith("tests/test_"))
    assert "test_required_field_missing_or_null_is_a_warning" in tests
    check_clean(tmp_path / "g")  # the package is type-checked with its tests, below
    check_tests_typed(tmp_path / "g", TYPED_PACKAGE, tmp_path / "mypy-cache")
