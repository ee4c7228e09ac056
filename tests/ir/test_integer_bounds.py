"""An integer property with fractional bounds still gives a package that imports.

``maximum: 2.5`` on ``type: integer`` is valid JSON Schema; rendered as ``le=2.5`` on an ``int``
field, pydantic refused the model when the module loaded (found by the fuzzer). The bounds are
now whole numbers that accept exactly the same integers.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pydantic
import pytest

from tests.helpers import imported_package, openapi_document, operation, schema_ref

PROPS: dict[str, dict[str, Any]] = {
    "at_most": {"type": "integer", "maximum": 2.5},
    "at_least": {"type": "integer", "minimum": -1.5},
    "above": {"type": "integer", "exclusiveMinimum": 0.5},
    "below": {"type": "integer", "exclusiveMaximum": 4.5},
    "fives": {"type": "integer", "multipleOf": 2.5},
    "halves": {"type": "integer", "multipleOf": 0.5},
    "whole": {"type": "integer", "maximum": 7.0},
    "ratio": {"type": "number", "maximum": 2.5},
    "both_low": {"type": "integer", "minimum": 2.5, "exclusiveMinimum": 2.5},
    "both_high": {"type": "integer", "maximum": 7.5, "exclusiveMaximum": 7.2},
}


def _doc() -> dict[str, Any]:
    return openapi_document(
        {"/b": {"get": operation("getBounds", schema_ref("Bounds"))}},
        schemas={"Bounds": {"type": "object", "properties": PROPS}},
        title="Bounds",
    )


@pytest.mark.parametrize(
    ("field", "accepted", "refused"),
    [
        ("at_most", [2, -9], [3]),
        ("at_least", [-1, 0], [-2]),
        ("above", [1, 2], [0]),
        ("below", [4], [5]),
        ("fives", [0, 5, -10], [2, 3]),
        ("halves", [1, 3], []),
        ("whole", [7], [8]),
        ("ratio", [2.5, 2], [2.6]),
        ("both_low", [3], [2]),  # both bounds became ge=3: one keyword, not two (fuzzer)
        ("both_high", [7], [8]),
    ],
)
def test_fractional_bounds_on_integers_keep_their_meaning(
    tmp_path: Path, field: str, accepted: list[Any], refused: list[Any]
) -> None:
    with imported_package(_doc(), tmp_path / "bounds_client", "bounds_client"):
        models = importlib.import_module("bounds_client.models")
        for value in accepted:
            assert getattr(models.Bounds.model_validate({field: value}), field) == value
        for value in refused:
            with pytest.raises(pydantic.ValidationError):
                models.Bounds.model_validate({field: value})
