"""OpenAPI 3.2: a ``text/event-stream`` response with ``itemSchema`` gives typed event iterators
(sync and async) and the ``query`` method is an operation; exercised against a loopback server."""

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
from generator.validate import validate
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
        "tags": [{"name": "chat", "kind": "nav"}],
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
                    "tags": ["chat"],
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
        "components": {"schemas": {"ChatEvent": event}},
    }


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with imported_package(document(), tmp_path_factory.mktemp("stream32") / "dist", PACKAGE) as out:
        yield out


def _serve(server: LocalServer) -> None:
    @server.route("POST", "/chat")
    def _(ex: Exchange) -> None:
        body = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in EVENTS)
        ex.send(200, body, {"Content-Type": "text/event-stream"})

    @server.route("QUERY", "/search")
    def _(ex: Exchange) -> None:
        ex.json(200, {"count": len(ex.seen.json()["q"])})


def _client(module: Any, server: LocalServer, name: str) -> Any:
    return getattr(module, name)(base_url=server.url, allow_http_loopback=True)


def test_item_schema_gives_typed_events_and_query_is_a_method(
    package: Path, server: LocalServer
) -> None:
    _serve(server)
    module = importlib.import_module(f"{PACKAGE}._client")
    models = importlib.import_module(f"{PACKAGE}.models")
    with _client(module, server, "Stream32ClientClient") as client:
        events = list(client.chat.stream_chat().iter_items())
        assert all(isinstance(e, models.ChatEvent) for e in events)
        assert "".join(e.text or "" for e in events) == "Hello" and events[-1].kind == "done"
        assert client.chat.search(q="abc").count == 3
    assert [s.method for s in server.seen()] == ["POST", "QUERY"]


def test_async_stream_is_typed_too(package: Path, server: LocalServer) -> None:
    _serve(server)
    module = importlib.import_module(f"{PACKAGE}._client")
    models = importlib.import_module(f"{PACKAGE}.models")

    async def main() -> list[Any]:
        async with _client(module, server, "AsyncStream32ClientClient") as client:
            stream = await client.chat.stream_chat()
            return [e async for e in stream.iter_items()]

    events = anyio.run(main)
    assert [e.kind for e in events] == ["delta", "delta", "done"]
    assert all(isinstance(e, models.ChatEvent) for e in events)


def test_a_bad_query_operation_is_one_line() -> None:
    doc = document()
    doc["paths"]["/search"]["query"]["responses"] = "nope"
    with pytest.raises(CodegenError) as exc:
        validate(doc, "doc.json")
    assert exc.value.first.pointer == "/paths/~1search/query/responses"


@pytest.mark.slow
def test_typed_stream_package_passes_mypy_strict(package: Path, tmp_path: Path) -> None:
    check_clean_and_typed(package, PACKAGE, tmp_path / "mypy")
