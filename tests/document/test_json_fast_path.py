"""Parsed JSON is taken as it is when it is within bounds (``loader._json_within_bounds``): the
result, and the error for anything out of bounds, are exactly what the copying path gives."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnostics import CodegenError
from generator.document import loader

# Text with lone surrogates, pairs and plain characters, as JSON escapes can spell them.
_TEXT = st.text(
    st.one_of(
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=4,
)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)


def _outcome(text: str, *, fast: bool) -> tuple[str, Any]:
    try:
        if fast:
            return "ok", loader.parse_text(text, "doc.json", as_json=True)
        raw = json.loads(text, object_pairs_hook=loader._unique_object)
        return "ok", loader.normalise(raw, "doc.json")
    except CodegenError as exc:
        return "error", str(exc)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_any_json_value_reads_as_the_copying_path_reads_it(value: Any) -> None:
    text = json.dumps(value)  # ASCII: every non-ASCII character (and surrogate) is an escape
    assert _outcome(text, fast=True) == _outcome(text, fast=False)


def _nested(depth: int, leaf: str, *, mapping: bool) -> str:
    return ('{"a":' * depth + leaf + "}" * depth) if mapping else ("[" * depth + leaf + "]" * depth)


@pytest.mark.parametrize("mapping", [False, True])
@pytest.mark.parametrize("depth", [loader.MAX_DEPTH - 1, loader.MAX_DEPTH, loader.MAX_DEPTH + 1])
@pytest.mark.parametrize("leaf", ["1", "[]", '"\\ud800"'])
def test_the_depth_bound_and_surrogates_are_where_the_copying_path_puts_them(
    depth: int, leaf: str, mapping: bool
) -> None:
    text = _nested(depth, leaf, mapping=mapping)
    fast = _outcome(text, fast=True)
    assert fast == _outcome(text, fast=False)
    deep = depth > loader.MAX_DEPTH  # the innermost value stands at this depth
    assert (fast[0] == "error") == (deep or "ud800" in leaf)


def test_a_surrogate_pair_is_one_character_not_an_error() -> None:
    assert loader.parse_text('{"a": "\\ud83d\\ude00"}', "doc.json", as_json=True) == {"a": "😀"}
    with pytest.raises(CodegenError, match="surrogate"):
        loader.parse_text('{"a": ["\\udc00"]}', "doc.json", as_json=True)
