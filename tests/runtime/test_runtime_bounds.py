"""Every loop and buffer a server controls is bounded, each limit tested at its edge against real
servers on 127.0.0.1: page walks (repeated cursors, repeated pages, the page count), the body
size counted after decompression (a gzip bomb stops early, in little memory), the JSON-lines
line and server-sent event sizes, the whole-attempt timeout against a server that drips bytes,
and nesting deeper than the parser follows. The runtime's modules import each other without a
circle.
"""

from __future__ import annotations

import ast
import gzip
import json
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from cube_client import APIResponseValidationError, APITimeoutError, ConfigurationError
from cube_client._base_client import AsyncAPIClient, PreparedCall, SyncAPIClient
from cube_client._limits import Limits, PaginationError, ResponseTooLargeError
from cube_client._streaming import EventStream
from runtime_servers import (
    DEPLOYMENT,
    Exchange,
    LocalServer,
    async_platform,
    deployment,
    platform,
)

from tests.helpers import ROOT

LIST = "/api/v1/deployments"
MiB = 1024 * 1024


def _deployments(ids: list[int]) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"d{i}", "creationStep": "ready"} for i in ids]


# --- page walks ----------------------------------------------------------------------------------


def _cycling_cursors(server: LocalServer) -> None:
    """A → B → A: each cursor is new to the request that carries it, the walk is not."""
    following = {None: "A", "A": "B", "B": "A"}

    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        after = ex.seen.q("after")
        items = _deployments([len(server.seen())])
        ex.json(200, {"items": items, "pageInfo": {"endCursor": following[after]}})


def test_cursors_that_cycle_stop_the_walk(server: LocalServer) -> None:
    _cycling_cursors(server)
    with platform(server.url) as client:
        with pytest.raises(PaginationError) as info:
            for _ in client.deployments.get_deployments(first=1):
                pass
    assert info.value.reason == "repeated-cursor"
    assert [s.q("after") for s in server.seen()] == [None, "A", "B"]


@pytest.mark.anyio
async def test_cursors_that_cycle_stop_the_walk_async(server: LocalServer) -> None:
    _cycling_cursors(server)
    async with async_platform(server.url) as client:
        with pytest.raises(PaginationError, match="gave cursor 'A' again"):
            async for _ in client.deployments.get_deployments(first=1):
                pass
    assert len(server.seen()) == 3


def test_fetching_the_same_next_page_twice_is_not_a_loop(server: LocalServer) -> None:
    _endless(server)
    with platform(server.url, limits=Limits(max_pages=2)) as client:
        first = client.deployments.get_deployments(first=1)
        again = [first.next_page(), first.next_page()]
        assert [p.items[0].id for p in again if p is not None] == [2, 3]
        with pytest.raises(PaginationError, match="max_pages is 2"):
            again[0].next_page()  # type: ignore[union-attr]
    assert [s.q("after") for s in server.seen()] == [None, "c1", "c1"]


def _offset_ignored(server: LocalServer) -> None:
    """Every request gets the first page, full, with no total."""

    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        ex.json(200, {"data": {"deployments": _deployments([1, 2])}})


def test_a_page_that_repeats_stops_the_walk(server: LocalServer) -> None:
    _offset_ignored(server)
    with platform(server.url) as client:
        seen: list[int] = []
        with pytest.raises(PaginationError) as info:
            for item in client.deployments.get_deployments(limit=2):
                seen.append(item.id)
    assert info.value.reason == "repeated-page"
    assert seen == [1, 2]  # the repeated page's items never reach the caller
    assert [s.q("offset") for s in server.seen()] == [None, "2"]


def _endless(server: LocalServer) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        n = len(server.seen())
        ex.json(200, {"items": _deployments([n]), "pageInfo": {"endCursor": f"c{n}"}})


@pytest.mark.parametrize("pages", [1, 3])
def test_the_page_count_is_bounded_at_its_edge(server: LocalServer, pages: int) -> None:
    _endless(server)
    with platform(server.url, limits=Limits(max_pages=pages)) as client:
        first = client.deployments.get_deployments(first=1)
        walked = []
        with pytest.raises(PaginationError) as info:
            for page in first.iter_pages():
                walked.append(page)
    assert info.value.reason == "max-pages" and info.value.pages == pages
    assert len(walked) == len(server.seen()) == pages  # exactly the bound: no request beyond it


