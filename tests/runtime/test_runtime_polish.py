"""The smaller promises of a serious SDK, each against the committed package (and a real server
where a request is involved): field descriptions at run time, a complete ``dir()``, legacy
``httpx`` objects refused with the fix named, redaction on token boundaries,
``with_streaming_response`` (sync and async) and enum comparisons a type checker can catch."""

from __future__ import annotations

import asyncio
import logging
import pydoc
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from cube_client import AsyncChatClient, ChatClient, ConfigurationError, PlatformClient
from runtime_servers import API_KEY, Exchange, LocalServer, async_platform, platform

from tests.helpers import check_user_code, imported_package

# --------------------------------------------------------------------------- descriptions

# Quotes and backslashes that must be escaped in a string literal and a docstring (the IR keeps
# descriptions on one line: a line break would reach here as the text ``\x0a``).
HOSTILE = 'Ends "with quotes"""; a \\ backslash, \'single\' quotes and a trailing quote"'
DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Described", "version": "1"},
    "paths": {},
    "components": {
        "schemas": {
            "Thing": {
                "type": "object",
                "required": ["jobId"],
                "properties": {
                    "jobId": {"type": "string", "description": HOSTILE},
                    "plain": {"type": "integer", "description": "How many."},
                    "bare": {"type": "string"},
                },
            }
        }
    },
}


def test_field_descriptions_are_there_at_run_time(tmp_path: Path) -> None:
    with imported_package(DOC, tmp_path / "dist", "described_client"):
        from described_client.models import Thing  # type: ignore[import-not-found]

        fields = Thing.model_fields
        assert fields["job_id"].description == HOSTILE  # escaped in code, exact at run time
        assert fields["plain"].description == "How many."
        assert fields["bare"].description is None
        schema = Thing.model_json_schema()
        assert schema["properties"]["jobId"]["description"] == HOSTILE
        shown = pydoc.render_doc(Thing, renderer=pydoc.plaintext)
        assert "plain: How many." in shown and "backslash" in shown


def test_committed_models_carry_their_overlay_descriptions() -> None:
    from cube_client.platform.models import DashboardExportJobResponse

    description = DashboardExportJobResponse.model_fields["job_id"].description
    assert description and "getExportStatus" in description
    props = DashboardExportJobResponse.model_json_schema()["properties"]
    assert props["jobId"]["description"] == description
    assert description in pydoc.render_doc(DashboardExportJobResponse, renderer=pydoc.plaintext)


# --------------------------------------------------------------------------- dir()


def test_dir_lists_every_public_name() -> None:
    import cube_client

    names = dir(cube_client)
    assert set(cube_client.__all__) <= set(names)
    for name in ("PlatformClient", "AsyncChatClient", "Unknown", "PageShapeError"):
        assert name in names


# --------------------------------------------------------------------------- legacy httpx


def test_legacy_httpx_timeout_is_refused_with_the_fix(server: LocalServer) -> None:
    legacy = httpx.Timeout(5.0)
    with pytest.raises(ConfigurationError, match=r"httpx\.Timeout.*httpx2\.Timeout\(") as info:
        PlatformClient(api_key=API_KEY, base_url="https://x.example", timeout=legacy)
    assert "httpx2" in str(info.value)
    with platform(server.url) as client:
        with pytest.raises(ConfigurationError, match=r"httpx2\.Timeout"):
            client.with_options(timeout=legacy)
        with pytest.raises(ConfigurationError, match=r"httpx2\.Timeout"):
            client.deployments.get_deployment(7, timeout=legacy)  # type: ignore[arg-type]
    assert server.seen() == []  # refused before anything was sent
    with pytest.raises(ConfigurationError, match=r"httpx2\.Client"):
        PlatformClient(api_key=API_KEY, base_url="https://x.example", http_client=httpx.Client())  # type: ignore[arg-type]


# --------------------------------------------------------------------------- redaction


def test_a_one_letter_key_is_redacted_only_where_it_is_a_token(
    server: LocalServer, caplog: pytest.LogCaptureFixture
) -> None:
    @server.route("GET", "*")
    def reply(ex: Exchange) -> None:
        ex.json(401, {"error": "key k is not valid; keep trying"})

    client = PlatformClient(api_key="k", base_url=server.url, allow_http_loopback=True)
    with client, caplog.at_level(logging.DEBUG, logger="cube_client"):
        with pytest.raises(Exception) as info:
            client.deployments.get_deployment(7)
    logged = caplog.text
    assert "keep-alive" in logged and "[redacted]eep" not in logged
    assert "'authorization': '[redacted]'" in logged.lower()
    assert str(info.value).count("[redacted]") == 1 and "keep trying" in str(info.value)
    assert info.value.response.text.count("[redacted]") == 1  # type: ignore[attr-defined]


def test_a_long_key_is_still_redacted_everywhere(
    server: LocalServer, caplog: pytest.LogCaptureFixture
) -> None:
    @server.route("GET", "*")
    def reply(ex: Exchange) -> None:
        ex.json(403, {"error": f"token {API_KEY}, scoped elsewhere"}, {"X-Echo": API_KEY})

    with platform(server.url) as client, caplog.at_level(logging.DEBUG, logger="cube_client"):
        with pytest.raises(Exception) as info:
            client.deployments.get_deployment(7)
    error: Any = info.value
    assert API_KEY not in caplog.text + str(error) + error.response.text
    assert API_KEY not in str(dict(error.response.headers))


