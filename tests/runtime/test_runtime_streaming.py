"""Streamed bodies against a real server: a 24 MB audit-log CSV parsed and saved in bounded memory,
and server-sent events with multi-line data and an early exit that closes the connection.

No operation of our documents answers with ``text/event-stream`` today, so the event streams are
read through the clients' generic ``request(..., kind="event-stream")``, the call a generated
method for such an operation makes.

The CSV is generated on the fly by the server and checked with running counters and hashes, so
neither side ever holds the whole body.
"""

from __future__ import annotations

import hashlib
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from cube_client import APIConnectionError, APIResponseValidationError, AsyncChatClient, ChatClient
from cube_client._base_client import PreparedCall
from runtime_servers import API_KEY, Exchange, LocalServer, async_platform, platform

EXPORT = "/api/v1/audit-logs/export"
# the body is over twice the peak allowed (a client holding it whole fails), and no bigger:
# the work grows with it under tracemalloc, the bound does not
CSV_BYTES = 24 * 1024 * 1024
PEAK_LIMIT = 10 * 1024 * 1024
HEADER = b"id,timestamp,user,event,details\r\n"
PAD = "x" * 900  # ~1 KB rows, as audit events with details are


def _row(i: int) -> bytes:
    if i % 1000 == 0:  # a quoted field spanning lines, with doubled quotes and a comma
        details = f'"multi-line {i}\nsecond ""quoted"", line"'
    else:
        details = f"{PAD}{i}"
    return f"{i},2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z,user{i % 97}@example.com,login,{details}\r\n".encode()


def csv_blocks(total: int = CSV_BYTES) -> Iterator[bytes]:
    """The CSV in ~64 KB blocks: the header, then rows until at least ``total`` bytes."""
    sent, i, block = len(HEADER), 0, [HEADER]
    size = len(HEADER)
    while sent < total:
        row = _row(i)
        block.append(row)
        size += len(row)
        sent += len(row)
        i += 1
        if size >= 64 * 1024:
            yield b"".join(block)
            block, size = [], 0
    if block:
        yield b"".join(block)


def _expected() -> tuple[int, int, str]:
    """Rows (without the header), bytes and sha256 of the CSV, computed as a stream."""
    digest, size, rows = hashlib.sha256(), 0, 0
    for block in csv_blocks():
        digest.update(block)
        size += len(block)
        rows += block.count(b"\r\n")
    return rows - 1, size, digest.hexdigest()


@pytest.fixture(scope="module")
def expected() -> tuple[int, int, str]:
    return _expected()


def _csv_route(server: LocalServer) -> None:
    @server.route("GET", EXPORT)
    def export(ex: Exchange) -> None:
        ex.stream(200, csv_blocks(), {"Content-Type": "text/csv; charset=utf-8"})


