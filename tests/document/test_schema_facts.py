"""The one reading of a schema node: schema dicts in, facts out, 3.0 and 3.1 spellings alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.document.loader import load_document
from generator.document.schema_facts import (
    BOUND_KEYWORDS,
    REWRITABLE,
    Bound,
    FactsMemo,
    SchemaFacts,
    facts,
    rewritten,
)
from tests.helpers import mappings_in


@pytest.mark.parametrize(
    ("node", "types", "null_type", "nullable", "only_null"),
    [
        ({"type": "string"}, ("string",), False, False, False),
        ({"type": "string", "nullable": True}, ("string",), False, True, False),  # 3.0
        ({"type": "string", "nullable": False}, ("string",), False, False, False),
        ({"type": "string", "nullable": "yes"}, ("string",), False, False, False),
        ({"type": ["string", "null"]}, ("string",), True, True, False),  # 3.1
        ({"type": ["null", "integer", "string"]}, ("integer", "string"), True, True, False),
        ({"type": "null"}, (), True, True, True),
        ({"type": ["null"]}, (), True, True, True),
        ({"type": ["object", 7, None]}, ("object",), False, False, False),  # non-names dropped
        ({"type": 7}, (), False, False, False),
        ({"description": "anything"}, (), False, False, False),
        ({"nullable": True}, (), False, True, False),  # nullable alone: any value or null
    ],
)
def test_types_and_nullability(
    node: dict[str, Any], types: tuple[str, ...], null_type: bool, nullable: bool, only_null: bool
) -> None:
    f = facts(node)
    assert (f.types, f.null_type, f.nullable, f.only_null) == (
        types,
        null_type,
        nullable,
        only_null,
    )
    assert f.nullable_keyword == (node.get("nullable") is True)


@pytest.mark.parametrize(
    ("node", "enum", "const", "choices"),
    [
        ({"enum": ["a", "b"]}, ["a", "b"], (), ["a", "b"]),
        ({"enum": ["a", None]}, ["a", None], (), ["a", None]),  # null listed as a value
        ({"enum": []}, [], (), []),
        ({"enum": "a"}, None, (), None),  # not a list: not an enum
        ({"const": None}, None, (None,), (None,)),  # a null const is still a const
        ({"const": 0, "enum": [1, 2]}, [1, 2], (0,), (0,)),  # const wins
        ({"type": "string"}, None, (), None),
    ],
)
def test_enum_and_const(
    node: dict[str, Any], enum: list[Any] | None, const: tuple[Any, ...], choices: Any
) -> None:
    f = facts(node)
    assert f.enum == enum
    assert f.const == const
    assert f.choices == choices


@pytest.mark.parametrize(
    ("node", "lower", "upper"),
    [
        ({"minimum": 1, "maximum": 9}, Bound(1, False), Bound(9, False)),
        # 3.0: the flag makes minimum/maximum exclusive
        ({"minimum": 1, "exclusiveMinimum": True}, Bound(1, True), None),
        ({"maximum": 9, "exclusiveMaximum": True}, None, Bound(9, True)),
        ({"minimum": 1, "exclusiveMinimum": False}, Bound(1, False), None),
        ({"exclusiveMinimum": True}, None, None),  # a flag with no number bounds nothing
        # 3.1: the exclusive bound is a number of its own; the tighter one wins
        ({"exclusiveMinimum": 0}, Bound(0, True), None),
        ({"exclusiveMaximum": 4.5}, None, Bound(4.5, True)),
        ({"minimum": 5, "exclusiveMinimum": 3}, Bound(5, False), None),
        ({"minimum": 2, "exclusiveMinimum": 2}, Bound(2, True), None),
        ({"maximum": 7.5, "exclusiveMaximum": 7.2}, None, Bound(7.2, True)),
        ({"maximum": 7, "exclusiveMaximum": 8}, None, Bound(7, False)),
        ({"minimum": True, "maximum": "9"}, None, None),  # not numbers: no bound
    ],
)
def test_numeric_bounds(node: dict[str, Any], lower: Bound | None, upper: Bound | None) -> None:
    f = facts(node)
    assert f.lower == lower
    assert f.upper == upper


def test_bounds_keep_numbers_in_keyword_order() -> None:
    node = {
        "maxLength": 9,
        "exclusiveMaximum": True,
        "minItems": 2,
        "minimum": 0.5,
        "minLength": False,
        "exclusiveMinimum": 0,
        "maxProperties": "3",
    }
    f = facts(node)
    assert list(f.bounds.items()) == [
        ("minimum", 0.5),
        ("exclusiveMinimum", 0),
        ("minItems", 2),
        ("maxLength", 9),
    ]
    assert list(f.bounds) == [k for k in BOUND_KEYWORDS if k in f.bounds]
    assert f.exclusive_flags == (False, True)


def test_members_object_map_and_array() -> None:
    item = {"type": "integer"}
    props = {"id": {"type": "string"}}
    node = {
        "type": "object",
        "properties": props,
        "required": ["id", 3, "name"],
        "additionalProperties": False,
        "allOf": [{"$ref": "#/components/schemas/Base"}],
        "oneOf": [],
        "anyOf": [{"type": "null"}, item],
    }
    f = facts(node)
    assert f.properties is props  # children are handed out as written, not copied
    assert f.required == ("id", "name")
    assert f.additional is False
    assert f.all_of == [{"$ref": "#/components/schemas/Base"}]
    assert f.union == [{"type": "null"}, item]  # the first non-empty of oneOf/anyOf
    assert f.unions == (("oneOf", []), ("anyOf", [{"type": "null"}, item]))
    array = facts({"type": "array", "items": item, "minItems": 1})
    assert array.items is item and array.bounds == {"minItems": 1}
    assert facts({"properties": ["not", "a", "map"]}).properties is None
    assert facts({"items": False}).items is False  # 3.1 boolean schema: said, not absent
    assert facts({}).items is None and facts({}).additional is None


def test_discriminator_refs_and_annotations() -> None:
    node = {
        "oneOf": [{"$ref": "#/components/schemas/Cat"}],
        "discriminator": {"propertyName": "kind", "mapping": {"cat": "Cat"}},
        "title": "Pet",
        "format": "uuid",
        "pattern": "^a",
        "readOnly": True,
        "writeOnly": "yes",
        "default": None,
    }
    f = facts(node)
    assert f.discriminator_property == "kind"
    assert f.discriminator_mapping == {"cat": "Cat"}
    assert (f.title, f.format, f.pattern) == ("Pet", "uuid", "^a")
    assert (f.read_only, f.write_only) == (True, False)
    assert f.default == (None,)  # a null default is said; absent is the empty tuple
    assert facts({}).default == ()
    bad = facts({"discriminator": "kind", "format": 3, "title": None})
    assert bad.discriminator is None and bad.discriminator_mapping == {}
    assert (bad.format, bad.title, bad.discriminator_property) == (None, None, None)


@pytest.mark.parametrize(
    ("node", "ref", "siblings"),
    [
        ({"$ref": "#/a"}, "#/a", False),
        ({"$ref": "#/a", "description": "why"}, "#/a", False),
        ({"$ref": "#/a", "nullable": True}, "#/a", True),
        ({"$ref": "#/a", "description": "why", "maxLength": 3}, "#/a", True),
        ({"$ref": 3, "nullable": True}, None, False),  # not a reference at all
        ({"type": "string"}, None, False),
    ],
)
def test_ref_and_its_siblings(node: dict[str, Any], ref: str | None, siblings: bool) -> None:
    f = facts(node)
    assert f.ref == ref
    assert f.siblings_of_ref(frozenset({"description"})) is siblings
    assert list(f.keywords) == list(node)


def test_facts_are_read_only_and_memoised_per_node() -> None:
    node = {"type": "string"}
    f = facts(node)
    with pytest.raises(AttributeError):
        f.extra = 1  # type: ignore[attr-defined]  # no room for fields of its own
    fields = {k: v for k, v in SchemaFacts.__annotations__.items()}
    assert fields and all(str(v).startswith("Final[") for v in fields.values()), fields
    memo = FactsMemo()
    assert memo(node) is memo(node)
    twin = dict(node)
    assert memo(twin) is not memo(node) and memo(twin).types == memo(node).types
    assert "types=('string',)" in repr(f)


# the facts that hold a value of the node (compared by identity: a rewrite's children are new)
_HELD = ("ref", "enum", "properties", "items", "additional", "all_of", "union")


def same_facts(found: SchemaFacts, fresh: SchemaFacts) -> None:
    """``found`` says what ``fresh`` (read afresh from the same node) says, fact by fact."""
    for name in SchemaFacts.__slots__:
        if name == "node":
            continue
        mine, theirs = getattr(found, name), getattr(fresh, name)
        if name in _HELD:
            assert mine is theirs or (mine is None and theirs is None), name
        else:
            assert mine == theirs and type(mine) is type(theirs), name


@pytest.mark.parametrize(
    "node",
    [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"$ref": "#/components/schemas/A", "description": "d", "nullable": True},
        {"oneOf": [{"type": "string"}], "anyOf": [{"type": "integer"}], "default": 3},
        {"oneOf": [], "anyOf": [{"type": "integer"}]},  # an empty oneOf leaves anyOf the union
        {"anyOf": "not a list", "allOf": "nor this", "properties": ["nor this"]},
        {"allOf": [{"$ref": "#/x"}, {"required": ["b"]}], "default": None},
        {"type": "array", "items": {"type": "string", "pattern": "^a"}, "minItems": 1},
        {"type": ["object", "null"], "additionalProperties": {"type": "integer"}, "maximum": 3,
         "exclusiveMaximum": True, "enum": [None, {}], "const": 1, "format": "x"},
        {"additionalProperties": False, "items": None, "default": "x", "pattern": "(?<=a)"},
    ],
)  # fmt: skip
def test_a_rewritten_node_reads_as_read_afresh(node: dict[str, Any]) -> None:
    """A rewrite (``$ref`` pointed elsewhere, children copied, a ``default`` or a ``pattern``
    left out) is read from the keywords a rewrite may change, the rest taken from the first
    reading: the same facts as reading the rewrite afresh, and none of the first's children."""
    read = facts(node)
    moved = {
        k: f"{v}-moved" if k == "$ref" else _copied(v) if k in REWRITABLE else v
        for k, v in node.items()
    }
    for dropped in ((), ("default",), ("pattern",), ("default", "pattern")):
        out = {k: v for k, v in moved.items() if k not in dropped}
        found, fresh = rewritten(out, read), facts(out)
        assert found.node is out
        same_facts(found, fresh)
        for name in ("properties", "items", "additional", "all_of", "union"):
            mine = getattr(found, name)
            assert not mine or mine is not getattr(read, name), name  # the rewrite's own child


