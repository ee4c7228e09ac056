"""JSON-lines answers and the core data API against real servers on 127.0.0.1 (HTTPS via trustme).

The agent chat stream is newline-delimited JSON served as ``application/json``: the clients yield
each line as a typed item while the body is still arriving, raise :class:`APIStreamError` on an
error line, close the connection when the caller leaves early, and raise
:class:`IncompleteStreamError` when the stream stops inside a line or before its final (usage)
frame. ``/v1/load`` round-trips typed request and response models; ``/v1/cubesql`` is JSON lines
too.
"""

from __future__ import annotations

import json
import ssl
import threading
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from cube_client import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    APIStreamError,
    AsyncChatClient,
    AsyncDataClient,
    ChatClient,
    DataClient,
    IncompleteStreamError,
    ResponseValidationWarning,
)
from cube_client._models import Unknown
from cube_client.chat import models as chat_models
from cube_client.data import models as data_models
from runtime_servers import API_KEY, Exchange, LocalServer

CHAT_BASE = "/api/v1/public/acme/agents/42"
CHAT = f"{CHAT_BASE}/chat/stream-chat-state"
DATA_BASE = "/cubejs-api"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJl"

ECHO = {"id": "1732512345678-message", "role": "user", "content": "revenue?", "sort": 1}
DELTA = {"id": "m2", "role": "assistant", "content": "Rev", "isDelta": True, "isInProcess": True}
TOOL = {"id": "t1", "role": "assistant", "toolCall": {"name": "cubeMeta", "input": "{}"}}
STATE = {"id": "__state__", "role": "assistant", "isDelta": False, "state": {"messages": []}}
SUSPENDED = {
    "id": "__suspended__",
    "type": "suspend",
    "code": "chat_suspended",
    "error": "restarted",
    "retryable": True,
}
USAGE = {"id": "__usage__", "type": "usage", "usage": {"inputTokens": 10, "totalTokens": 12}}
ABORTED = {"id": "__aborted__", "type": "abort", "code": "chat_aborted"}
NEW_FRAME = {"id": "__handoff__", "type": "handoff"}  # a kind of frame the document does not list
LINES = [ECHO, DELTA, TOOL, STATE, USAGE]