class HashSink:
    """A binary "file" that keeps only a running hash and size."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        self.size += len(data)
        return len(data)


def _check_row(row: list[str], i: int) -> None:
    assert row[0] == str(i)
    if i % 1000 == 0:
        assert row[4] == f'multi-line {i}\nsecond "quoted", line'
    else:
        assert row[4] == f"{PAD}{i}"


def test_csv_24mb_rows_in_bounded_memory_sync(
    server: LocalServer, expected: tuple[int, int, str]
) -> None:
    _csv_route(server)
    rows, count, header = 0, 0, None
    tracemalloc.start()
    try:
        with platform(server.url) as client:
            export = client.audit_logs.export_audit_logs()
            for row in export.iter_csv_rows():
                if header is None:
                    header = row
                    continue
                if rows % 997 == 0 or rows % 1000 == 0:
                    _check_row(row, rows)
                rows += 1
                count += len(row)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert header == ["id", "timestamp", "user", "event", "details"]
    assert rows == expected[0] and count == rows * 5
    assert peak < PEAK_LIMIT, f"peak {peak / 1e6:.1f} MB"
    print(f"\nCSV {expected[1] / 2**20:.0f} MiB, {rows} rows, sync peak {peak / 2**20:.2f} MiB")


@pytest.mark.anyio
async def test_csv_24mb_rows_in_bounded_memory_async(
    server: LocalServer, expected: tuple[int, int, str]
) -> None:
    _csv_route(server)
    rows, header = 0, None
    tracemalloc.start()
    try:
        async with async_platform(server.url) as client:
            export = await client.audit_logs.export_audit_logs()
            async for row in export.iter_csv_rows():
                if header is None:
                    header = row
                    continue
                if rows % 997 == 0 or rows % 1000 == 0:
                    _check_row(row, rows)
                rows += 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert header == ["id", "timestamp", "user", "event", "details"]
    assert rows == expected[0]
    assert peak < PEAK_LIMIT, f"peak {peak / 1e6:.1f} MB"
    print(f"\nasync peak {peak / 2**20:.2f} MiB")


def test_csv_24mb_write_to_file_sync(
    server: LocalServer, expected: tuple[int, int, str], tmp_path: Path
) -> None:
    _csv_route(server)
    sink = HashSink()
    tracemalloc.start()
    try:
        with platform(server.url) as client:
            written = client.audit_logs.export_audit_logs().write_to_file(sink)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert written == sink.size == expected[1] and sink.digest.hexdigest() == expected[2]
    assert peak < PEAK_LIMIT, f"peak {peak / 1e6:.1f} MB"
    print(f"\nwrite_to_file sync peak {peak / 2**20:.2f} MiB")
    with platform(server.url) as client:
        target = tmp_path / "audit.csv"
        assert client.audit_logs.export_audit_logs().write_to_file(target) == expected[1]
    digest = hashlib.sha256()
    with target.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    assert digest.hexdigest() == expected[2]


@pytest.mark.anyio
async def test_csv_24mb_write_to_file_async(
    server: LocalServer, expected: tuple[int, int, str]
) -> None:
    _csv_route(server)
    sink = HashSink()
    tracemalloc.start()
    try:
        async with async_platform(server.url) as client:
            export = await client.audit_logs.export_audit_logs()
            written = await export.write_to_file(sink)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert written == expected[1] and sink.digest.hexdigest() == expected[2]
    assert peak < PEAK_LIMIT, f"peak {peak / 1e6:.1f} MB"
    print(f"\nwrite_to_file async peak {peak / 2**20:.2f} MiB")


def test_csv_cut_mid_stream_is_a_connection_error(server: LocalServer, tmp_path: Path) -> None:
    @server.route("GET", EXPORT)
    def export(ex: Exchange) -> None:
        ex.start_chunked(200, {"Content-Type": "text/csv"})
        ex.chunk(HEADER + _row(1))
        ex.reset()

    target = tmp_path / "partial.csv"
    with platform(server.url) as client:
        with pytest.raises(APIConnectionError):
            list(client.audit_logs.export_audit_logs().iter_csv_rows())
        with pytest.raises(APIConnectionError):
            client.audit_logs.export_audit_logs().write_to_file(target)
    assert not target.exists()  # a failed download leaves no partial file
    target.write_bytes(b"previous export\n")
    with platform(server.url) as client, pytest.raises(APIConnectionError):
        client.audit_logs.export_audit_logs().write_to_file(target)
    assert target.read_bytes() == b"previous export\n"  # an existing file is kept as it was
    assert [p.name for p in tmp_path.iterdir()] == ["partial.csv"]  # no temporary file left


# --- server-sent events -------------------------------------------------------------------------

CHAT_BASE = "/api/v1/public/acme/agents/a1"
CHAT = f"{CHAT_BASE}/chat/stream-chat-state"
EVENTS = [
    b'event: state\nid: 1\ndata: {"text":\ndata:  "hello"}\n\n',
    b": keep-alive comment\n\n",
    b"event: note\ndata: line one\ndata: line two\r\ndata:\ndata: line four\n\n",
    b'data: {"text": "third"}\n\n',
]


def _sse_route(server: LocalServer, *, endless: bool) -> threading.Event:
    closed = threading.Event()

    @server.route("POST", CHAT)
    def chat(ex: Exchange) -> None:
        json_only = ex.seen.json().get("input") == "json"
        try:
            ex.start_chunked(
                200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
            )
            for event in EVENTS:
                if not (json_only and b"line one" in event):
                    ex.chunk(event)
            if not endless:
                ex.raw(b"0\r\n\r\n")
            elif ex.wait_for_client_close(10):  # keep the stream open until the client goes away
                closed.set()
        except ConnectionError:  # the client left while we were still writing
            closed.set()

    return closed


def _chat(server: LocalServer) -> ChatClient:
    return ChatClient(api_key=API_KEY, base_url=server.url + CHAT_BASE, allow_http_loopback=True)


def _sse_call(**body: Any) -> PreparedCall:
    return PreparedCall("POST", "/chat/stream-chat-state", json=body)


def _events(client: ChatClient, **body: Any) -> Any:
    return client.request(_sse_call(**body), cast_to=None, kind="event-stream")


async def _aevents(client: AsyncChatClient, **body: Any) -> Any:
    return await client.request(_sse_call(**body), cast_to=None, kind="event-stream")


def test_event_stream_multiline_data_sync(server: LocalServer) -> None:
    _sse_route(server, endless=False)
    with _chat(server) as client:
        events = list(_events(client, input="hi", chatId="c1"))
        assert [e.event for e in events] == ["state", "note", "message"]
        assert events[0].data == '{"text":\n "hello"}' and events[0].json() == {"text": "hello"}
        assert events[0].id == "1"
        assert events[1].data == "line one\nline two\n\nline four"
        assert list(_events(client, input="json").iter_json()) == [
            {"text": "hello"},
            {"text": "third"},
        ]
    assert server.seen("POST", CHAT)[0].json() == {"input": "hi", "chatId": "c1"}
    assert server.seen("POST", CHAT)[0].headers["authorization"] == f"Api-Key {API_KEY}"


def test_event_stream_early_exit_closes_connection_sync(server: LocalServer) -> None:
    closed = _sse_route(server, endless=True)
    with _chat(server) as client:
        stream = _events(client, input="hi")
        for event in stream:
            assert event.event == "state"
            break
        assert stream.http_response.is_closed
        assert closed.wait(10), "the server never saw the connection close"


@pytest.mark.anyio
async def test_event_stream_multiline_and_json_async(server: LocalServer) -> None:
    _sse_route(server, endless=False)
    async with AsyncChatClient(
        api_key=API_KEY, base_url=server.url + CHAT_BASE, allow_http_loopback=True
    ) as client:
        stream = await _aevents(client, input="hi")
        events = [e async for e in stream]
        assert [e.data for e in events][1] == "line one\nline two\n\nline four"
        stream = await _aevents(client, input="json")
        assert [d async for d in stream.iter_json()] == [{"text": "hello"}, {"text": "third"}]


@pytest.mark.anyio
async def test_event_stream_early_exit_closes_connection_async(server: LocalServer) -> None:
    closed = _sse_route(server, endless=True)
    async with AsyncChatClient(
        api_key=API_KEY, base_url=server.url + CHAT_BASE, allow_http_loopback=True
    ) as client:
        stream = await _aevents(client, input="hi")
        async for event in stream:
            assert event.event == "state"
            break
        # the abandoned iterator is finalised by the event loop, which closes the response
        assert await anyio.to_thread.run_sync(closed.wait, 10), (
            "the server never saw the connection close"
        )
        assert stream.http_response.is_closed
        # iter_json leaves early too; ``async with`` closes at a point of the caller's choosing
        closed.clear()
        async with await _aevents(client, input="json") as second:
            async for data in second.iter_json():
                assert data == {"text": "hello"}
                break
        assert await anyio.to_thread.run_sync(closed.wait, 10)


def test_event_stream_wrong_content_type(server: LocalServer) -> None:
    @server.route("POST", CHAT)
    def chat(ex: Exchange) -> None:
        ex.json(200, {"not": "a stream"})

    with _chat(server) as client, pytest.raises(APIResponseValidationError, match="event stream"):
        list(_events(client, input="hi"))


@pytest.mark.anyio
async def test_csv_cut_mid_stream_is_a_connection_error_async(
    server: LocalServer, tmp_path: Path
) -> None:
    @server.route("GET", EXPORT)
    def export(ex: Exchange) -> None:
        ex.start_chunked(200, {"Content-Type": "text/csv"})
        ex.chunk(HEADER + _row(1))
        ex.reset()

    target = tmp_path / "partial.csv"
    async with async_platform(server.url) as client:
        with pytest.raises(APIConnectionError):
            _ = [row async for row in (await client.audit_logs.export_audit_logs()).iter_csv_rows()]
        with pytest.raises(APIConnectionError):
            await (await client.audit_logs.export_audit_logs()).write_to_file(target)
    assert not target.exists()
