"""Two large documents of our own making, shaped like the biggest public API descriptions.

``payments_document()`` has the shape of a payments API written in OpenAPI 3.0: about 4 MB,
417 operations, 551 schemas that refer to each other in cycles, expandable fields
(``anyOf: [id string, $ref]``), form-encoded request bodies whose parameters nest ``anyOf``
four levels deep, and snake_case schema names, some dotted, that collide after Python naming.

``assistant_document()`` has the shape of a generative-AI API written in OpenAPI 3.1: about 3 MB,
200 operations, 1,400 schemas, unions with discriminators (explicit and implicit mappings), ``const`` tags, ``type``
lists with ``null``, webhooks, and event-stream responses.

Both are deterministic (seeded) and built in memory; the breadth test and ``make bench`` use them.
"""

from __future__ import annotations

import random
from typing import Any

NOUNS = (
    "account", "balance", "card", "charge", "coupon", "customer", "dispute", "event", "file",
    "invoice", "item", "mandate", "payout", "plan", "price", "product", "quote", "refund",
    "review", "session", "source", "subscription", "tax", "token", "topup", "transfer",
)  # fmt: skip
DETAILS = (
    "address", "details", "settings", "options", "summary", "limits", "schedule", "terms",
    "rules", "breakdown", "status", "history", "outcome", "period", "totals", "evidence",
)  # fmt: skip
WORDS = (
    "the", "a", "of", "to", "when", "is", "this", "value", "object", "amount", "currency",
    "identifier", "unique", "returned", "set", "time", "list", "created", "updated", "used",
    "payment", "request", "response", "field", "only", "if", "may", "be", "null", "expanded",
    "string", "integer", "customer", "account", "status", "one", "more", "see", "for", "each",
)  # fmt: skip
PAYMENT_RESOURCES = 100
PAYMENT_DETAILS = 400
PAYMENT_SOURCES = 50


def _text(rng: random.Random, words: int) -> str:
    """A description: words from a small fixed vocabulary, in sentences."""
    out = []
    for i in range(words):
        word = rng.choice(WORDS)
        out.append(word.capitalize() if i % 12 == 0 else word)
        if i % 12 == 11:
            out[-1] += "."
    return " ".join(out) + "."


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


# --- the payments document (OpenAPI 3.0) ------------------------------------------------------


def _payment_names() -> tuple[list[str], list[str], list[str]]:
    resources = []
    for i in range(PAYMENT_RESOURCES):
        name = NOUNS[i % len(NOUNS)] + ("" if i < len(NOUNS) else f"_{DETAILS[i // len(NOUNS)]}")
        if i % 9 == 4 and "_" in name:
            name = name.replace("_", ".", 1)  # a namespaced name, like ``issuing.card``
        resources.append(name)
    details = [
        f"{resources[i % PAYMENT_RESOURCES].replace('.', '_')}_{DETAILS[i % len(DETAILS)]}_{i}"
        for i in range(PAYMENT_DETAILS)
    ]
    sources = [f"{resources[i]}_source" for i in range(PAYMENT_SOURCES)]
    return resources, details, sources


def _expandable(target: str, rng: random.Random) -> dict[str, Any]:
    return {
        "anyOf": [{"type": "string", "maxLength": 5000}, _ref(target)],
        "description": _text(rng, 30),
        "nullable": True,
        "x-expansionResources": {"oneOf": [_ref(target)]},
    }


def _list_of(target: str, url: str, rng: random.Random) -> dict[str, Any]:
    return {
        "type": "object",
        "title": f"{target.replace('.', '')}List",
        "description": _text(rng, 20),
        "required": ["data", "has_more", "object", "url"],
        "properties": {
            "data": {"type": "array", "items": _ref(target), "description": _text(rng, 10)},
            "has_more": {"type": "boolean", "description": _text(rng, 15)},
            "object": {"type": "string", "enum": ["list"], "description": _text(rng, 10)},
            "url": {"type": "string", "maxLength": 5000, "pattern": f"^{url}"},
        },
    }