def _body(lines: list[Any]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _split_awkwardly(data: bytes) -> list[bytes]:
    """Chunks of 7 bytes: lines arrive split across chunks, several lines in one chunk too."""
    return [data[i : i + 7] for i in range(0, len(data), 7)]


@contextmanager
def _chat(server: LocalServer, trusting: ssl.SSLContext) -> Iterator[ChatClient]:
    with httpx2.Client(verify=trusting) as http:
        yield ChatClient(api_key=API_KEY, base_url=server.url + CHAT_BASE, http_client=http)


@asynccontextmanager
async def _achat(server: LocalServer, trusting: ssl.SSLContext) -> AsyncIterator[AsyncChatClient]:
    async with httpx2.AsyncClient(verify=trusting) as http:
        yield AsyncChatClient(api_key=API_KEY, base_url=server.url + CHAT_BASE, http_client=http)


def _stream_route(server: LocalServer, chunks: list[bytes], *, end: bytes = b"0\r\n\r\n") -> None:
    """Answer the chat stream with ``chunks`` (chunked encoding), then ``end`` as raw bytes."""

    @server.route("POST", CHAT)
    def chat(ex: Exchange) -> None:
        ex.start_chunked(200, {"Content-Type": "application/json"})
        for chunk in chunks:
            ex.chunk(chunk)
        if end:
            ex.raw(end)
        else:
            ex.reset()


def _endless_route(server: LocalServer) -> threading.Event:
    """Two lines, then the stream stays open until the client goes away (which sets the event)."""
    closed = threading.Event()

    @server.route("POST", CHAT)
    def chat(ex: Exchange) -> None:
        try:
            ex.start_chunked(200, {"Content-Type": "application/json"})
            ex.chunk(_body([ECHO, DELTA]))
            if ex.wait_for_client_close(10):
                closed.set()
        except ConnectionError:
            closed.set()

    return closed


def _check_events(events: list[Any]) -> None:
    assert all(isinstance(e, chat_models.StreamChatStateLine) for e in events)
    assert [e.id for e in events] == [line["id"] for line in LINES]
    assert events[0].role == "user" and events[0].content == "revenue?"
    assert events[1].is_delta is True and events[1].content == "Rev"
    assert events[2].tool_call is not None and events[2].tool_call.name == "cubeMeta"
    assert events[3].state == {"messages": []}
    assert events[4].type == "usage" and events[4].usage is not None
    assert events[4].usage.total_tokens == 12


def test_chat_stream_yields_typed_lines_sync(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    _stream_route(tls_server, _split_awkwardly(_body(LINES)))
    with _chat(tls_server, trusting) as client:
        stream = client.chat.stream_chat_state(input="revenue?", chat_id="c1")
        _check_events(list(stream))
        assert stream.http_response.is_closed
    seen = tls_server.seen("POST", CHAT)[0]
    assert seen.json() == {"input": "revenue?", "chatId": "c1"}
    assert seen.headers["authorization"] == f"Api-Key {API_KEY}"
    assert "application/json" in seen.headers["accept"]


@pytest.mark.anyio
async def test_chat_stream_yields_typed_lines_async(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    _stream_route(tls_server, _split_awkwardly(_body(LINES)))
    async with _achat(tls_server, trusting) as client:
        stream = await client.chat.stream_chat_state(input="revenue?")
        _check_events([e async for e in stream])
        assert stream.http_response.is_closed


def test_last_line_without_newline_and_blank_lines_are_accepted(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    body = json.dumps(ECHO).encode() + b"\r\n\n" + json.dumps(USAGE).encode()
    _stream_route(tls_server, [body])
    with _chat(tls_server, trusting) as client:
        assert [e.id for e in client.chat.stream_chat_state()] == [
            "1732512345678-message",
            "__usage__",
        ]


def test_error_line_raises_after_the_lines_before_it(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    # A suspended frame carries `error` too, but it is a message (it has an id): it is yielded.
    _stream_route(tls_server, [_body([ECHO, SUSPENDED, {"error": "BadRequestError: Bad branch"}])])
    received: list[Any] = []
    with _chat(tls_server, trusting) as client:
        stream = client.chat.stream_chat_state(input="x")
        with pytest.raises(APIStreamError) as info:
            for event in stream:
                received.append(event)
        assert stream.http_response.is_closed
    assert [e.id for e in received] == [ECHO["id"], "__suspended__"]
    assert received[1].retryable is True and received[1].code == "chat_suspended"
    assert info.value.message == "BadRequestError: Bad branch"
    assert info.value.line == {"error": "BadRequestError: Bad branch"}
    assert info.value.status_code == 200


@pytest.mark.anyio
async def test_error_line_raises_async(tls_server: LocalServer, trusting: ssl.SSLContext) -> None:
    _stream_route(tls_server, [_body([ECHO, {"error": "boom"}, USAGE])])
    async with _achat(tls_server, trusting) as client:
        stream = await client.chat.stream_chat_state(input="x")
        received = []
        with pytest.raises(APIStreamError, match="boom"):
            async for event in stream:
                received.append(event.id)
        assert received == [ECHO["id"]]
        assert stream.http_response.is_closed


def test_early_exit_closes_the_connection_sync(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    closed = _endless_route(tls_server)
    with _chat(tls_server, trusting) as client:
        stream = client.chat.stream_chat_state(input="x")
        for event in stream:
            assert event.id == ECHO["id"]
            break
        assert stream.http_response.is_closed
        assert closed.wait(10), "the server never saw the connection close"


@pytest.mark.anyio
async def test_early_exit_closes_the_connection_async(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    closed = _endless_route(tls_server)
    async with _achat(tls_server, trusting) as client:
        async with await client.chat.stream_chat_state(input="x") as stream:
            async for event in stream:
                assert event.id == ECHO["id"]
                break
        assert stream.http_response.is_closed
        assert await anyio.to_thread.run_sync(closed.wait, 10), "the connection stayed open"


CUTS = {
    # the connection is reset in the middle of a line
    "reset": ([_body([ECHO]) + b'{"id": "m2", "con'], b"", APIConnectionError),
    # the body ends cleanly, but inside a line
    "inside-a-line": ([_body([ECHO]) + b'{"id": "m2", "con'], b"0\r\n\r\n", IncompleteStreamError),
    # the body ends cleanly after whole lines, but before the final usage frame
    "before-usage": ([_body([ECHO, DELTA])], b"0\r\n\r\n", IncompleteStreamError),
    # frames with a ``type`` that are not the usage frame do not end a stream
    "after-suspended": ([_body([ECHO, SUSPENDED])], b"0\r\n\r\n", IncompleteStreamError),
    "after-aborted": ([_body([ECHO, ABORTED])], b"0\r\n\r\n", IncompleteStreamError),
    "after-unknown-frame": ([_body([ECHO, NEW_FRAME])], b"0\r\n\r\n", IncompleteStreamError),
}
LAST = {"before-usage": DELTA, "after-suspended": SUSPENDED, "after-aborted": ABORTED}


@pytest.mark.parametrize("cut", sorted(CUTS))
def test_cut_stream_is_an_error_sync(
    tls_server: LocalServer, trusting: ssl.SSLContext, cut: str
) -> None:
    chunks, end, error = CUTS[cut]
    _stream_route(tls_server, chunks, end=end)
    received = []
    with _chat(tls_server, trusting) as client, pytest.raises(error) as info:
        for event in client.chat.stream_chat_state(input="x"):
            received.append(event.id)
    assert received[0] == ECHO["id"]
    if isinstance(info.value, IncompleteStreamError):
        last = LAST.get(cut, NEW_FRAME if cut == "after-unknown-frame" else ECHO)
        assert info.value.last == last
        whole = [ECHO] if cut == "inside-a-line" else [ECHO, last]
        assert list(info.value.received) == whole  # what arrived before the cut


@pytest.mark.anyio
@pytest.mark.parametrize("cut", sorted(CUTS))
async def test_cut_stream_is_an_error_async(
    tls_server: LocalServer, trusting: ssl.SSLContext, cut: str
) -> None:
    chunks, end, error = CUTS[cut]
    _stream_route(tls_server, chunks, end=end)
    async with _achat(tls_server, trusting) as client:
        stream = await client.chat.stream_chat_state(input="x")
        with pytest.raises(error):
            _ = [event async for event in stream]
        assert stream.http_response.is_closed


def test_invalid_line_is_a_validation_error(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    _stream_route(tls_server, [_body([ECHO]) + b"not json\n" + _body([USAGE])])
    with _chat(tls_server, trusting) as client:
        with pytest.raises(APIResponseValidationError, match="line 2 is not valid JSON"):
            list(client.chat.stream_chat_state(input="x"))
    _stream_route(tls_server, [_body([{"id": "m", "role": 7}, USAGE])])
    with _chat(tls_server, trusting) as client:  # strict: a line off its schema fails the stream
        with pytest.raises(
            APIResponseValidationError, match=r"\(line 1\).*does not match the document: /role"
        ) as info:
            list(client.with_options(strict=True).chat.stream_chat_state(input="x"))
        assert [d.pointer for d in info.value.differences] == ["/role"]


def test_a_line_off_its_schema_is_kept_with_a_warning_when_lenient(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    """The same rule as every JSON body: kept as received, the warning naming line and field."""
    _stream_route(tls_server, [_body([{"id": "m", "sort": "first"}, USAGE])])
    with _chat(tls_server, trusting) as client:
        with pytest.warns(ResponseValidationWarning, match=r"\(line 1\).*/sort: str 'first'"):
            lines = list(client.chat.stream_chat_state(input="x"))
    assert lines[0].id == "m" and lines[0].sort == "first"
    assert lines[1].type == "usage"


def test_a_recording_client_records_its_lines_off_their_schema(
    tls_server: LocalServer, trusting: ssl.SSLContext, tmp_path: Path
) -> None:
    """A line that differs is recorded by the client that read it, as its shape (the line's
    value never), in that client's folder; a second client reading the same stream, without
    recording, adds nothing to it."""
    from generator.observed.records import read_observations

    _stream_route(tls_server, [_body([{"id": "m", "sort": "sorted-by-s3cr3t"}, USAGE])])
    with (
        httpx2.Client(verify=trusting) as http,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", ResponseValidationWarning)
        base = tls_server.url + CHAT_BASE
        with ChatClient(
            api_key=API_KEY, base_url=base, http_client=http, record_shapes=tmp_path
        ) as ours:
            lines = list(ours.chat.stream_chat_state(input="x"))
            assert [line.id for line in lines] == ["m", "__usage__"]
            plain = ChatClient(api_key=API_KEY, base_url=base, http_client=http)
            assert len(list(plain.chat.stream_chat_state(input="x"))) == 2
        # closing ours wrote the repeats it counted: none, as the plain client's line is not its
    (seen,) = read_observations([tmp_path])
    assert (seen.pointer, seen.kind, seen.count) == ("/sort", "type-mismatch", 1)
    assert "s3cr3t" not in (tmp_path / "shapes.jsonl").read_text(encoding="utf-8")


def test_abort_chat(tls_server: LocalServer, trusting: ssl.SSLContext) -> None:
    @tls_server.route("POST", f"{CHAT_BASE}/chat/abort")
    def abort(ex: Exchange) -> None:
        chat_id = ex.seen.json()["chatId"]
        ex.send(204) if chat_id == "c1" else ex.send(404 if chat_id == "gone" else 403)

    with _chat(tls_server, trusting) as client:
        assert client.chat.abort_chat(chat_id="c1") is None
        with pytest.raises(APIStatusError) as info:
            client.chat.abort_chat(chat_id="gone", max_retries=0)
        assert info.value.status_code == 404
        with pytest.raises(APIStatusError) as info:
            client.chat.abort_chat(chat_id="theirs", max_retries=0)
        assert info.value.status_code == 403


# --- core data API ------------------------------------------------------------------------------

LOAD_ANSWER = {
    "queryType": "regularQuery",
    "slowQuery": False,
    "results": [
        {
            "annotation": {
                "measures": {"orders.count": {"title": "Orders Count", "type": "number"}},
                "dimensions": {"orders.status": {"title": "Orders Status", "type": "string"}},
                "segments": {},
                "timeDimensions": {},
            },
            "data": [
                {"orders.status": "completed", "orders.count": "21"},
                {"orders.status": "processing", "orders.count": "13"},
            ],
        }
    ],
}


@contextmanager
def _data(server: LocalServer, trusting: ssl.SSLContext) -> Iterator[DataClient]:
    with httpx2.Client(verify=trusting) as http:
        yield DataClient(token=JWT, base_url=server.url + DATA_BASE, http_client=http)


def test_load_round_trips_typed_models(tls_server: LocalServer, trusting: ssl.SSLContext) -> None:
    @tls_server.route("POST", f"{DATA_BASE}/v1/load")
    def load(ex: Exchange) -> None:
        ex.json(200, LOAD_ANSWER)

    query = data_models.V1LoadRequestQuery(
        measures=["orders.count"],
        dimensions=["orders.status"],
        time_dimensions=[
            data_models.V1LoadRequestQueryTimeDimension(
                dimension="orders.created_at", granularity="day"
            )
        ],
        limit=10,
    )
    with _data(tls_server, trusting) as client:
        answer = client.data.load_v1(query=query, cache="must-revalidate")
    assert isinstance(answer, data_models.V1LoadResponse)
    result = answer.results[0]
    assert isinstance(result, data_models.V1LoadResult)
    assert result.annotation.measures["orders.count"]["title"] == "Orders Count"
    rows = result.data.root  # a union the document names: row, compact or columnar form
    assert isinstance(rows, list)  # the default (row) form: one object per row
    assert rows[1] == {"orders.status": "processing", "orders.count": "13"}
    seen = tls_server.seen("POST", f"{DATA_BASE}/v1/load")[0]
    assert seen.headers["authorization"] == JWT  # the JWT itself, no prefix
    assert seen.json() == {
        "cache": "must-revalidate",
        "query": {
            "measures": ["orders.count"],
            "dimensions": ["orders.status"],
            "timeDimensions": [{"dimension": "orders.created_at", "granularity": "day"}],
            "limit": 10,
        },
    }


@pytest.mark.anyio
async def test_load_error_body_async(tls_server: LocalServer, trusting: ssl.SSLContext) -> None:
    @tls_server.route("POST", f"{DATA_BASE}/v1/load")
    def load(ex: Exchange) -> None:
        ex.error(400, "Query should contain either measures, dimensions or timeDimensions")

    async with (
        httpx2.AsyncClient(verify=trusting) as http,
        AsyncDataClient(token=JWT, base_url=tls_server.url + DATA_BASE, http_client=http) as client,
    ):
        with pytest.raises(APIStatusError, match="Query should contain") as info:
            await client.data.load_v1(query=data_models.V1LoadRequestQuery())
    assert info.value.status_code == 400


def test_cubesql_lines_are_typed(tls_server: LocalServer, trusting: ssl.SSLContext) -> None:
    schema_line = {
        "schema": [{"name": "status", "column_type": "String"}],
        "lastRefreshTime": "2026-01-02T03:04:05.000Z",
    }
    lines = [schema_line, {"data": [["completed"], ["processing"]]}, {"data": [["shipped"]]}]

    @tls_server.route("POST", f"{DATA_BASE}/v1/cubesql")
    def cubesql(ex: Exchange) -> None:
        ex.stream(200, _split_awkwardly(_body(lines)), {"Content-Type": "application/json"})

    with _data(tls_server, trusting) as client:
        got = list(client.data.cubesql_v1(query="SELECT status FROM orders"))
    assert all(isinstance(line, data_models.CubesqlV1Line) for line in got)
    assert got[0].schema_ is not None and got[0].schema_[0].name == "status"
    assert got[0].last_refresh_time is not None and got[0].last_refresh_time.year == 2026
    assert [row for line in got[1:] for row in line.data or []] == [
        ["completed"],
        ["processing"],
        ["shipped"],
    ]
    assert tls_server.seen("POST", f"{DATA_BASE}/v1/cubesql")[0].json() == {
        "query": "SELECT status FROM orders"
    }


def test_cubesql_error_line_is_raised_not_yielded_as_a_row(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    """A line with the API's ``error`` member and no ``data`` or ``schema`` ends the query with
    an error after the rows before it; it is never read as an empty row."""
    schema_line = {"schema": [{"name": "status", "column_type": "String"}]}
    lines = [schema_line, {"data": [["completed"]]}, {"error": "Query timeout"}]

    @tls_server.route("POST", f"{DATA_BASE}/v1/cubesql")
    def cubesql(ex: Exchange) -> None:
        ex.stream(200, [_body(lines)], {"Content-Type": "application/json"})

    received: list[Any] = []
    with _data(tls_server, trusting) as client, pytest.raises(APIStreamError) as info:
        for line in client.data.cubesql_v1(query="SELECT status FROM orders"):
            received.append(line)
    assert [line.data for line in received] == [None, [["completed"]]]
    assert info.value.message == "Query timeout"
    assert info.value.line == {"error": "Query timeout"}


def test_load_result_in_a_shape_the_document_does_not_list_is_unknown(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    """``results[].data`` is a union (rows, compact, columnar): a shape a newer server adds is
    kept whole as ``Unknown(value)``, with no warning, and the known shapes still read typed."""
    new_shape = {"members": ["orders.count"], "arrow": "QVJST1cx"}
    compact = {"members": ["orders.count"], "dataset": [[3]]}
    answer = {
        "results": [
            {"annotation": {"measures": {}, "dimensions": {}}, "data": new_shape},
            {"annotation": {"measures": {}, "dimensions": {}}, "data": compact},
        ]
    }

    @tls_server.route("POST", f"{DATA_BASE}/v1/load")
    def load(ex: Exchange) -> None:
        ex.json(200, answer)

    with _data(tls_server, trusting) as client, warnings.catch_warnings():
        warnings.simplefilter("error")
        unknown, known = client.data.load_v1(query=data_models.V1LoadRequestQuery()).results
        assert unknown.data.root == Unknown(new_shape)
        assert isinstance(known.data.root, data_models.V1LoadResultDataCompact)
        assert known.data.root.dataset == [[3]]
