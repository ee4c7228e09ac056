"""Each drift rule on a small hand-written pair of documents, with the level it must have.

The expected levels are written out here, not read from the registry, so a rule whose level is
changed by accident fails a test. The last test checks every registered rule is exercised.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from generator.drift import RULES, compare
from tests.helpers import openapi_document

Doc = dict[str, Any]
OK = {"200": {"description": "ok"}}


def spec(paths: dict[str, Any], **extra: Any) -> Doc:
    return {**openapi_document(paths), **extra}


def one_op(method: str = "get", path: str = "/items", **op: Any) -> Doc:
    op.setdefault("responses", OK)
    return spec({path: {method: op}})


def query(name: str = "q", schema: Any = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema or {"type": "string"}, **extra}


def request_body(
    schema: Any, required: bool = True, media: str = "application/json"
) -> dict[str, Any]:
    return {"required": required, "content": {media: {"schema": schema}}}


def response_body(
    schema: Any, status: str = "200", media: str = "application/json"
) -> dict[str, Any]:
    return {status: {"description": "ok", "content": {media: {"schema": schema}}}}


def ids(old: Doc, new: Doc) -> set[tuple[str, str]]:
    return {(c.id, c.level) for c in compare(old, new).changes}


# --- schema-level rules, for each subject --------------------------------------------------------

Wrap = Callable[[Any], Doc]


def as_parameter(schema: Any) -> Doc:
    return one_op(parameters=[query("q", schema)])


def as_request_property(schema: Any) -> Doc:
    body = {"type": "object", "properties": {"p": schema}}
    return one_op("post", requestBody=request_body(body))


def as_response_property(schema: Any) -> Doc:
    return one_op(responses=response_body({"type": "object", "properties": {"p": schema}}))


SUBJECTS: dict[str, Wrap] = {
    "request-parameter": as_parameter,
    "request-property": as_request_property,
    "response-property": as_response_property,
}
VARIANTS = {"A": {"type": "object", "title": "A"}, "B": {"type": "string", "title": "B"}}

# (event, old schema, new schema, expected level per subject: request-parameter, request-property,
# response-property; None where the rule does not exist for that subject)
SCHEMA_CASES: list[tuple[str, Any, Any, tuple[str | None, str | None, str | None]]] = [
    ("type-changed", {"type": "string"}, {"type": "boolean"}, ("breaking", "breaking", "breaking")),
    ("type-widened", {"type": "integer"}, {"type": "number"}, ("info", "info", None)),
    ("type-narrowed", {"type": "number"}, {"type": "integer"}, (None, None, "info")),
    (
        "became-nullable",
        {"type": "string"},
        {"type": ["string", "null"]},
        ("info", "info", "breaking"),
    ),
    (
        "became-not-nullable",
        {"oneOf": [{"type": "string"}, {"type": "null"}]},
        {"type": "string"},
        ("breaking", "breaking", "info"),
    ),
    (
        "format-changed",
        {"type": "string", "format": "date-time"},
        {"type": "string", "format": "date"},
        ("warning", "warning", "warning"),
    ),
    (
        "enum-value-added",
        {"type": "string", "enum": ["a"]},
        {"type": "string", "enum": ["a", "b"]},
        ("info", "info", "warning"),
    ),
    (
        "enum-value-removed",
        {"type": "string", "enum": ["a", "b"]},
        {"type": "string", "enum": ["a"]},
        ("breaking", "breaking", "info"),
    ),
    (
        "constraint-tightened",
        {"type": "string", "maxLength": 100},
        {"type": "string", "maxLength": 50},
        ("breaking", "breaking", "info"),
    ),
    (
        "constraint-relaxed",
        {"type": "integer", "minimum": 1, "maximum": 10},
        {"type": "integer", "minimum": 1},
        ("info", "info", "warning"),
    ),
    (
        "pattern-changed",
        {"type": "string", "pattern": "^[a-z]+$"},
        {"type": "string", "pattern": "^[a-z0-9]+$"},
        ("warning", "warning", "warning"),
    ),
    (
        "default-changed",
        {"type": "integer", "default": 20},
        {"type": "integer", "default": 100},
        ("warning", "warning", "info"),
    ),
    (
        "variant-added",
        {"oneOf": [VARIANTS["A"], {"type": "integer", "title": "C"}]},
        {"oneOf": [VARIANTS["A"], {"type": "integer", "title": "C"}, VARIANTS["B"]]},
        ("info", "info", "warning"),
    ),
    (
        "variant-removed",
        {"oneOf": [VARIANTS["A"], VARIANTS["B"], {"type": "integer", "title": "C"}]},
        {"oneOf": [VARIANTS["A"], {"type": "integer", "title": "C"}]},
        ("breaking", "breaking", "info"),
    ),
]

SCHEMA_PARAMS = [
    pytest.param(subject, event, old, new, levels[index], id=f"{subject}-{event}")
    for event, old, new, levels in SCHEMA_CASES
    for index, subject in enumerate(SUBJECTS)
    if levels[index] is not None
]


@pytest.mark.parametrize(("subject", "event", "old", "new", "level"), SCHEMA_PARAMS)
def test_schema_rule(subject: str, event: str, old: Any, new: Any, level: str) -> None:
    wrap = SUBJECTS[subject]
    assert ids(wrap(old), wrap(new)) == {(f"{subject}-{event}", level)}
    assert ids(wrap(old), wrap(copy.deepcopy(old))) == set()


@pytest.mark.parametrize(
    ("old", "new", "tightened"),
    [
        ({"minLength": 1}, {"minLength": 2}, True),
        ({"minLength": 2}, {"minLength": 1}, False),
        ({}, {"minItems": 1}, True),
        ({"maxItems": 5}, {}, False),
        ({"exclusiveMaximum": 5}, {"exclusiveMaximum": 4.5}, True),
        ({"maximum": 5, "minimum": 0}, {"maximum": 5, "minimum": 0}, None),
        ({"maximum": True}, {}, None),  # not a number: ignored
    ],
)
def test_constraint_direction(
    old: dict[str, Any], new: dict[str, Any], tightened: bool | None
) -> None:
    found = ids(
        as_request_property({"type": "string", **old}),
        as_request_property({"type": "string", **new}),
    )
    if tightened is None:
        assert found == set()
    else:
        event = "tightened" if tightened else "relaxed"
        assert {rule for rule, _ in found} == {f"request-property-constraint-{event}"}


def test_type_change_message_and_pointer() -> None:
    old = as_response_property({"type": "string"})
    new = as_response_property({"type": "integer"})
    [change] = compare(old, new).changes
    assert change.operation == "GET /items"
    assert (
        change.pointer
        == "/paths/~1items/get/responses/200/content/application~1json/schema/properties/p"
    )
    assert (
        change.message
        == "response 200 (application/json) at `p`: type changed from string to integer"
    )


# --- properties -----------------------------------------------------------------------------------


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        out["required"] = required
    return out


S = {"type": "string"}


def req_doc(schema: Any) -> Doc:
    return one_op("post", requestBody=request_body(schema))


def resp_doc(schema: Any) -> Doc:
    return one_op(responses=response_body(schema))


PROPERTY_CASES = [
    ("request-property-added", "info", req_doc(obj({"a": S})), req_doc(obj({"a": S, "b": S}))),
    (
        "request-property-added-required",
        "breaking",
        req_doc(obj({"a": S})),
        req_doc(obj({"a": S, "b": S}, ["b"])),
    ),
    (
        "request-property-removed",
        "breaking",
        req_doc(obj({"a": S, "b": S})),
        req_doc(obj({"a": S})),
    ),
    (
        "request-property-became-required",
        "breaking",
        req_doc(obj({"a": S})),
        req_doc(obj({"a": S}, ["a"])),
    ),
    (
        "request-property-became-optional",
        "info",
        req_doc(obj({"a": S}, ["a"])),
        req_doc(obj({"a": S})),
    ),
    (
        "response-property-added",
        "info",
        resp_doc(obj({"a": S})),
        resp_doc(obj({"a": S, "b": S}, ["b"])),
    ),
    (
        "response-property-removed",
        "breaking",
        resp_doc(obj({"a": S, "b": S})),
        resp_doc(obj({"a": S})),
    ),
    (
        "response-property-became-optional",
        "breaking",
        resp_doc(obj({"a": S}, ["a"])),
        resp_doc(obj({"a": S})),
    ),
    (
        "response-property-became-required",
        "info",
        resp_doc(obj({"a": S})),
        resp_doc(obj({"a": S}, ["a"])),
    ),
]


@pytest.mark.parametrize(
    ("rule", "level", "old", "new"), PROPERTY_CASES, ids=[c[0] for c in PROPERTY_CASES]
)
def test_property_rule(rule: str, level: str, old: Doc, new: Doc) -> None:
    assert ids(old, new) == {(rule, level)}


def test_nested_property_path_through_arrays() -> None:
    inner_old = obj({"name": S, "size": {"type": "integer"}})
    inner_new = obj({"name": S})
    old = resp_doc(obj({"data": {"type": "array", "items": inner_old}}))
    new = resp_doc(obj({"data": {"type": "array", "items": inner_new}}))
    [change] = compare(old, new).changes
    assert change.id == "response-property-removed"
    assert "`data[].size`" in change.message


def test_read_only_and_write_only_properties_are_ignored_in_the_other_direction() -> None:
    ro = {"type": "string", "readOnly": True}
    wo = {"type": "string", "writeOnly": True}
    assert ids(req_doc(obj({"a": S, "id": ro})), req_doc(obj({"a": S}))) == set()
    assert ids(resp_doc(obj({"a": S, "pw": wo})), resp_doc(obj({"a": S}))) == set()
    assert ids(resp_doc(obj({"a": S, "id": ro})), resp_doc(obj({"a": S}))) == {
        ("response-property-removed", "breaking")
    }


def test_nullable_spellings_are_equivalent() -> None:
    spellings = [
        {"type": "string", "nullable": True},
        {"type": ["string", "null"]},
        {"oneOf": [{"type": "string"}, {"type": "null"}]},
        {"anyOf": [{"type": "null"}, {"type": "string"}]},
    ]
    for old in spellings:
        for new in spellings:
            assert ids(as_response_property(old), as_response_property(new)) == set()


def test_all_of_is_merged_before_comparing() -> None:
    flat = obj({"a": S, "b": S}, ["a"])
    split = {"allOf": [obj({"a": S}, ["a"]), obj({"b": S})]}
    assert ids(resp_doc(flat), resp_doc(split)) == set()
    assert ids(resp_doc(flat), resp_doc({"allOf": [obj({"a": S}, ["a"])]})) == {
        ("response-property-removed", "breaking")
    }


# --- references and recursion ---------------------------------------------------------------------


def with_components(doc: Doc, schemas: dict[str, Any]) -> Doc:
    doc["components"] = {"schemas": schemas}
    return doc


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def test_change_inside_a_referenced_schema_points_into_components() -> None:
    old = with_components(resp_doc(ref("Thing")), {"Thing": obj({"a": S, "b": S})})
    new = with_components(resp_doc(ref("Thing")), {"Thing": obj({"a": S})})
    [change] = compare(old, new).changes
    assert change.id == "response-property-removed"
    assert change.pointer == "/components/schemas/Thing/properties/b"


def test_schema_reached_twice_in_one_operation_is_reported_once() -> None:
    body = obj({"first": ref("Thing"), "second": ref("Thing")})
    old = with_components(resp_doc(body), {"Thing": obj({"a": S, "b": S})})
    new = with_components(resp_doc(copy.deepcopy(body)), {"Thing": obj({"a": S})})
    [change] = compare(old, new).changes
    assert "(and 1 more place in this operation)" in change.message


def test_recursive_schemas_terminate_and_report_once() -> None:
    def tree(extra: dict[str, Any]) -> dict[str, Any]:
        return obj({"children": {"type": "array", "items": ref("Node")}, **extra})

    old = with_components(resp_doc(ref("Node")), {"Node": tree({"label": S, "gone": S})})
    new = with_components(resp_doc(ref("Node")), {"Node": tree({"label": S})})
    changes = compare(old, new).changes
    assert [(c.id, c.pointer) for c in changes] == [
        ("response-property-removed", "/components/schemas/Node/properties/gone")
    ]


def test_mutually_recursive_schemas_and_ref_cycles_terminate() -> None:
    schemas = {
        "A": obj({"b": ref("B"), "x": S}),
        "B": {"oneOf": [ref("A"), ref("C")]},
        "C": {"anyOf": [ref("B"), {"type": "null"}]},
    }
    old = with_components(resp_doc(ref("A")), schemas)
    new_schemas = copy.deepcopy(schemas)
    new_schemas["A"]["properties"]["x"] = {"type": "integer"}
    new = with_components(resp_doc(ref("A")), new_schemas)
    found = compare(old, new).changes
    assert {c.id for c in found} == {"response-property-type-changed"}
    assert compare(old, copy.deepcopy(old)).changes == ()


def test_deep_nesting_is_bounded() -> None:
    def chain(depth: int, leaf: Any) -> Any:
        node = leaf
        for _ in range(depth):
            node = obj({"n": node})
        return node

    old, new = resp_doc(chain(200, S)), resp_doc(chain(200, {"type": "integer"}))
    assert compare(old, new).changes == ()  # the change lies below the depth bound
    shallow = compare(resp_doc(chain(3, S)), resp_doc(chain(3, {"type": "integer"}))).changes
    assert [c.id for c in shallow] == ["response-property-type-changed"]


# --- parameters -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "level", "old", "new"),
    [
        ("request-parameter-added", "info", [], [query("q")]),
        ("request-parameter-added-required", "breaking", [], [query("q", required=True)]),
        ("request-parameter-removed", "breaking", [query("q")], []),
        (
            "request-parameter-became-required",
            "breaking",
            [query("q")],
            [query("q", required=True)],
        ),
        ("request-parameter-became-optional", "info", [query("q", required=True)], [query("q")]),
        ("request-parameter-deprecated", "warning", [query("q")], [query("q", deprecated=True)]),
        (
            "request-parameter-location-changed",
            "warning",
            [query("X-Trace")],
            [{"name": "x-trace", "in": "header", "schema": S}],
        ),
    ],
)
def test_parameter_rule(rule: str, level: str, old: list[Any], new: list[Any]) -> None:
    assert ids(one_op(parameters=old), one_op(parameters=new)) == {(rule, level)}


def test_path_level_parameters_are_merged_and_overridden() -> None:
    old = spec({"/items": {"parameters": [query("q")], "get": {"responses": OK}}})
    new = spec({"/items": {"get": {"parameters": [query("q")], "responses": OK}}})
    assert ids(old, new) == set()
    required = spec(
        {
            "/items": {
                "parameters": [query("q")],
                "get": {"parameters": [query("q", required=True)], "responses": OK},
            }
        }
    )
    assert ids(old, required) == {("request-parameter-became-required", "breaking")}


def test_parameter_ref_is_resolved() -> None:
    old = one_op(parameters=[{"$ref": "#/components/parameters/Q"}])
    old["components"] = {"parameters": {"Q": query("q", {"type": "integer"})}}
    new = one_op(parameters=[query("q", {"type": "integer"})])
    assert ids(old, new) == set()


# --- operations -----------------------------------------------------------------------------------


def test_operation_added_and_removed() -> None:
    old = spec({"/a": {"get": {"responses": OK}}})
    new = spec({"/b": {"get": {"responses": OK}}})
    changes = compare(old, new).changes
    assert [(c.id, c.level, c.operation, c.pointer) for c in changes] == [
        ("operation-removed", "breaking", "GET /a", "/paths/~1a/get"),
        ("operation-added", "info", "GET /b", "/paths/~1b/get"),
    ]


@pytest.mark.parametrize(
    ("rule", "level", "old", "new"),
    [
        ("operation-deprecated", "warning", {}, {"deprecated": True}),
        ("operation-undeprecated", "info", {"deprecated": True}, {}),
        (
            "operation-id-changed",
            "breaking",
            {"operationId": "listItems"},
            {"operationId": "getItems"},
        ),
        ("operation-tag-changed", "warning", {"tags": ["Items"]}, {"tags": ["Things"]}),
    ],
)
def test_operation_rule(rule: str, level: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    assert ids(one_op(**old), one_op(**new)) == {(rule, level)}


def test_path_parameters_match_by_position() -> None:
    def doc(name: str) -> Doc:
        param = {"name": name, "in": "path", "required": True, "schema": S}
        return spec({f"/deployments/{{{name}}}": {"get": {"parameters": [param], "responses": OK}}})

    changes = compare(doc("id"), doc("deploymentId")).changes
    assert [(c.id, c.level, c.operation) for c in changes] == [
        ("path-parameter-renamed", "info", "GET /deployments/{deploymentId}")
    ]
    assert changes[0].pointer == "/paths/~1deployments~1{deploymentId}/get/parameters/0"


def test_base_path_moving_between_server_and_paths_is_not_a_removal() -> None:
    old = spec(
        {"/v1/deployments": {"get": {"responses": OK}}, "/v1/gone": {"get": {"responses": OK}}},
        servers=[
            {"url": "https://{tenant}.cubecloud.dev/api", "variables": {"tenant": {"default": "x"}}}
        ],
    )
    new = spec(
        {"/api/v1/deployments": {"get": {"responses": OK}}},
        servers=[
            {"url": "https://{tenant}.cubecloud.dev", "variables": {"tenant": {"default": "x"}}}
        ],
    )
    changes = compare(old, new).changes
    assert [(c.id, c.operation) for c in changes] == [
        ("operation-removed", "GET /api/v1/gone"),
        ("server-base-path-changed", None),
    ]


def test_operation_level_servers_take_precedence() -> None:
    old = spec({"/x": {"get": {"responses": OK, "servers": [{"url": "https://h/build/api"}]}}})
    new = spec({"/build/api/x": {"get": {"responses": OK}}}, servers=[{"url": "https://h"}])
    assert {c.id for c in compare(old, new).changes} == {"server-added"}


# --- request body, responses ----------------------------------------------------------------------


BODY = obj({"a": S})


@pytest.mark.parametrize(
    ("rule", "level", "old", "new"),
    [
        ("request-body-added", "info", None, request_body(BODY, required=False)),
        ("request-body-added-required", "breaking", None, request_body(BODY)),
        ("request-body-removed", "breaking", request_body(BODY), None),
        ("request-body-became-required", "breaking", request_body(BODY, False), request_body(BODY)),
        ("request-body-became-optional", "info", request_body(BODY), request_body(BODY, False)),
    ],
)
def test_request_body_rule(rule: str, level: str, old: Any, new: Any) -> None:
    def doc(body: Any) -> Doc:
        return one_op("post", **({"requestBody": body} if body else {}))

    assert ids(doc(old), doc(new)) == {(rule, level)}


def test_request_media_types() -> None:
    both = {
        "required": True,
        "content": {"application/json": {"schema": BODY}, "text/plain": {"schema": S}},
    }
    json_only = request_body(BODY)
    assert ids(one_op("post", requestBody=json_only), one_op("post", requestBody=both)) == {
        ("request-media-type-added", "info")
    }
    assert ids(one_op("post", requestBody=both), one_op("post", requestBody=json_only)) == {
        ("request-media-type-removed", "breaking")
    }
    charset = request_body(BODY, media="application/json; charset=utf-8")
    assert ids(one_op("post", requestBody=json_only), one_op("post", requestBody=charset)) == set()


def test_request_body_ref_is_resolved() -> None:
    old = one_op("post", requestBody={"$ref": "#/components/requestBodies/B"})
    old["components"] = {"requestBodies": {"B": request_body(obj({"a": S, "b": S}))}}
    new = one_op("post", requestBody=request_body(obj({"a": S})))
    assert ids(old, new) == {("request-property-removed", "breaking")}


@pytest.mark.parametrize(
    ("rule", "level", "old", "new"),
    [
        (
            "response-success-status-added",
            "warning",
            {"200": {"description": ""}},
            {"200": {"description": ""}, "202": {"description": ""}},
        ),
        (
            "response-success-status-removed",
            "breaking",
            {"200": {"description": ""}, "201": {"description": ""}},
            {"200": {"description": ""}},
        ),
        (
            "response-error-status-added",
            "info",
            {"200": {"description": ""}},
            {"200": {"description": ""}, "404": {"description": ""}},
        ),
        (
            "response-error-status-removed",
            "info",
            {"200": {"description": ""}, "default": {"description": ""}},
            {"200": {"description": ""}},
        ),
    ],
)
def test_status_rule(rule: str, level: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    assert ids(one_op(responses=old), one_op(responses=new)) == {(rule, level)}


def test_response_media_types() -> None:
    json_only = response_body(BODY)
    both = {
        "200": {
            "description": "",
            "content": {"application/json": {"schema": BODY}, "text/csv": {}},
        }
    }
    assert ids(one_op(responses=json_only), one_op(responses=both)) == {
        ("response-media-type-added", "info")
    }
    assert ids(one_op(responses=both), one_op(responses=json_only)) == {
        ("response-media-type-removed", "breaking")
    }


def test_default_added_or_removed_is_not_a_default_change() -> None:
    assert (
        ids(as_parameter({"type": "integer"}), as_parameter({"type": "integer", "default": 5}))
        == set()
    )
    assert (
        ids(as_parameter({"type": "integer", "default": 5}), as_parameter({"type": "integer"}))
        == set()
    )
    null_default = as_parameter({"type": ["integer", "null"], "default": None})
    assert ids(null_default, as_parameter({"type": ["integer", "null"], "default": 0})) == {
        ("request-parameter-default-changed", "warning")
    }


def test_response_headers() -> None:
    def doc(headers: dict[str, Any]) -> Doc:
        return one_op(responses={"200": {"description": "", "headers": headers}})

    limit = {"X-RateLimit-Remaining": {"schema": {"type": "integer"}}}
    assert ids(doc({}), doc(limit)) == {("response-header-added", "info")}
    assert ids(doc(limit), doc({})) == {("response-header-removed", "warning")}
    lower = {"x-ratelimit-remaining": {"schema": {"type": "integer"}}}
    assert ids(doc(limit), doc(lower)) == set()


def test_error_bodies_are_compared_too() -> None:
    old = one_op(responses={**OK, **response_body(obj({"code": S, "detail": S}), "400")})
    new = one_op(responses={**OK, **response_body(obj({"code": S}), "400")})
    [change] = compare(old, new).changes
    assert change.id == "response-property-removed"
    assert change.message.startswith("response 400 (application/json)")


# --- security, servers, components ----------------------------------------------------------------

BEARER = {"type": "http", "scheme": "bearer"}
KEY = {"type": "apiKey", "in": "header", "name": "X-Key"}


def secured(security: Any, schemes: dict[str, Any] | None = None, op_security: Any = None) -> Doc:
    op: dict[str, Any] = {"responses": OK}
    if op_security is not None:
        op["security"] = op_security
    doc = spec(
        {"/items": {"get": op}},
        components={"securitySchemes": schemes or {"bearer": BEARER, "key": KEY}},
    )
    if security is not None:
        doc["security"] = security
    return doc


@pytest.mark.parametrize(
    ("expected", "old", "new"),
    [
        ({("security-requirement-added", "breaking")}, secured(None), secured([{"bearer": []}])),
        (
            {("security-requirement-added", "breaking")},
            secured([{"bearer": []}]),
            secured([{"bearer": [], "key": []}]),
        ),
        (
            {("security-alternative-added", "info")},
            secured([{"bearer": []}]),
            secured([{"bearer": []}, {"key": []}]),
        ),
        (
            {("security-alternative-added", "info")},
            secured([{"bearer": []}]),
            secured([{"bearer": []}], op_security=[{}]),
        ),
        (
            {("security-requirement-removed", "breaking"), ("security-alternative-added", "info")},
            secured([{"bearer": []}]),
            secured([{"key": []}]),
        ),
        (
            {("security-requirement-removed", "breaking")},
            secured([{"bearer": []}, {"key": []}]),
            secured([{"key": []}]),
        ),
        (
            {("security-scope-added", "warning")},
            secured([{"bearer": ["read"]}]),
            secured([{"bearer": ["read", "write"]}]),
        ),
        (set(), secured([{"bearer": []}]), secured(None, op_security=[{"bearer": []}])),
    ],
)
def test_security_requirements(expected: set[tuple[str, str]], old: Doc, new: Doc) -> None:
    assert ids(old, new) == expected


def test_security_schemes() -> None:
    base = secured(None, {"bearer": BEARER})
    assert ids(base, secured(None, {"bearer": BEARER, "key": KEY})) == {
        ("security-scheme-added", "info")
    }
    assert ids(secured(None, {"bearer": BEARER, "key": KEY}), base) == {
        ("security-scheme-removed", "breaking")
    }
    basic = secured(None, {"bearer": {"type": "http", "scheme": "basic"}})
    assert ids(base, basic) == {("security-scheme-changed", "warning")}
    assert ids(base, secured(None, {"bearer": {"type": "http", "scheme": "Bearer"}})) == set()


def test_servers() -> None:
    a = spec({}, servers=[{"url": "https://a.example.com/api"}])
    ab = spec(
        {}, servers=[{"url": "https://a.example.com/api"}, {"url": "https://b.example.com/api"}]
    )
    assert ids(a, ab) == {("server-added", "info")}
    assert ids(ab, a) == {("server-removed", "breaking")}
    moved = spec({}, servers=[{"url": "https://a.example.com/v2"}])
    assert ids(a, moved) == {("server-base-path-changed", "warning")}


def test_component_schema_removed() -> None:
    old = with_components(spec({}), {"A": S, "B": S})
    new = with_components(spec({}), {"A": S, "C": S})
    assert ids(old, new) == {("component-schema-removed", "warning")}


# --- the rule set itself --------------------------------------------------------------------------


def test_rule_ids_are_kebab_case_with_reasons() -> None:
    for rule_id, rule in RULES.items():
        assert rule_id == rule.id
        assert all(part.isalpha() for part in rule_id.split("-")), rule_id
        assert rule.level in ("breaking", "warning", "info")
        assert len(rule.doc) > 40, rule_id


EXERCISED = (
    {f"{subject}-{event}" for subject, event, *_ in (p.values for p in SCHEMA_PARAMS)}
    | {c[0] for c in PROPERTY_CASES}
    | {
        "request-parameter-added", "request-parameter-added-required", "request-parameter-removed",
        "request-parameter-became-required", "request-parameter-became-optional",
        "request-parameter-deprecated", "request-parameter-location-changed", "operation-added",
        "operation-removed", "operation-deprecated", "operation-undeprecated", "operation-id-changed",
        "operation-tag-changed", "path-parameter-renamed", "request-body-added",
        "request-body-added-required", "request-body-removed", "request-body-became-required",
        "request-body-became-optional", "request-media-type-added", "request-media-type-removed",
        "response-success-status-added", "response-success-status-removed",
        "response-error-status-added", "response-error-status-removed", "response-media-type-added",
        "response-media-type-removed", "security-requirement-added", "security-requirement-removed",
        "security-alternative-added", "security-scope-added", "security-scheme-added",
        "security-scheme-removed", "security-scheme-changed", "server-added", "server-removed",
        "server-base-path-changed", "component-schema-removed", "response-header-added",
        "response-header-removed",
    }
)  # fmt: skip


def test_every_rule_is_exercised_by_a_test_here() -> None:
    assert set(RULES) - EXERCISED == set()
    assert EXERCISED - set(RULES) == set()


def test_removed_operation_message_names_its_id_and_deprecation() -> None:
    old = spec({"/a": {"get": {"operationId": "getA", "deprecated": True, "responses": OK}}})
    [change] = compare(old, spec({})).changes
    assert change.message == "operation removed (operationId getA; was deprecated)"
    assert change.level == "breaking"  # the method is gone from the client either way


# --- OpenAPI 3.2 ----------------------------------------------------------------------------------


def spec32(paths: dict[str, Any]) -> Doc:
    return openapi_document(paths, openapi="3.2.0")


def test_query_method_and_additional_operations_are_operations() -> None:
    old = spec32(
        {"/a": {"query": {"responses": OK}, "additionalOperations": {"PURGE": {"responses": OK}}}}
    )
    new = spec32({"/a": {"additionalOperations": {"LINK": {"responses": OK}}}})
    changes = compare(old, new).changes
    assert [(c.id, c.level, c.operation, c.pointer) for c in changes] == [
        ("operation-removed", "breaking", "PURGE /a", "/paths/~1a/additionalOperations/PURGE"),
        ("operation-removed", "breaking", "QUERY /a", "/paths/~1a/query"),
        ("operation-added", "info", "LINK /a", "/paths/~1a/additionalOperations/LINK"),
    ]


def test_additional_operation_changes_are_compared() -> None:
    def doc(**op: Any) -> Doc:
        return spec32({"/a": {"additionalOperations": {"PURGE": {"responses": OK, **op}}}})

    assert ids(doc(operationId="purge"), doc(operationId="purgeAll")) == {
        ("operation-id-changed", "breaking")
    }


@pytest.mark.parametrize(
    "media", ["text/event-stream", "application/jsonl", "application/json-seq"]
)
@pytest.mark.parametrize("key", ["itemSchema", "x-cube-item-schema"])
def test_item_schema_changes_are_classified_like_response_schemas(media: str, key: str) -> None:
    def doc(item: Any) -> Doc:
        content = {media: {key: item}}
        return spec32(
            {"/s": {"get": {"responses": {"200": {"description": "", "content": content}}}}}
        )

    old = doc(obj({"kind": S, "text": S}))
    removed = compare(old, doc(obj({"kind": S}))).changes
    assert [(c.id, c.level) for c in removed] == [("response-property-removed", "breaking")]
    assert removed[0].pointer.endswith(f"/content/{media.replace('/', '~1')}/{key}/properties/text")
    assert ids(old, doc(obj({"kind": S, "text": S, "more": S}))) == {
        ("response-property-added", "info")
    }
    retyped = doc(obj({"kind": {"type": "integer"}, "text": S}))
    assert ids(old, retyped) == {("response-property-type-changed", "breaking")}