def _resource_schema(i: int, names: tuple[list[str], list[str], list[str]]) -> dict[str, Any]:
    resources, details, sources = names
    rng = random.Random(i)
    name = resources[i]
    n = PAYMENT_RESOURCES
    props: dict[str, Any] = {
        "id": {"type": "string", "maxLength": 5000, "description": _text(rng, 12)},
        "object": {"type": "string", "enum": [name], "description": _text(rng, 20)},
        "created": {"type": "integer", "format": "unix-time", "description": _text(rng, 15)},
        "livemode": {"type": "boolean", "description": _text(rng, 25)},
        "metadata": {
            "type": "object",
            "additionalProperties": {"type": "string", "maxLength": 500},
            "nullable": True,
            "description": _text(rng, 40),
        },
        "status": {
            "type": "string",
            "enum": ["active", "canceled", "pending", "succeeded", f"{name}_failed"],
            "nullable": i % 2 == 0,
            "description": _text(rng, 30),
        },
        "amount": {"type": "integer", "description": _text(rng, 30)},
        "currency": {"type": "string", "format": "currency", "description": _text(rng, 10)},
        "description": {"type": "string", "maxLength": 5000, "nullable": True},
    }
    for k in (1, 7, 31):  # expandable fields: the cycles run through these
        target = resources[(i + k) % n]
        props[target.replace(".", "_")] = _expandable(target, rng)
    for k in range(4):
        detail = details[(i * 4 + k) % PAYMENT_DETAILS]
        props[f"{DETAILS[k]}_info"] = {
            "anyOf": [_ref(detail)],
            "nullable": True,
            "description": _text(rng, 25),
        }
    props["source"] = {"anyOf": [_ref(sources[i % PAYMENT_SOURCES])], "nullable": True}
    props["lines"] = _list_of(resources[(i + 3) % n], f"/v1/{name}/lines", rng)
    return {
        "type": "object",
        "title": name.replace(".", " "),
        "description": _text(rng, 80),
        "required": ["id", "object", "created", "livemode", "metadata"],
        "properties": props,
        "x-expandableFields": [p for p in props if "anyOf" in props[p]],
        "x-resourceId": name,
    }


def _detail_schema(i: int, names: tuple[list[str], list[str], list[str]]) -> dict[str, Any]:
    resources, details, _ = names
    rng = random.Random(10_000 + i)
    props: dict[str, Any] = {}
    for k in range(6 + i % 5):
        kind = (i + k) % 5
        key = f"{WORDS[(i + k * 7) % len(WORDS)]}_{k}"
        if kind == 0:
            props[key] = {"type": "string", "maxLength": 5000, "nullable": True}
        elif kind == 1:
            props[key] = {"type": "integer", "nullable": k % 2 == 0}
        elif kind == 2:
            props[key] = {"type": "string", "enum": [f"{key}_{j}" for j in range(4)]}
        elif kind == 3:
            props[key] = {"type": "array", "items": {"type": "string", "maxLength": 5000}}
        else:
            props[key] = {"type": "boolean"}
        props[key]["description"] = _text(rng, 35)
    # a ring of details, and a way back up to a resource (cycles through both)
    props["next"] = {"anyOf": [_ref(details[(i + 1) % PAYMENT_DETAILS])], "nullable": True}
    props["owner"] = _expandable(resources[(i * 3) % PAYMENT_RESOURCES], rng)
    return {
        "type": "object",
        "title": details[i],
        "description": _text(rng, 40),
        "required": sorted(props)[:2],
        "properties": props,
        "x-expandableFields": ["owner"],
    }


def _source_schema(i: int, names: tuple[list[str], list[str], list[str]]) -> dict[str, Any]:
    resources = names[0]
    members = [_ref(resources[(i + k * 11) % PAYMENT_RESOURCES]) for k in range(3)]
    return {"anyOf": members, "title": f"polymorphic {i}", "x-stripeBypassValidation": True}


