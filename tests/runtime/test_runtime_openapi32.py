"""OpenAPI 3.2: a ``text/event-stream`` response with ``itemSchema`` gives typed event iterators
(sync and async), ``application/json-seq`` and ``application/x-ndjson`` typed line streams; the
``query`` method and ``additionalOperations`` are operations; nested tags share their root's
resource; a discriminator's ``defaultMapping`` wins for a value without the discriminating
property. Exercised against a loopback server."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from runtime_servers import Exchange, LocalServer

from generator.diagnostics import CodegenError
from generator.document.validate import validate
from tests.helpers import check_clean_and_typed, imported_package

PACKAGE = "stream32_client"
EVENTS = [{"kind": "delta", "text": "Hel"}, {"kind": "delta", "text": "lo"}, {"kind": "done"}]


def document() -> dict[str, Any]:
    event = {
        "type": "object",
        "required": ["kind"],
        "properties": {
            "kind": {"type": "string", "enum": ["delta", "done"]},
            "text": {"type": "string"},
        },
    }
    stream = {"text/event-stream": {"itemSchema": {"$ref": "#/components/schemas/ChatEvent"}}}
    found = {"type": "object", "properties": {"count": {"type": "integer"}}}
    return {
        "openapi": "3.2.0",
        "$self": "https://example.test/openapi.json",
        "info": {"title": "Streams", "version": "1"},
        "tags": [
            {"name": "chat", "kind": "nav"},
            {"name": "cache", "parent": "chat"},
            {"name": "beta", "kind": "badge"},
        ],
        "paths": {
            "/chat": {
                "post": {
                    "operationId": "streamChat",
                    "tags": ["chat"],
                    "responses": {"200": {"description": "events", "content": stream}},
                }
            },
            "/search": {
                "query": {
                    "operationId": "search",
                    "tags": ["beta", "chat"],
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"q": {"type": "string"}},
                                }
                            }
                        }
                    },
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": found}},
                        }
                    },
                }
            },
        },
        "components": {"schemas": {"ChatEvent": event, **shapes()}},
    }


def shapes() -> dict[str, Any]:
    def variant(kind: str, size: str) -> dict[str, Any]:
        props = {"kind": {"const": kind}, size: {"type": "number"}, "label": {"type": "string"}}
        return {"type": "object", "properties": props}

    return {
        "Shape": {
            "oneOf": [{"$ref": "#/components/schemas/Circle"}],  # Square: only by defaultMapping
            "discriminator": {
                "propertyName": "kind",
                "mapping": {"circle": "Circle", "square": "#/components/schemas/Square"},
                "defaultMapping": "Square",
            },
        },
        "Circle": variant("circle", "radius"),
        "Square": variant("square", "side"),
    }


def _get(op_id: str, content: dict[str, Any]) -> dict[str, Any]:
    ok = {"200": {"description": "ok", "content": content}}
    return {"get": {"operationId": op_id, "tags": ["cache"], "responses": ok}}


def more_paths() -> dict[str, Any]:
    line = {"itemSchema": {"$ref": "#/components/schemas/ChatEvent"}}
    shape = {"application/json": {"schema": {"$ref": "#/components/schemas/Shape"}}}
    purge = {
        "operationId": "purgeCache",
        "tags": ["cache"],
        "responses": {"204": {"description": "gone"}},
    }
    return {
        "/seq": _get("eventSeq", {"application/json-seq": line}),
        "/nd": _get("eventLines", {"application/x-ndjson": line}),
        "/shape": _get("getShape", shape),
        "/cache": {"additionalOperations": {"PURGE": purge}},
        "/find": {"get": find_operation()},
    }


def find_operation() -> dict[str, Any]:
    query = {
        "type": "object",
        "required": ["q"],
        "properties": {
            "q": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "limit": {"type": "integer"},
        },
    }
    form = {"application/x-www-form-urlencoded": {"schema": query}}
    found = {"type": "object", "properties": {"count": {"type": "integer"}}}
    return {
        "operationId": "find",
        "tags": ["chat"],
        "parameters": [{"name": "filter", "in": "querystring", "required": True, "content": form}],
        "responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": found}}}
        },
    }


def full_document() -> dict[str, Any]:
    doc = document()
    doc["paths"].update(more_paths())
    return doc


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with imported_package(
        full_document(), tmp_path_factory.mktemp("stream32") / "dist", PACKAGE
    ) as out:
        yield out


def _serve(server: LocalServer) -> None:
    @server.route("POST", "/chat")
    def _(ex: Exchange) -> None:
        body = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in EVENTS)
        ex.send(200, body, {"Content-Type": "text/event-stream"})

    @server.route("QUERY", "/search")
    def _(ex: Exchange) -> None:
        ex.json(200, {"count": len(ex.seen.json()["q"])})


def _config() -> Any:
    from generator.document.config import FamilyConfig

    return FamilyConfig(name="s", document="doc.json", module="s", client="SClient")


def _modules() -> tuple[Any, Any]:
    """The generated client module and models module."""
    return (
        importlib.import_module(f"{PACKAGE}._client"),
        importlib.import_module(f"{PACKAGE}.models"),
    )


def _client(module: Any, server: LocalServer, name: str) -> Any:
    return getattr(module, name)(base_url=server.url, allow_http_loopback=True)


def test_item_schema_gives_typed_events_and_query_is_a_method(
    package: Path, server: LocalServer
) -> None:
    _serve(server)
    module, models = _modules()
    with _client(module, server, "Stream32ClientClient") as client:
        events = list(client.chat.stream_chat().iter_items())
        assert all(isinstance(e, models.ChatEvent) for e in events)
        assert "".join(e.text or "" for e in events) == "Hello" and events[-1].kind == "done"
        assert client.chat.search(q="abc").count == 3
    assert [s.method for s in server.seen()] == ["POST", "QUERY"]


def test_async_stream_is_typed_too(package: Path, server: LocalServer) -> None:
    _serve(server)
    module, models = _modules()

    async def main() -> list[Any]:
        async with _client(module, server, "AsyncStream32ClientClient") as client:
            stream = await client.chat.stream_chat()
            return [e async for e in stream.iter_items()]

    events = anyio.run(main)
    assert [e.kind for e in events] == ["delta", "delta", "done"]
    assert all(isinstance(e, models.ChatEvent) for e in events)


def _serve_more(server: LocalServer) -> None:
    @server.route("GET", "/seq")
    def _(ex: Exchange) -> None:
        body = b"".join(b"\x1e" + json.dumps(e).encode() + b"\n" for e in EVENTS)
        ex.send(200, body, {"Content-Type": "application/json-seq"})

    @server.route("GET", "/nd")
    def _(ex: Exchange) -> None:
        body = b"".join(json.dumps(e).encode() + b"\n" for e in EVENTS)
        ex.send(200, body, {"Content-Type": "application/x-ndjson"})

    @server.route("GET", "/shape")
    def _(ex: Exchange) -> None:
        ex.json(200, {"label": "unknown"})

    @server.route("GET", "/find")
    def _(ex: Exchange) -> None:
        ex.json(200, {"count": sum(len(v) for v in ex.seen.query.values())})

    @server.route("PURGE", "/cache")
    def _(ex: Exchange) -> None:
        ex.send(204, b"", {})


def test_json_seq_and_ndjson_streams_are_typed(package: Path, server: LocalServer) -> None:
    _serve_more(server)
    module, models = _modules()
    with _client(module, server, "Stream32ClientClient") as client:
        for stream, line in (
            (client.chat.event_seq(), models.EventSeqLine),
            (client.chat.event_lines(), models.EventLinesLine),
        ):
            events = list(stream)
            assert all(isinstance(e, line) for e in events)
            assert [e.kind for e in events] == ["delta", "delta", "done"]
            assert "".join(e.text or "" for e in events) == "Hello"

    async def main() -> list[Any]:
        async with _client(module, server, "AsyncStream32ClientClient") as client:
            stream = await client.chat.event_seq()
            return [e async for e in stream]

    assert [e.kind for e in anyio.run(main)] == ["delta", "delta", "done"]


def test_querystring_parameter_is_the_whole_query_form_encoded(
    package: Path, server: LocalServer
) -> None:
    _serve_more(server)
    module, models = _modules()
    with _client(module, server, "Stream32ClientClient") as client:
        typed = models.FindFilter(q="a b&c", tags=["x", "y"])
        assert client.chat.find(filter=typed).count == 3
        assert client.chat.find(filter={"q": "z", "limit": 5}).count == 2
    sent = [s.raw_query for s in server.seen()]
    assert sent == ["q=a+b%26c&tags=x&tags=y", "q=z&limit=5"]


def test_querystring_of_another_media_type_is_left_out_with_a_warning() -> None:
    from generator.ir.build import FamilyBuilder

    doc = full_document()
    param = doc["paths"]["/find"]["get"]["parameters"][0]
    param["content"] = {"application/json": param["content"].popitem()[1]}
    builder = FamilyBuilder(validate(doc, "doc.json")[0], "doc.json", _config())
    family = builder.build()
    find = next(op for r in family.resources for op in r.operations if op.py_name == "find")
    assert find.parameters == ()
    (warning,) = [d for d in builder.diagnostics if d.id == "querystring-media-unsupported"]
    assert warning.pointer == "/paths/~1find/get/parameters/0"


def test_additional_operation_is_sent_as_spelled_under_the_root_tag(
    package: Path, server: LocalServer
) -> None:
    _serve_more(server)
    module = importlib.import_module(f"{PACKAGE}._client")
    with _client(module, server, "Stream32ClientClient") as client:
        assert client.chat.purge_cache() is None
        assert not hasattr(client, "cache") and not hasattr(client, "beta")
    assert [(s.method, s.path) for s in server.seen()] == [("PURGE", "/cache")]


def test_default_mapping_variant_takes_a_value_without_the_property(
    package: Path, server: LocalServer
) -> None:
    _serve_more(server)
    module, models = _modules()
    with _client(module, server, "Stream32ClientClient") as client:
        shape = client.chat.get_shape()
    value = getattr(shape, "root", shape)
    assert isinstance(value, models.Square) and value.label == "unknown"


@pytest.mark.parametrize(
    ("name", "message"), [("get", "`get` field"), ("BAD METHOD", "not an HTTP method token")]
)
def test_a_bad_additional_operation_name_is_one_line(name: str, message: str) -> None:
    doc = full_document()
    doc["paths"]["/cache"]["additionalOperations"] = {name: {"responses": {}}}
    with pytest.raises(CodegenError) as exc:
        validate(doc, "doc.json")
    assert exc.value.first.pointer == f"/paths/~1cache/additionalOperations/{name}"
    assert message in exc.value.first.message


def test_a_bad_query_operation_is_one_line() -> None:
    doc = document()
    doc["paths"]["/search"]["query"]["responses"] = "nope"
    with pytest.raises(CodegenError) as exc:
        validate(doc, "doc.json")
    assert exc.value.first.pointer == "/paths/~1search/query/responses"


@pytest.mark.slow
def test_typed_stream_package_passes_mypy_strict(package: Path, tmp_path: Path) -> None:
    check_clean_and_typed(package, PACKAGE, tmp_path / "mypy")