# --------------------------------------------------------------------------- streaming response


PARTS = (
    b'{"id": 7, "name": "d", "creationStep": "ready",',
    b' "deploymentUrl": "https://d.example"}',
)
SIZE = len(b"".join(PARTS))


def _slow_body(server: LocalServer, release: threading.Event) -> None:
    """Headers at once; the body only once ``release`` is set (so a handler that needs the body
    before returning would hang, and the test would see it)."""

    @server.route("GET", "/api/v1/deployments/7")
    def reply(ex: Exchange) -> None:
        ex.start_chunked(200, {"Content-Type": "application/json", "X-Request-Id": "req-9"})
        release.wait(10)
        for part in PARTS:
            ex.chunk(part)
        ex.chunk(b"")


def test_with_streaming_response_yields_before_the_body(server: LocalServer) -> None:
    release = threading.Event()
    _slow_body(server, release)
    with (
        platform(server.url) as client,
        client.with_streaming_response.deployments.get_deployment(7) as response,
    ):
        assert response.status_code == 200 and response.request_id == "req-9"
        assert not response.http_response.is_stream_consumed
        release.set()
        deployment = response.parse()
    assert deployment.id == 7 and deployment.creation_step == "ready"
    assert response.http_response.is_closed


def test_with_streaming_response_reads_lines_and_closes_unread(server: LocalServer) -> None:
    @server.route("POST", "/agent/chat/stream-chat-state")
    def reply(ex: Exchange) -> None:
        ex.send(200, b'{"id": "a", "content": "hi"}\n{"id": "__usage__", "type": "usage"}\n',
                {"Content-Type": "application/jsonl"})  # fmt: skip

    agent = server.url + "/agent"
    with ChatClient(api_key=API_KEY, base_url=agent, allow_http_loopback=True) as client:
        with client.chat.with_streaming_response.stream_chat_state(input="q") as response:
            lines = list(response.iter_lines())
        assert [line for line in lines if line][-1] == '{"id": "__usage__", "type": "usage"}'
        with client.with_streaming_response.chat.stream_chat_state(input="q") as response:
            assert response.status_code == 200  # left unread
        assert response.http_response.is_closed
    assert [s.json()["input"] for s in server.seen()] == ["q", "q"]


def test_with_streaming_response_reads_a_whole_body_within_the_limits(server: LocalServer) -> None:
    from cube_client import Limits, ResponseTooLargeError

    release = threading.Event()
    release.set()
    _slow_body(server, release)
    with platform(server.url, limits=Limits(max_response_bytes=SIZE - 1)) as client:
        with client.with_streaming_response.deployments.get_deployment(7) as response:
            with pytest.raises(ResponseTooLargeError):
                response.parse()
        with client.with_streaming_response.deployments.get_deployment(7) as response:
            assert b"".join(response.iter_bytes()) == b"".join(PARTS)  # in parts: not bounded
    with platform(server.url, limits=Limits(max_response_bytes=SIZE)) as client:
        with client.with_streaming_response.deployments.get_deployment(7) as response:
            assert response.parse().id == 7


def test_async_with_streaming_response(server: LocalServer) -> None:
    release = threading.Event()
    _slow_body(server, release)

    @server.route("POST", "/agent/chat/stream-chat-state")
    def lines(ex: Exchange) -> None:
        ex.send(200, b'{"id": "a", "content": "hi"}\n{"id": "__usage__", "type": "usage"}\n',
                {"Content-Type": "application/jsonl"})  # fmt: skip

    async def run() -> tuple[Any, list[Any]]:
        async with async_platform(server.url) as client:
            streaming = client.with_streaming_response.deployments
            async with streaming.get_deployment(7) as response:
                assert response.headers["x-request-id"] == "req-9"
                release.set()
                deployment = await response.parse()
        agent = server.url + "/agent"
        chat = AsyncChatClient(api_key=API_KEY, base_url=agent, allow_http_loopback=True)
        async with chat, chat.with_streaming_response.chat.stream_chat_state(input="q") as r:
            items = [item async for item in await r.parse()]
        return deployment, items

    deployment, items = asyncio.run(run())
    assert deployment.name == "d"
    assert [item.id for item in items] == ["a", "__usage__"]


# --------------------------------------------------------------------------- enum comparisons

USER_CODE = """
from cube_client import Unknown
from cube_client.platform.models import Deployment


def check(deployment: Deployment) -> bool:
    if deployment.creation_step == "ready" or isinstance(deployment.creation_step, Unknown):
        return True
    return deployment.creation_step == "readyy"
"""


def test_a_misspelt_enum_value_fails_mypy_strict(tmp_path: Path) -> None:
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "user_code.py").write_text(USER_CODE, encoding="utf-8")
    proc = check_user_code(folder, tmp_path / "mypy-cache")
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, proc.stdout[-3000:]
    assert "user_code.py:9:" in errors[0] and "comparison-overlap" in errors[0]


def test_unknown_still_compares_at_run_time() -> None:
    from cube_client import Unknown

    assert Unknown("x") == Unknown("x") and Unknown("x") != Unknown("y")
    assert Unknown("x") != "x" and len({Unknown("x"), Unknown("x")}) == 1