def _empty_or(schema: dict[str, Any]) -> dict[str, Any]:
    """The form-parameter idiom: a value, or the empty string to unset it."""
    return {"anyOf": [schema, {"type": "string", "enum": [""]}]}


def _deep_param(rng: random.Random, depth: int) -> dict[str, Any]:
    """A form parameter whose objects nest ``anyOf`` ``depth`` levels down."""
    props: dict[str, Any] = {
        "amount": {"type": "integer"},
        "name": {"type": "string", "maxLength": 5000},
        "interval": {"type": "string", "enum": ["day", "week", "month", "year"]},
    }
    if depth > 1:
        props["nested"] = _deep_param(rng, depth - 1)
        props["items"] = {"type": "array", "items": _deep_param(rng, depth - 1)}
    inner = {
        "type": "object",
        "title": f"param_level_{depth}",
        "properties": props,
        "required": ["amount"],
    }
    return {**_empty_or(inner), "description": _text(rng, 15)}


def _form_body(i: int, rng: random.Random, create: bool) -> dict[str, Any]:
    props: dict[str, Any] = {
        "expand": {"type": "array", "items": {"type": "string", "maxLength": 5000}},
        "metadata": _empty_or({"type": "object", "additionalProperties": {"type": "string"}}),
        "description": {"type": "string", "maxLength": 5000, "description": _text(rng, 20)},
        "amount": {"type": "integer", "description": _text(rng, 15)},
        "currency": {"type": "string", "format": "currency"},
        "settings": _deep_param(rng, 4),
        "schedule": {
            "type": "array",
            "items": _deep_param(rng, 2),
            "description": _text(rng, 15),
        },
        "created": {"anyOf": [{"type": "integer"}, {"type": "string", "format": "date-time"}]},
    }
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if create and i % 2 == 0:
        schema["required"] = ["amount", "currency"]
    encoding = {
        k: {"explode": True, "style": "deepObject"}
        for k in ("expand", "metadata", "settings", "schedule")
    }
    media = {"schema": schema, "encoding": encoding}
    return {
        "content": {"application/x-www-form-urlencoded": media},
        "required": create and i % 2 == 0,
    }


def _list_params(rng: random.Random) -> list[dict[str, Any]]:
    range_filter = {
        "type": "object",
        "title": "range_query_specs",
        "properties": {k: {"type": "integer"} for k in ("gt", "gte", "lt", "lte")},
    }
    return [
        {"name": "limit", "in": "query", "schema": {"type": "integer"}, "style": "form"},
        {"name": "starting_after", "in": "query", "schema": {"type": "string", "maxLength": 5000}},
        {"name": "ending_before", "in": "query", "schema": {"type": "string", "maxLength": 5000}},
        {
            "name": "expand",
            "in": "query",
            "explode": True,
            "style": "deepObject",
            "schema": {"type": "array", "items": {"type": "string", "maxLength": 5000}},
        },
        {
            "name": "created",
            "in": "query",
            "explode": True,
            "style": "deepObject",
            "schema": {"anyOf": [range_filter, {"type": "integer"}]},
            "description": _text(rng, 20),
        },
    ]


