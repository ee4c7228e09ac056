"""The overlay engine: merge rules, remove, copy, primitive targets, drift reporting, purity."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnostics import CodegenError
from generator.overlay import apply_overlay, apply_overlays, parse_overlay
from generator.overlay.model import Overlay, OverlayResult

FILE = "spec/overlays/test.overlay.yaml"


def overlay(*actions: dict[str, Any], version: str = "1.1.0", file: str = FILE) -> Overlay:
    doc = {"overlay": version, "info": {"title": "t", "version": "1"}, "actions": list(actions)}
    return parse_overlay(doc, file)


def run(document: Any, *actions: dict[str, Any], strict: bool = True, **kw: Any) -> OverlayResult:
    return apply_overlay(document, overlay(*actions, **kw), document_file="api.yaml", strict=strict)


def statuses(result: OverlayResult) -> list[str]:
    return [o.status for o in result.outcomes]


def api() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "API", "version": "1.0.0", "contact": {"name": "Ops"}},
        "tags": [{"name": "pets"}, {"name": "dummy"}],
        "paths": {
            "/pets": {
                "get": {
                    "summary": "List pets",
                    "tags": ["pets", "dummy"],
                    "parameters": [{"name": "limit", "in": "query"}],
                }
            },
            "/items": {"get": {"summary": "List items", "tags": ["dummy"]}},
        },
    }


# ---------------------------------------------------------------------------- update: objects


def test_object_update_inserts_keeps_replaces_and_recurses() -> None:
    result = run(
        api(),
        {
            "target": "$.info",
            "update": {"title": "Pets API", "license": {"name": "MIT"}, "contact": {"url": "u"}},
        },
    )
    info = result.document["info"]
    assert info["title"] == "Pets API"  # primitive replaces primitive
    assert info["version"] == "1.0.0"  # only in target: unchanged
    assert info["license"] == {"name": "MIT"}  # only in update: inserted
    assert info["contact"] == {"name": "Ops", "url": "u"}  # object merged recursively
    assert statuses(result) == ["matched"]


def test_array_property_is_concatenated_during_merge() -> None:
    result = run(
        api(),
        {"target": "$.paths['/pets'].get", "update": {"parameters": [{"name": "offset"}]}},
    )
    names = [p["name"] for p in result.document["paths"]["/pets"]["get"]["parameters"]]
    assert names == ["limit", "offset"]


@pytest.mark.parametrize(
    ("target", "update", "at"),
    [
        ("$.info", {"contact": "Ops"}, "/info/contact"),  # object <- primitive
        ("$.info", {"contact": ["Ops"]}, "/info/contact"),  # object <- array
        ("$.info", {"contact": None}, "/info/contact"),  # object <- null (a primitive)
        ("$.info", {"title": {"text": "x"}}, "/info/title"),  # primitive <- object
        ("$.paths['/pets'].get", {"tags": {"a": 1}}, "/paths/~1pets/get/tags"),  # array <- object
    ],
)
def test_incompatible_property_combinations_are_errors(
    target: str, update: dict[str, Any], at: str
) -> None:
    with pytest.raises(CodegenError) as info:
        run(api(), {"target": target, "update": update})
    first = info.value.first
    assert first.id == "overlay-update-incompatible"
    assert first.file == FILE
    key = next(iter(update))
    assert first.pointer == f"/actions/0/update/{key}"
    assert at in first.message and "api.yaml" in first.message


def test_object_target_needs_an_object_update() -> None:
    with pytest.raises(CodegenError) as info:
        run(api(), {"target": "$.info", "update": "text"})
    assert info.value.first.id == "overlay-update-incompatible"
    assert info.value.first.pointer == "/actions/0/update"


# ----------------------------------------------------------------------------- update: arrays


def test_array_target_concatenates_an_array_update() -> None:
    result = run(api(), {"target": "$.tags", "update": [{"name": "a"}, {"name": "b"}]})
    assert [t["name"] for t in result.document["tags"]] == ["pets", "dummy", "a", "b"]


@pytest.mark.parametrize("value", [{"name": "new"}, "new", 3, None, True])
def test_array_target_appends_an_object_or_primitive(value: Any) -> None:
    result = run(api(), {"target": "$.paths.*.get.tags", "update": value})
    for path in ("/pets", "/items"):
        tags = result.document["paths"][path]["get"]["tags"]
        assert tags[-1] == value and type(tags[-1]) is type(value)
    assert result.outcomes[0].matches == 2


def test_appended_values_are_independent_copies() -> None:
    result = run(api(), {"target": "$.paths.*.get.tags", "update": {"name": "x"}})
    pets = result.document["paths"]["/pets"]["get"]["tags"][-1]
    items = result.document["paths"]["/items"]["get"]["tags"][-1]
    pets["name"] = "changed"
    assert items == {"name": "x"}


def test_a_node_selected_twice_is_updated_once() -> None:
    result = run(api(), {"target": "$['tags','tags']", "update": {"name": "once"}})
    assert [t["name"] for t in result.document["tags"]] == ["pets", "dummy", "once"]
    assert result.outcomes[0].matches == 1


# ------------------------------------------------------------------------- update: primitives


def test_primitive_target_is_replaced_through_its_parent() -> None:
    result = run(api(), {"target": "$.paths.*.get.summary", "update": "Listed"})
    assert [p["get"]["summary"] for p in result.document["paths"].values()] == ["Listed"] * 2


def test_primitive_array_element_is_replaced() -> None:
    result = run(api(), {"target": "$.paths['/pets'].get.tags[1]", "update": "animals"})
    assert result.document["paths"]["/pets"]["get"]["tags"] == ["pets", "animals"]


def test_primitive_root_is_replaced() -> None:
    assert run("old", {"target": "$", "update": "new"}).document == "new"


def test_primitive_targets_work_in_overlay_1_0_too() -> None:
    # 1.0.0 left primitive targets undefined; 1.1.0's rule applies (the OAI's own 1.0.0
    # compliant set remove-example relies on it).
    result = run(api(), {"target": "$.info.title", "update": "T"}, version="1.0.0")
    assert result.document["info"]["title"] == "T"


@pytest.mark.parametrize("value", [{"a": 1}, ["a"]])
def test_primitive_target_needs_a_primitive_update(value: Any) -> None:
    with pytest.raises(CodegenError) as info:
        run(api(), {"target": "$.info.title", "update": value})
    assert info.value.first.id == "overlay-update-incompatible"
    assert "/info/title" in info.value.first.message


def test_a_target_mixing_kinds_is_an_error() -> None:
    with pytest.raises(CodegenError) as info:
        run(api(), {"target": "$.info.*", "update": "x"})  # strings and an object
    assert info.value.first.id == "overlay-target-mixed"
    assert info.value.first.pointer == "/actions/0/target"


# ------------------------------------------------------------------------------------- remove


def test_remove_object_member_and_filtered_array_elements() -> None:
    result = run(
        api(),
        {"target": "$.info.contact", "remove": True},
        {"target": "$.tags[?@.name == 'dummy']", "remove": True},
        {"target": "$.paths.*.get.tags[?@ == 'dummy']", "remove": True},
    )
    assert "contact" not in result.document["info"]
    assert result.document["tags"] == [{"name": "pets"}]
    assert result.document["paths"]["/pets"]["get"]["tags"] == ["pets"]
    assert result.document["paths"]["/items"]["get"]["tags"] == []
    assert [o.matches for o in result.outcomes] == [1, 1, 2]


def test_remove_many_elements_of_one_array_keeps_the_right_ones() -> None:
    result = run({"list": [5, 1, 7, 1, 9, 0]}, {"target": "$.list[?@ > 4]", "remove": True})
    assert result.document == {"list": [1, 1, 0]}


def test_remove_nested_matches() -> None:
    doc = {"a": {"description": {"description": "inner"}, "b": [{"description": "x"}, 1]}}
    result = run(doc, {"target": "$..description", "remove": True})
    assert result.document == {"a": {"b": [{}, 1]}}


def test_remove_wins_over_update() -> None:
    result = run(api(), {"target": "$.info.contact", "remove": True, "update": {"x": 1}})
    assert "contact" not in result.document["info"]


def test_removing_the_root_is_an_error() -> None:
    with pytest.raises(CodegenError) as info:
        run(api(), {"target": "$", "remove": True})
    assert info.value.first.id == "overlay-remove-root"


def test_actions_apply_to_the_result_of_the_previous_action() -> None:
    result = run(
        api(),
        {"target": "$.info.contact", "remove": True},
        {"target": "$.info", "update": {"contact": {"email": "e"}}},
    )
    assert result.document["info"]["contact"] == {"email": "e"}


# --------------------------------------------------------------------------------------- copy


def test_copy_merges_the_source_into_the_target() -> None:
    result = run(api(), {"target": "$.paths['/items']", "copy": "$.paths['/pets']"})
    items = result.document["paths"]["/items"]["get"]
    assert items["summary"] == "List pets"
    assert items["tags"] == ["dummy", "pets", "dummy"]  # arrays concatenate
    assert items["parameters"] == [{"name": "limit", "in": "query"}]


def test_copy_a_primitive_into_primitive_targets() -> None:
    result = run(api(), {"target": "$.paths.*.get.summary", "copy": "$.info.version"})
    assert {p["get"]["summary"] for p in result.document["paths"].values()} == {"1.0.0"}


def test_copy_makes_an_independent_copy() -> None:
    result = run(
        api(),
        {"target": "$.paths", "update": {"/new": {}}},
        {"target": "$.paths['/new']", "copy": "$.paths['/pets']"},
        {"target": "$.paths['/new'].get", "update": {"summary": "New"}},
    )
    assert result.document["paths"]["/pets"]["get"]["summary"] == "List pets"
    assert result.document["paths"]["/new"]["get"]["summary"] == "New"


def test_move_is_update_copy_remove() -> None:
    before = api()
    result = run(
        before,
        {"target": "$.paths", "update": {"/animals": {}}},
        {"target": "$.paths['/animals']", "copy": "$.paths['/pets']"},
        {"target": "$.paths['/pets']", "remove": True},
    )
    assert list(result.document["paths"]) == ["/items", "/animals"]
    assert result.document["paths"]["/animals"] == before["paths"]["/pets"]


def test_copy_into_an_ancestor_of_its_source() -> None:
    doc = {"a": {"b": {"b": {"c": 1}}}}
    result = run(doc, {"target": "$.a", "copy": "$.a.b"})
    assert result.document == {"a": {"b": {"b": {"c": 1}, "c": 1}}}


def test_copy_source_matching_nothing_is_unmatched() -> None:
    result = run(api(), {"target": "$.info", "copy": "$.components", "description": "from c"})
    assert statuses(result) == ["unmatched"]
    (diag,) = result.diagnostics
    assert (diag.id, diag.level, diag.pointer) == (
        "overlay-action-unmatched",
        "error",
        "/actions/0/copy",
    )
    assert "$.components" in diag.message and "from c" in diag.message


def test_optional_copy_may_lack_its_source() -> None:
    result = run(api(), {"target": "$.info", "copy": "$.components", "x-cube-optional": True})
    assert statuses(result) == ["absent-allowed"] and result.ok


def test_jsonpath_evaluation_failure_is_an_error() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(200):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(CodegenError) as info:
        run(deep, {"target": "$..y", "remove": True})
    assert info.value.first.id == "overlay-jsonpath-failed"
    assert info.value.first.pointer == "/actions/0/target"


def test_copy_source_matching_several_nodes_is_an_error() -> None:
    with pytest.raises(CodegenError) as info:
        run(api(), {"target": "$.info", "copy": "$.paths.*"})
    assert info.value.first.id == "overlay-copy-ambiguous"
    assert info.value.first.pointer == "/actions/0/copy"
    assert "2 nodes" in info.value.first.message


def test_remove_wins_over_copy() -> None:
    result = run(api(), {"target": "$.info.contact", "remove": True, "copy": "$.tags"})
    assert "contact" not in result.document["info"]


# -------------------------------------------------------------------- unmatched and redundant


def test_unmatched_target_is_an_error_naming_file_index_description_and_target() -> None:
    result = run(
        api(),
        {"target": "$.info", "update": {"x-a": 1}},
        {"target": "$.paths['/gone']", "update": {"x-b": 1}, "description": "tag gone"},
    )
    assert statuses(result) == ["matched", "unmatched"]
    assert not result.ok
    (diag,) = result.errors
    assert diag.id == "overlay-action-unmatched"
    assert diag.file == FILE and diag.pointer == "/actions/1/target"
    assert (
        "#1" in diag.message and "tag gone" in diag.message and "$.paths['/gone']" in diag.message
    )
    assert result.document["info"]["x-a"] == 1  # the rest still applied, for the report


def test_unmatched_remove_is_unmatched_too() -> None:
    result = run(api(), {"target": "$.servers", "remove": True})
    assert statuses(result) == ["unmatched"] and not result.ok


def test_non_strict_mode_reports_unmatched_as_a_warning() -> None:
    result = run(api(), {"target": "$.servers", "remove": True}, strict=False)
    assert statuses(result) == ["unmatched"]
    assert result.ok and [d.level for d in result.diagnostics] == ["warning"]


@pytest.mark.parametrize("strict", [True, False])
def test_optional_action_may_match_nothing(strict: bool) -> None:
    result = run(
        api(), {"target": "$.servers", "remove": True, "x-cube-optional": True}, strict=strict
    )
    assert statuses(result) == ["absent-allowed"]
    assert result.ok
    assert [(d.id, d.level) for d in result.diagnostics] == [("overlay-action-unmatched", "info")]


def test_optional_action_that_matches_is_applied() -> None:
    result = run(api(), {"target": "$.info", "update": {"x-a": 1}, "x-cube-optional": True})
    assert statuses(result) == ["matched"] and result.document["info"]["x-a"] == 1


@pytest.mark.parametrize(
    ("target", "update"),
    [
        ("$.info", {"title": "API", "contact": {"name": "Ops"}}),
        ("$.info.version", "1.0.0"),
        ("$.tags", []),
        ("$.paths['/pets'].get", {"tags": []}),
        ("$.info", {}),
    ],
)
def test_update_that_changes_nothing_is_redundant(target: str, update: Any) -> None:
    before = api()
    result = run(before, {"target": target, "update": update})
    assert statuses(result) == ["redundant"]
    assert result.ok and result.document == before
    (diag,) = result.diagnostics
    assert (diag.id, diag.level, diag.pointer) == (
        "overlay-action-redundant",
        "warning",
        "/actions/0",
    )


def test_equal_numbers_are_redundant_but_a_boolean_is_not_a_number() -> None:
    doc = {"a": {"n": 1, "flag": 1}}
    assert statuses(run(doc, {"target": "$.a", "update": {"n": 1.0}})) == ["redundant"]
    result = run(doc, {"target": "$.a", "update": {"flag": True}})
    assert statuses(result) == ["matched"] and result.document["a"]["flag"] is True


def test_update_changing_some_of_its_nodes_is_matched() -> None:
    result = run(api(), {"target": "$.paths.*.get.summary", "update": "List pets"})
    assert statuses(result) == ["matched"]
    assert result.diagnostics == ()


def test_redundant_copy() -> None:
    result = run(api(), {"target": "$.info.title", "copy": "$.info.title"})
    assert statuses(result) == ["redundant"]


def test_action_without_a_modifier_is_redundant() -> None:
    result = run(api(), {"target": "$.info", "description": "nothing"})
    assert statuses(result) == ["redundant"]
    assert "no update, copy or remove" in result.diagnostics[0].message


# ------------------------------------------------------------------------------- JSONPath


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ({"target": "$.paths.x-y", "update": {}}, "target"),  # '-' needs brackets in RFC 9535
        ({"target": "$.tags[?(@.name == 'a')].description~", "remove": True}, "target"),
        ({"target": "$.info", "copy": "$.info["}, "copy"),
    ],
)
def test_invalid_jsonpath_names_file_action_and_query(action: dict[str, Any], field: str) -> None:
    actions = [{"target": "$.nothing", "remove": True}, action]
    with pytest.raises(CodegenError) as info:
        run(api(), *actions)
    first = info.value.first
    assert first.id == "overlay-jsonpath-invalid"
    assert (first.file, first.pointer) == (FILE, f"/actions/1/{field}")
    assert "action #1" in first.message and action[field] in first.message
    assert "\n" not in info.value.summary()


# ------------------------------------------------------------------- overlays, outcomes, purity


def test_overlays_apply_in_order_and_outcomes_name_their_overlay() -> None:
    first = overlay({"target": "$.info", "update": {"title": "one"}}, file="a.overlay.yaml")
    second = overlay(
        {"target": "$.info.title", "update": "two", "description": "rename"},
        file="b.overlay.yaml",
    )
    result = apply_overlays(api(), [first, second])
    assert result.document["info"]["title"] == "two"
    assert [(o.overlay_file, o.index, o.description) for o in result.outcomes] == [
        ("a.overlay.yaml", 0, ""),
        ("b.overlay.yaml", 0, "rename"),
    ]
    assert result.outcomes[1].target == "$.info.title"


def test_extends_is_recorded_not_fetched() -> None:
    doc = {
        "overlay": "1.0.0",
        "info": {"title": "t", "version": "1"},
        "extends": "https://example.invalid/openapi.yaml",
        "actions": [{"target": "$.info", "update": {"x-a": 1}}],
    }
    ov = parse_overlay(doc, FILE)
    assert ov.extends == "https://example.invalid/openapi.yaml"
    assert apply_overlay(api(), ov).document["info"]["x-a"] == 1


def test_input_document_and_overlay_are_not_mutated() -> None:
    before = api()
    snapshot = copy.deepcopy(before)
    update = {"contact": {"email": "e"}, "x-list": [1]}
    ov = overlay(
        {"target": "$.info", "update": update},
        {"target": "$.tags", "remove": True},
        {"target": "$.paths['/items']", "copy": "$.paths['/pets']"},
        {"target": "$.info.title", "update": "T"},
    )
    result = apply_overlay(before, ov)
    assert before == snapshot
    result.document["info"]["contact"]["email"] = "changed"
    result.document["info"]["x-list"].append(2)
    assert ov.actions[0].update == {"contact": {"email": "e"}, "x-list": [1]}
    result.document["paths"]["/pets"]["get"]["tags"].append("z")
    assert before == snapshot


json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)
json_object = st.dictionaries(st.text(max_size=3), json_value, max_size=4)
no_array_object = st.recursive(
    st.dictionaries(st.text(max_size=3), json_leaf, max_size=3),
    lambda inner: st.dictionaries(st.text(max_size=3), json_leaf | inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(document=json_object, update=json_object)
def test_property_input_never_mutated(document: dict[str, Any], update: dict[str, Any]) -> None:
    snapshot = copy.deepcopy(document)
    try:
        run(document, {"target": "$", "update": update}, {"target": "$.*", "remove": True})
    except CodegenError as exc:
        assert exc.first.id == "overlay-update-incompatible"
    assert document == snapshot


@settings(max_examples=150, deadline=None)
@given(document=no_array_object, update=no_array_object)
def test_property_array_free_update_is_idempotent(
    document: dict[str, Any], update: dict[str, Any]
) -> None:
    """Merging without arrays is idempotent: the second application is reported redundant."""
    action = {"target": "$", "update": update}
    try:
        once = run(document, action)
    except CodegenError:
        return  # an incompatible pair (object vs primitive) - covered elsewhere
    twice = run(once.document, action)
    assert twice.document == once.document
    assert statuses(twice) == ["redundant"]
    unchanged = _canonical(once.document) == _canonical(document)
    assert statuses(once) == (["redundant"] if unchanged else ["matched"])


def _canonical(value: Any) -> str:
    """JSON text with sorted keys: unlike ``==``, tells ``True`` from ``1``."""
    return json.dumps(value, sort_keys=True)
