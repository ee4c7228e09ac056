"""Enum and body values that a ``Literal`` or an ``==`` cannot carry still give a package that
passes ruff and ``mypy --strict`` (both found by the fuzzer).

* An integer enum with a value of 2**63 - 1 or beyond became ``Literal[...]``, which mypy refuses
  ("cannot contain arbitrary expressions"); such an enum is now typed ``int``.
* A JSON request body whose only value is null gave the generated test
  ``assert rec.json() == None``, which ruff refuses (E711); it is now ``is None``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.ir.type_map import _literal
from generator.ir.types import ANY, NONE, LiteralOf, UnionOf
from tests.helpers import (
    TYPED_PACKAGE,
    check_clean_and_typed,
    generate_package,
    model_source,
    openapi_document,
    operation,
    schema_ref,
)

BIG = [2**63 - 1, -(2**63), 10**30]


def _doc(schema: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    put = operation("putEdge", schema_ref("Edge"), body=body)
    return openapi_document({"/e": {"put": put}}, schemas={"Edge": schema}, title="Edges")


@pytest.mark.parametrize("value", BIG)
def test_integer_enums_beyond_64_bits_are_typed_int(tmp_path: Path, value: int) -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "enum": [1, value]}, "m": {"enum": [value, "a"]}},
    }
    files = generate_package(_doc(schema, {"type": "integer"}), tmp_path / "e", TYPED_PACKAGE)
    models = model_source(files, TYPED_PACKAGE)
    assert str(value) not in models.split("class Edge", 1)[1].split("\n\n\n", 1)[0]
    check_clean_and_typed(tmp_path / "e", TYPED_PACKAGE, tmp_path / "mypy-cache")


def test_small_integer_enums_stay_literal(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2**62]}}}
    files = generate_package(_doc(schema, {"type": "integer"}), tmp_path / "e", TYPED_PACKAGE)
    assert f"Literal[1, {2**62}]" in model_source(files, TYPED_PACKAGE)


@pytest.mark.parametrize("body", [{"type": "null"}, {"const": True}, {"enum": [False]}])
def test_a_constant_json_body_is_compared_with_is(tmp_path: Path, body: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"v": {"type": "string"}}}
    files = generate_package(_doc(schema, body), tmp_path / "e", TYPED_PACKAGE)
    tests = "".join(t for rel, t in files.items() if rel.startswith("tests/"))
    assert "assert rec.json() ==" not in tests.replace("assert rec.json() == {", "")
    check_clean_and_typed(tmp_path / "e", TYPED_PACKAGE, tmp_path / "mypy-cache")


def test_an_enum_lists_each_value_once_and_one_apart_from_true() -> None:
    """``1`` and ``True`` are two values (``1 == True`` notwithstanding); a value written twice is
    one, wherever the other stands between them (the old dedupe wrote ``Literal[1, True, 1]``)."""
    assert _literal([1, True, 1, True, "a", "a"]) == LiteralOf((1, True, "a"))
    assert _literal([0, False, None, 0]) == UnionOf((LiteralOf((0, False)), NONE))
    assert _literal([1, 2.5]) is ANY  # a float: no Literal can say it