def _json(schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return {
        "200": {
            "description": _text(rng, 6),
            "content": {"application/json": {"schema": schema}},
        },
        "default": {
            "description": "Error response.",
            "content": {"application/json": {"schema": _ref("error")}},
        },
    }


def payments_document() -> dict[str, Any]:
    names = _payment_names()
    resources, details, sources = names
    schemas: dict[str, Any] = {}
    for i, name in enumerate(resources):
        schemas[name] = _resource_schema(i, names)
    for i, name in enumerate(details):
        schemas[name] = _detail_schema(i, names)
    for i, name in enumerate(sources):
        schemas[name] = _source_schema(i, names)
    schemas["error"] = {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": ["api_error", "card_error"]},
                    "message": {"type": "string", "maxLength": 40000},
                    "param": {"type": "string", "maxLength": 5000},
                },
            }
        },
    }
    paths: dict[str, Any] = {}
    for i, name in enumerate(resources):
        rng = random.Random(20_000 + i)
        plural = name.replace(".", "/") + "s"
        op = "".join(p.capitalize() for p in plural.replace("/", "_").split("_"))
        one = "".join(p.capitalize() for p in name.replace(".", "_").split("_"))
        expand = _list_params(rng)[3]
        paths[f"/v1/{plural}"] = {
            "get": {
                "operationId": f"Get{op}",
                "description": _text(rng, 40),
                "parameters": _list_params(rng),
                "responses": _json(_list_of(name, f"/v1/{plural}", rng), rng),
            },
            "post": {
                "operationId": f"Post{op}",
                "description": _text(rng, 40),
                "requestBody": _form_body(i, rng, create=True),
                "responses": _json(_ref(name), rng),
            },
        }
        id_param = {"name": one.lower(), "in": "path", "required": True, "schema": {"type": "string", "maxLength": 5000}}  # fmt: skip
        item: dict[str, Any] = {
            "get": {
                "operationId": f"Get{op}{one}",
                "description": _text(rng, 40),
                "parameters": [id_param, expand],
                "responses": _json(_ref(name), rng),
            }
        }
        if i % 4 == 3:
            item["delete"] = {
                "operationId": f"Delete{op}{one}",
                "parameters": [id_param],
                "responses": _json(_ref(name), rng),
            }
        else:
            item["post"] = {
                "operationId": f"Post{op}{one}",
                "parameters": [id_param],
                "requestBody": _form_body(i, rng, create=False),
                "responses": _json(_ref(name), rng),
            }
        paths[f"/v1/{plural}/{{{one.lower()}}}"] = item
        if i % 6 == 0:  # an action on one object
            verb = ("cancel", "confirm", "capture", "finalize", "void", "pay")[i // 6 % 6]
            paths[f"/v1/{plural}/{{{one.lower()}}}/{verb}{i}"] = {
                "post": {
                    "operationId": f"Post{op}{one}{verb.capitalize()}{i}",
                    "parameters": [id_param],
                    "requestBody": _form_body(i, rng, create=False),
                    "responses": _json(_ref(name), rng),
                }
            }
    return {
        "openapi": "3.0.0",
        "info": {"title": "Payments", "version": "2026-01-01", "description": "Payments."},
        "servers": [{"url": "https://payments.example.test/"}],
        "security": [{"basicAuth": []}, {"bearerAuth": []}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "basicAuth": {"type": "http", "scheme": "basic"},
                "bearerAuth": {"type": "http", "scheme": "bearer"},
            },
        },
    }


# --- the assistant document (OpenAPI 3.1) ----------------------------------------------------

AI_RESOURCES = (
    "assistant", "thread", "message", "run", "step", "file", "upload", "batch", "model",
    "moderation", "vector_store", "embedding", "image", "audio", "transcription", "response",
    "conversation", "item", "eval", "grader", "project", "user", "invite", "key", "certificate",
    "container", "session", "realtime", "fine_tune", "checkpoint", "job", "usage", "cost",
    "organization", "chunk", "completion", "prompt", "tool", "video", "skill",
)  # fmt: skip
AI_EVENTS = 240
AI_ITEMS = 300
AI_WEBHOOKS = 60


def _pascal(text: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in text.replace(".", "_").split("_"))


def _event_schema(i: int, rng: random.Random) -> tuple[str, str, dict[str, Any]]:
    resource = AI_RESOURCES[i % len(AI_RESOURCES)]
    phase = ("created", "in_progress", "delta", "done", "failed", "completed")[i % 6]
    tag = f"{resource}.{phase}.{i}"
    props: dict[str, Any] = {
        "type": {"type": "string", "const": tag, "description": _text(rng, 8)},
        "sequence_number": {"type": "integer", "description": _text(rng, 10)},
        "item_id": {"type": "string"},
        "output_index": {"type": "integer"},
    }
    if phase == "delta":
        props["delta"] = {"type": "string", "description": _text(rng, 10)}
        props["logprobs"] = {"type": ["array", "null"], "items": {"type": "number"}}
    else:
        props[resource] = _ref(_pascal(resource) + "Object")
    for value in props.values():
        value.setdefault("description", _text(rng, 30))
    return (
        _pascal(tag.replace(".", "_")) + "Event",
        tag,
        {
            "type": "object",
            "description": _text(rng, 30),
            "required": ["type", "sequence_number"],
            "properties": props,
            "x-oaiMeta": {"name": tag, "group": resource},
        },
    )