def test_a_walk_within_the_page_bound_ends_normally(server: LocalServer) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        n = len(server.seen())
        cursor = f"c{n}" if n < 3 else None
        ex.json(200, {"items": _deployments([n]), "pageInfo": {"endCursor": cursor}})

    with platform(server.url, limits=Limits(max_pages=3)) as client:
        assert [d.id for d in client.deployments.get_deployments(first=1)] == [1, 2, 3]


# --- body size, counted after decompression ------------------------------------------------------


def _json_of_size(size: int) -> bytes:
    """A Deployment whose encoded JSON is exactly ``size`` bytes."""
    body = json.dumps({"id": 7, "name": ""}).encode()
    return json.dumps({"id": 7, "name": "x" * (size - len(body))}).encode()


@pytest.mark.parametrize("extra", [0, 1])
def test_the_body_size_is_bounded_at_its_edge(server: LocalServer, extra: int) -> None:
    limit = 64 * 1024

    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        ex.send(200, _json_of_size(limit + extra), {"Content-Type": "application/json"})

    with platform(server.url, limits=Limits(max_response_bytes=limit)) as client:
        if extra:
            with pytest.raises(ResponseTooLargeError) as info:
                client.deployments.get_deployment(7)
            assert info.value.limit == limit
        else:
            assert len(client.deployments.get_deployment(7).name) > limit - 30


def test_limits_per_call_override_the_clients(server: LocalServer) -> None:
    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        ex.send(200, _json_of_size(2000), {"Content-Type": "application/json"})

    with platform(server.url) as client:
        assert client.deployments.get_deployment(7).id == 7
        with pytest.raises(ResponseTooLargeError):
            client.deployments.get_deployment(7, limits=Limits(max_response_bytes=1999))
        with pytest.raises(ResponseTooLargeError):
            client.with_options(limits=Limits(max_response_bytes=1999)).deployments.get_deployment(
                7
            )
    with platform(server.url, limits=Limits(max_response_bytes=1999)) as client:
        assert client.deployments.get_deployment(7, limits=Limits()).id == 7