def test_a_rewrite_changes_only_the_keywords_it_may() -> None:
    """Every keyword a fact is read from, besides :data:`REWRITABLE`, is one a rewrite keeps:
    what the rewritten reading takes from the first stays true of the rewrite (a fact added to
    :class:`SchemaFacts` fails here until :func:`rewritten` says where it comes from)."""
    taken = [n for n in SchemaFacts.__slots__ if n not in ("node", *_HELD, "default")]
    assert set(taken) == {"types", "null_type", "nullable_keyword", "const", "format",
                          "required", "bounds"}  # fmt: skip
    for keyword in ("type", "nullable", "const", "format", "required", *BOUND_KEYWORDS, "enum"):
        assert keyword not in REWRITABLE


def _copied(value: Any) -> Any:
    """A deep copy: new containers holding the same leaves."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


def _spec_files(shared_dir: Path) -> list[Path]:
    files = sorted((shared_dir / "specs").rglob("*.yaml"))
    if not files:
        pytest.skip(f"no YAML documents under {shared_dir / 'specs'}")
    return files


def test_real_documents_read_as_their_keywords_say(shared_dir: Path) -> None:
    """Over every schema of the shared service documents: the facts say what the keywords say
    (read here the plain way, keyword by keyword, as a check on the one reading)."""
    checked = 0
    for path in _spec_files(shared_dir):
        doc = load_document(path)
        comps = doc.get("components") if isinstance(doc, dict) else None
        for node in mappings_in(comps.get("schemas") if isinstance(comps, dict) else None):
            _agrees(facts(node), node)
            checked += 1
    assert checked > 0, "the shared documents have no component schemas"


def _agrees(f: SchemaFacts, node: dict[str, Any]) -> None:
    raw = node.get("type")
    names = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    assert f.types == tuple(t for t in names if isinstance(t, str) and t != "null"), node
    nullable = node.get("nullable") is True or "null" in names
    assert f.nullable == nullable, node
    enum = node.get("enum")
    assert f.enum == (enum if isinstance(enum, list) else None), node
    ref = node.get("$ref")
    assert f.ref == (ref if isinstance(ref, str) else None), node
    props = node.get("properties")
    assert f.properties == (props if isinstance(props, dict) else None), node
    for keyword in BOUND_KEYWORDS:
        value = node.get(keyword)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        assert f.bounds.get(keyword) == (value if number else None), (keyword, node)