def _item_schema(i: int, rng: random.Random, unions: list[str]) -> tuple[str, str, dict[str, Any]]:
    tag = f"{AI_RESOURCES[i % len(AI_RESOURCES)]}_part_{i}"
    props: dict[str, Any] = {
        "type": {"type": "string", "enum": [tag], "default": tag, "description": _text(rng, 8)},
        "id": {"type": "string"},
        "status": {"type": ["string", "null"], "enum": ["in_progress", "completed", None]},
        "text": {"type": "string", "description": _text(rng, 20)},
        "annotations": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
    }
    for value in props.values():
        value.setdefault("description", _text(rng, 30))
    if i % 3 == 0:  # items that hold other items: cycles through the unions
        props["content"] = {"type": "array", "items": _ref(unions[i % len(unions)])}
    if i % 4 == 1:
        props["score"] = {"anyOf": [{"type": "number"}, {"type": "null"}]}
    return (
        _pascal(tag) + "Item",
        tag,
        {
            "type": "object",
            "title": tag,
            "description": _text(rng, 25),
            "required": ["type"],
            "properties": props,
        },
    )


def _ai_object(resource: str, rng: random.Random, unions: list[str]) -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": {"type": "string", "description": _text(rng, 10)},
        "object": {"type": "string", "const": resource, "description": _text(rng, 8)},
        "created_at": {"type": "integer"},
        "metadata": _ref("Metadata"),
        "name": {"type": ["string", "null"], "description": _text(rng, 15)},
        "status": {"type": "string", "enum": ["queued", "in_progress", "completed", "failed"]},
        "usage": {"anyOf": [_ref("Usage"), {"type": "null"}]},
        "output": {"type": "array", "items": _ref(unions[len(resource) % len(unions)])},
        "model": _ref("ModelIds"),
        "instructions": {"type": ["string", "null"]},
        "temperature": {"type": ["number", "null"], "minimum": 0, "maximum": 2, "default": 1},
    }
    return {
        "type": "object",
        "title": resource,
        "description": _text(rng, 60),
        "required": ["id", "object", "created_at"],
        "properties": props,
    }


def _create_request(resource: str, rng: random.Random, unions: list[str]) -> dict[str, Any]:
    props: dict[str, Any] = {
        "model": _ref("ModelIds"),
        "input": {
            "description": _text(rng, 20),
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": _ref(unions[len(resource) % len(unions)])},
            ],
        },
        "instructions": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "metadata": _ref("Metadata"),
        "stream": {"type": ["boolean", "null"], "default": False, "description": _text(rng, 20)},
        "temperature": {"type": ["number", "null"], "minimum": 0, "maximum": 2, "default": 1},
        "max_output_tokens": {"type": ["integer", "null"]},
        "tools": {"type": "array", "items": _ref("Tool")},
        "tool_choice": {
            "anyOf": [
                {"type": "string", "enum": ["none", "auto", "required"]},
                _ref("ToolChoiceFunction"),
            ]
        },
    }
    return {
        "type": "object",
        "description": _text(rng, 30),
        "required": ["model"],
        "properties": props,
        "additionalProperties": False,
    }