def _gzip_bomb(decoded: int) -> bytes:
    """``decoded`` bytes of JSON-ish zeros, gzipped (about a thousandth of the size)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"0" * MiB
    parts = [packer.compress(b'{"id": 7, "name": "')]
    parts += [packer.compress(block) for _ in range(decoded // MiB)]
    return b"".join([*parts, packer.compress(b'"}'), packer.flush()])


def _serve_bomb(server: LocalServer, decoded: int) -> None:
    bomb = _gzip_bomb(decoded)

    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        ex.send(200, bomb, headers)


def test_a_gzip_bomb_stops_early_in_little_memory(server: LocalServer) -> None:
    _serve_bomb(server, 32 * MiB)  # 32 KiB on the wire
    with platform(server.url, limits=Limits(max_response_bytes=2 * MiB)) as client:
        tracemalloc.start()
        started = time.monotonic()
        try:
            with pytest.raises(ResponseTooLargeError):
                client.deployments.get_deployment(7)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 8 * MiB, peak  # the bound and one decoded piece, not the 32 MiB
    assert time.monotonic() - started < 10  # not the 90 s the whole bomb took


@pytest.mark.anyio
async def test_a_gzip_bomb_stops_early_async(server: LocalServer) -> None:
    _serve_bomb(server, 16 * MiB)
    async with async_platform(server.url, limits=Limits(max_response_bytes=MiB)) as client:
        with pytest.raises(ResponseTooLargeError):
            await client.deployments.get_deployment(7)


@pytest.mark.heavy
def test_the_default_bound_stops_a_400_mb_gzip_bomb(server: LocalServer) -> None:
    _serve_bomb(server, 400 * MiB)
    assert Limits().max_response_bytes == 100 * MiB
    with platform(server.url) as client:
        tracemalloc.start()
        try:
            with pytest.raises(ResponseTooLargeError):
                client.deployments.get_deployment(7)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 250 * MiB, peak


def test_a_small_gzip_body_reads_as_before(server: LocalServer) -> None:
    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        body = gzip.compress(json.dumps({"id": 7, "name": "zipped"}).encode())
        ex.send(200, body, {"Content-Type": "application/json", "Content-Encoding": "gzip"})

    with platform(server.url) as client:
        assert client.deployments.get_deployment(7).name == "zipped"


# --- the whole attempt within the timeout --------------------------------------------------------


def _drip(server: LocalServer) -> None:
    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        ex.start_chunked(200, {"Content-Type": "application/json"})
        for byte in json.dumps({"id": 7, "name": "x" * 100}).encode():
            if server.stopping.is_set():
                return
            try:
                ex.chunk(bytes([byte]))
            except OSError:
                return  # the client gave up
            time.sleep(0.1)


def test_a_server_dripping_bytes_times_out_within_the_timeout(server: LocalServer) -> None:
    _drip(server)
    with platform(server.url, timeout=1.0, max_retries=0) as client:
        started = time.monotonic()
        with pytest.raises(APITimeoutError):
            client.deployments.get_deployment(7)
    assert 0.9 < time.monotonic() - started < 3.0  # about T: a drip of 10 bytes a second


@pytest.mark.anyio
async def test_a_server_dripping_bytes_times_out_async(server: LocalServer) -> None:
    _drip(server)
    async with async_platform(server.url, max_retries=0) as client:
        started = time.monotonic()
        with pytest.raises(APITimeoutError):
            await client.deployments.get_deployment(7, timeout=1.0)
    assert 0.9 < time.monotonic() - started < 3.0  # about T: a drip of 10 bytes a second


# --- nesting ---------------------------------------------------------------------------------------


def test_nesting_deeper_than_the_parser_is_a_response_error(server: LocalServer) -> None:
    deep = b'{"id": 7, "name": "n", "extra": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"

    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        ex.send(200, deep, {"Content-Type": "application/json"})

    for strict in (False, True):
        with platform(server.url, strict=strict) as client:
            with pytest.raises(APIResponseValidationError, match="nested deeper than the parser"):
                client.deployments.get_deployment(7)


def test_nesting_the_parsers_take_reads_normally(server: LocalServer) -> None:
    whole = json.dumps({**deployment(7, "n"), "extra": "X"})
    nested = whole.replace('"X"', "[" * 150 + "]" * 150).encode()

    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        ex.send(200, nested, {"Content-Type": "application/json"})

    for strict in (False, True):
        with platform(server.url, strict=strict) as client:
            got = client.deployments.get_deployment(7)
            assert got.name == "n" and len(got.to_dict()["extra"]) == 1


# --- JSON lines ------------------------------------------------------------------------------------

CHAT_BASE = "/api/v1/public/acme/agents/42"
USAGE = {"id": "__usage__", "type": "usage", "usage": {"inputTokens": 1}}


def _chat_lines(server: LocalServer, lines: list[bytes]) -> None:
    @server.route("POST", f"{CHAT_BASE}/chat/stream-chat-state")
    def reply(ex: Exchange) -> None:
        ex.start_chunked(200, {"Content-Type": "application/json"})
        for line in lines:
            for start in range(0, len(line), 4096):  # a long line arrives in many chunks
                ex.chunk(line[start : start + 4096])
        ex.raw(b"0\r\n\r\n")


def _line_of_size(size: int) -> bytes:
    bare = json.dumps({"id": "m", "content": ""}).encode()
    return json.dumps({"id": "m", "content": "x" * (size - len(bare))}).encode() + b"\n"


@pytest.mark.parametrize("extra", [0, 1])
def test_the_json_line_size_is_bounded_at_its_edge(server: LocalServer, extra: int) -> None:
    from cube_client import ChatClient

    limit = 10_000
    line = _line_of_size(limit + extra)
    assert len(line) == limit + extra + 1  # the newline is not part of the line
    _chat_lines(server, [line, json.dumps(USAGE).encode() + b"\n"])
    client = ChatClient(
        api_key="k",
        base_url=server.url + CHAT_BASE,
        allow_http_loopback=True,
        limits=Limits(max_line_bytes=limit),
    )
    with client:
        stream = client.chat.stream_chat_state(input="x")
        if extra:
            with pytest.raises(ResponseTooLargeError, match="line 1 is larger"):
                list(stream)
        else:
            items = list(stream)  # the whole stream, up to its usage frame
            assert len(items[0].content or "") > limit - 30 and items[1].type == "usage"


@pytest.mark.heavy
def test_the_default_line_bound_stops_a_huge_line_in_bounded_memory(server: LocalServer) -> None:
    from cube_client import ChatClient

    assert Limits().max_line_bytes == 16 * MiB

    @server.route("POST", f"{CHAT_BASE}/chat/stream-chat-state")
    def reply(ex: Exchange) -> None:  # one 400 MiB line, written a MiB at a time
        ex.start_chunked(200, {"Content-Type": "application/json"})
        block = b"x" * MiB
        try:
            ex.chunk(b'{"id": "m", "content": "')
            for _ in range(400):
                ex.chunk(block)
        except OSError:
            return  # the client stopped reading

    with ChatClient(api_key="k", base_url=server.url + CHAT_BASE, allow_http_loopback=True) as c:
        tracemalloc.start()
        try:
            with pytest.raises(ResponseTooLargeError):
                list(c.chat.stream_chat_state(input="x"))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 64 * MiB, peak


# --- server-sent events ----------------------------------------------------------------------------


def _events(server: LocalServer, data: list[str]) -> None:
    @server.route("GET", "/events")
    def reply(ex: Exchange) -> None:
        body = "".join(f"data: {d}\n\n" for d in data).encode()
        ex.send(200, body, {"Content-Type": "text/event-stream"})


def _event_stream(server: LocalServer, limits: Limits) -> Iterator[Any]:
    client = SyncAPIClient(
        base_url=server.url, credential="k", allow_http_loopback=True, limits=limits
    )
    with client:
        stream = client.request(PreparedCall("GET", "/events"), cast_to=Any, kind="event-stream")
        assert isinstance(stream, EventStream)
        yield from stream.iter_json()


@pytest.mark.parametrize("extra", [0, 1])
def test_the_event_size_is_bounded_at_its_edge(server: LocalServer, extra: int) -> None:
    limit = 1000
    value = json.dumps("x" * (limit - len('data: ""') + extra))  # the line: limit + extra bytes
    _events(server, [value])
    events = _event_stream(server, Limits(max_event_bytes=limit))
    if extra:
        with pytest.raises(ResponseTooLargeError):
            list(events)
    else:
        assert [len(e) for e in events] == [len(json.loads(value))]


# --- no circles among the runtime's modules ---------------------------------------------------------


def _runtime_imports() -> dict[str, set[str]]:
    """Each runtime module's runtime imports, counting function bodies and TYPE_CHECKING."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "templates" / "runtime").glob("*.py")):
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                found.add(node.module)
        graph[path.stem] = found
    return graph


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    todo, seen = [start], set()
    while todo:
        node = todo.pop()
        for nxt in graph.get(node, set()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def test_no_import_circles_in_the_runtime() -> None:
    graph = _runtime_imports()
    assert "_json_body" in graph["_streaming"]  # the walk sees real imports
    circles = sorted(m for m in graph if _reaches(graph, m, m))
    assert circles == []


@pytest.mark.parametrize("bad", [0, -1, 2.5])
def test_a_limit_must_be_positive(bad: Any) -> None:
    with pytest.raises(ConfigurationError, match="max_pages must be a positive integer"):
        Limits(max_pages=bad)
    assert Limits(max_pages=None).max_pages is None  # None lifts it


@pytest.mark.anyio
async def test_async_clients_take_limits_too(server: LocalServer) -> None:
    _events(server, ["1"])
    client = AsyncAPIClient(base_url=server.url, credential="k", allow_http_loopback=True)
    bounded = client.with_options(limits=Limits(max_event_bytes=5))
    assert bounded.limits.max_event_bytes == 5 and client.limits == Limits()
    await client.close()
