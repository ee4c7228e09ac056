"""Test samples (``ir/samples.py``) are made once per class and depth and handed out again: a
shared sample must never change, and classes alike but for a keyword, or one class at two
depths, keep samples of their own."""

from __future__ import annotations

from typing import Any

from generator.ir.samples import Samples

_REF = "#/x-catalog/"
_SCHEMAS: dict[str, Any] = {
    "Cat": {
        "type": "object",
        "required": ["kind", "lives"],
        "properties": {"kind": {"type": "string"}, "lives": {"type": "integer", "minimum": 9}},
    },
    # alike but for one bound: its own sample
    "Lion": {
        "type": "object",
        "required": ["kind", "lives"],
        "properties": {"kind": {"type": "string"}, "lives": {"type": "integer", "minimum": 10}},
    },
    "Pet": {
        "oneOf": [{"$ref": _REF + "Cat"}, {"$ref": _REF + "Lion"}],
        "discriminator": {"propertyName": "kind", "mapping": {"cat": _REF + "Cat"}},
    },
    "Tree": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "child": {"$ref": _REF + "Tree"}},
    },
}


def test_a_union_sample_leaves_the_shared_class_sample_as_it_was() -> None:
    """The discriminated union sets its property on a copy of the variant's sample: the
    variant's own sample, made before and handed out after, keeps its sampled value."""
    samples = Samples(_SCHEMAS)
    cats = [samples.named("Cat", depth) for depth in range(4)]  # the union's variant among them
    assert all(cat == {"kind": "value", "lives": 9} for cat in cats)
    assert samples.named("Pet", 0) == {"kind": "cat", "lives": 9}
    assert [samples.named("Cat", depth) for depth in range(4)] == cats
    assert all(cat == {"kind": "value", "lives": 9} for cat in cats)
    assert samples.named("Cat", 0) is cats[0]  # made once


def test_classes_alike_and_one_class_at_two_depths_keep_their_own_samples() -> None:
    samples = Samples(_SCHEMAS)
    assert samples.named("Cat", 0)["lives"] == 9
    assert samples.named("Lion", 0)["lives"] == 10
    shallow, deep = samples.named("Tree", 0), samples.named("Tree", 8)
    assert deep == {}  # beyond the depth: an empty object
    assert shallow["name"] == "value" and isinstance(shallow["child"], dict)
    assert samples.named("Tree", 0) is shallow and samples.named("Tree", 8) is deep
    fresh = Samples(_SCHEMAS)  # the same answers without the memo's help
    assert fresh.named("Tree", 8) == {} and fresh.named("Tree", 0) == shallow