def assistant_document() -> dict[str, Any]:
    rng = random.Random(7)
    schemas: dict[str, Any] = {
        "Metadata": {
            "anyOf": [
                {"type": "object", "additionalProperties": {"type": "string"}},
                {"type": "null"},
            ],
            "description": _text(rng, 40),
        },
        "Usage": {
            "type": "object",
            "required": ["input_tokens", "output_tokens"],
            "properties": {
                "input_tokens": {"type": "integer"},
                "output_tokens": {"type": "integer"},
                "details": {"type": "object", "properties": {"cached": {"type": "integer"}}},
            },
        },
        "ModelIds": {
            "anyOf": [
                {"type": "string"},
                {"type": "string", "enum": [f"model-{v}" for v in range(120)]},
            ]
        },
        "ToolChoiceFunction": {
            "type": "object",
            "required": ["type", "name"],
            "properties": {"type": {"const": "function"}, "name": {"type": "string"}},
        },
        "ErrorResponse": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["message"],
                    "properties": {
                        "message": {"type": "string"},
                        "code": {"type": ["string", "null"]},
                    },
                }
            },
        },
    }
    tools = []
    for i, kind in enumerate(("function", "file_search", "web_search", "computer", "code", "mcp")):
        name = _pascal(kind) + "Tool"
        tools.append((kind, name))
        schemas[name] = {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {"type": "string", "enum": [kind], "default": kind},
                "name": {"type": "string"},
                "parameters": {"type": ["object", "null"], "additionalProperties": True},
                "strict": {"type": ["boolean", "null"]},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 50 + i},
            },
        }
    schemas["Tool"] = {
        "oneOf": [_ref(n) for _, n in tools],
        "discriminator": {
            "propertyName": "type",
            "mapping": {k: f"#/components/schemas/{n}" for k, n in tools},
        },
    }
    unions = [f"ItemUnion{u}" for u in range(20)]
    items = [_item_schema(i, random.Random(30_000 + i), unions) for i in range(AI_ITEMS)]
    for name, _, schema in items:
        schemas[name] = schema
    for u, union in enumerate(unions):  # 20 unions of 15 items each
        members = items[u * 15 : (u + 1) * 15]
        disc: dict[str, Any] = {"propertyName": "type"}
        if u % 2 == 0:
            disc["mapping"] = {tag: f"#/components/schemas/{name}" for name, tag, _ in members}
        schemas[union] = {"oneOf": [_ref(name) for name, _, _ in members], "discriminator": disc}
    for resource in AI_RESOURCES:
        r = random.Random(resource)
        base = _pascal(resource)
        schemas[base + "Object"] = _ai_object(resource, r, unions)
        schemas[f"Create{base}Request"] = _create_request(resource, r, unions)
        schemas[f"Modify{base}Request"] = {
            "type": "object",
            "properties": {"metadata": _ref("Metadata"), "name": {"type": ["string", "null"]}},
        }
        schemas[f"List{base}Response"] = {
            "type": "object",
            "required": ["object", "data", "has_more"],
            "properties": {
                "object": {"const": "list"},
                "data": {"type": "array", "items": _ref(base + "Object")},
                "first_id": {"type": ["string", "null"]},
                "last_id": {"type": ["string", "null"]},
                "has_more": {"type": "boolean"},
            },
        }
        schemas[f"Delete{base}Response"] = {
            "type": "object",
            "required": ["id", "object", "deleted"],
            "properties": {
                "id": {"type": "string"},
                "object": {"const": f"{resource}.deleted"},
                "deleted": {"type": "boolean"},
            },
        }
    events = [_event_schema(i, random.Random(40_000 + i)) for i in range(AI_EVENTS)]
    for name, _, schema in events:
        schemas[name] = schema
    schemas["StreamEvent"] = {
        "anyOf": [_ref(name) for name, _, _ in events],
        "discriminator": {
            "propertyName": "type",
            "mapping": {tag: f"#/components/schemas/{name}" for name, tag, _ in events},
        },
    }
    hooks: dict[str, Any] = {}
    for i in range(AI_WEBHOOKS):
        resource = AI_RESOURCES[i % len(AI_RESOURCES)]
        tag = f"{resource}.{('completed', 'failed', 'cancelled')[i % 3]}.{i}"
        name = "Webhook" + _pascal(tag.replace(".", "_"))
        schemas[name] = {
            "type": "object",
            "required": ["id", "type", "created_at", "data"],
            "properties": {
                "id": {"type": "string"},
                "object": {"const": "event"},
                "type": {"const": tag},
                "created_at": {"type": "integer"},
                "data": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {"id": {"type": "string"}},
                },
            },
        }
        hooks[tag] = {
            "post": {
                "requestBody": {"content": {"application/json": {"schema": _ref(name)}}},
                "responses": {"200": {"description": "Acknowledged."}},
            }
        }
    # filler shapes, as large APIs have: settings and parameter objects nobody else names
    i = 0
    while len(schemas) < 1400:
        resource = AI_RESOURCES[i % len(AI_RESOURCES)]
        r = random.Random(50_000 + i)
        props = {
            f"{WORDS[(i + k) % len(WORDS)]}_{k}": (
                {"type": ["string", "null"]}
                if k % 3 == 0
                else {"type": "integer", "minimum": 0}
                if k % 3 == 1
                else {"type": "string", "enum": [f"v{k}", f"w{k}"]}
            )
            for k in range(5 + i % 6)
        }
        for value in props.values():
            value["description"] = _text(r, 45)
        props["owner"] = _ref(_pascal(resource) + "Object")
        schemas[f"{_pascal(resource)}Setting{i}"] = {
            "type": "object",
            "description": _text(r, 40),
            "properties": props,
        }
        i += 1
    return {
        "openapi": "3.1.0",
        "info": {"title": "Assistant", "version": "2.0.0"},
        "servers": [{"url": "https://assistant.example.test/v1"}],
        "security": [{"ApiKeyAuth": []}],
        "tags": [{"name": _pascal(r), "description": f"{r} objects"} for r in AI_RESOURCES],
        "paths": _assistant_paths(),
        "webhooks": hooks,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"ApiKeyAuth": {"type": "http", "scheme": "bearer"}},
        },
    }


def _content(schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": "OK", "content": {"application/json": {"schema": schema}}}


def _assistant_paths() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for n, resource in enumerate(AI_RESOURCES):
        r = random.Random(60_000 + n)
        base = _pascal(resource)
        plural = f"/{resource}s"
        error = {
            "default": {
                "description": "Error.",
                "content": {"application/json": {"schema": _ref("ErrorResponse")}},
            }
        }
        created: dict[str, Any] = {"application/json": {"schema": _ref(base + "Object")}}
        if n % 4 == 0:  # streamed when asked: server-sent events
            created["text/event-stream"] = {"schema": _ref("StreamEvent")}
        limit = {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20}}
        after = {"name": "after", "in": "query", "schema": {"type": "string"}}
        order = {"name": "order", "in": "query", "schema": {"enum": ["asc", "desc"]}}
        paths[plural] = {
            "get": {
                "operationId": f"list{base}s",
                "tags": [base],
                "summary": _text(r, 8),
                "parameters": [limit, after, order],
                "responses": {"200": _content(_ref(f"List{base}Response")), **error},
            },
            "post": {
                "operationId": f"create{base}",
                "tags": [base],
                "summary": _text(r, 8),
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref(f"Create{base}Request")}},
                },
                "responses": {"200": {"description": "OK", "content": created}, **error},
            },
        }
        id_param = {"name": f"{resource}_id", "in": "path", "required": True, "schema": {"type": "string"}}  # fmt: skip
        paths[f"{plural}/{{{resource}_id}}"] = {
            "parameters": [id_param],
            "get": {
                "operationId": f"retrieve{base}",
                "tags": [base],
                "responses": {"200": _content(_ref(base + "Object")), **error},
            },
            "post": {
                "operationId": f"modify{base}",
                "tags": [base],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref(f"Modify{base}Request")}},
                },
                "responses": {"200": _content(_ref(base + "Object")), **error},
            },
            "delete": {
                "operationId": f"delete{base}",
                "tags": [base],
                "responses": {"200": _content(_ref(f"Delete{base}Response")), **error},
            },
        }
    return paths
