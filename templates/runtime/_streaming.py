"""Streamed bodies read as they arrive: server-sent events (parsed with httpx2's own reader) and
JSON lines.

JSON lines (one JSON value per line, the agent chat API's answer and the SQL results of the core
data API) are yielded as typed items; a line the document marks as an error raises
:class:`APIStreamError`, and a stream that stops inside a line or before its final line raises
:class:`IncompleteStreamError`.

Server-sent events are yielded as they arrive. A ``data:`` field spread over several lines is
joined with ``\\n`` as the SSE specification says; comments and ``retry:`` lines are handled by
httpx2.
Leaving the loop early, reaching the end, or an error closes the connection (for ``async for``,
leaving early closes it when the loop's iterator is finalised; use ``async with stream:`` to
close it at a point you choose).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

import httpx2
import pydantic
from httpx2 import EventSource, ServerSentEvent, SSEError

from ._exceptions import APIResponseValidationError, APIStreamError, IncompleteStreamError
from ._models import STRICT
from ._response import _adapter, stream_errors

__all__ = [
    "APIStreamError",
    "AsyncEventStream",
    "AsyncJSONLinesStream",
    "EventStream",
    "IncompleteStreamError",
    "JSONLines",
    "JSONLinesStream",
    "ServerSentEvent",
]

T = TypeVar("T")  # the type of each event's data (the document's ``itemSchema``; Any without)


def _item(event: ServerSentEvent, response: httpx2.Response, item_type: Any) -> Any:
    data = _decode(event, response)
    try:
        return _adapter(item_type).validate_python(data)
    except pydantic.ValidationError as exc:
        raise APIResponseValidationError(
            f"event data does not match the documented schema: {exc.error_count()} errors",
            response=response,
            body=data,
        ) from None


@contextmanager
def _sse_errors(response: httpx2.Response) -> Iterator[None]:
    with stream_errors(response):
        try:
            yield
        except SSEError as exc:  # a TransportError subclass, but the server's fault
            raise APIResponseValidationError(
                f"expected an event stream: {exc}", response=response, body=None
            ) from None


def _dispatched(event: ServerSentEvent) -> bool:
    """False for an event that carries nothing: no data, no event name, no retry.

    A blank line after only comments or ``id:`` lines (a keep-alive ping, say) is not dispatched
    by the specification, but httpx2 passes it on once a last event id is set. Such events are
    dropped; a named event is kept even without data.
    """
    return bool(event.data) or event.event != "message" or event.retry is not None


def _decode(event: ServerSentEvent, response: httpx2.Response) -> Any:
    try:
        return json.loads(event.data)
    except ValueError as exc:
        raise APIResponseValidationError(
            f"event data is not valid JSON: {exc}", response=response, body=event.data[:500]
        ) from None


class EventStream(Generic[T]):
    """Iterate events as they arrive; leaving the loop early closes the connection.

    ``iter_items()`` gives each event's data parsed as the documented item type.
    """

    def __init__(self, response: httpx2.Response, item_type: Any = Any) -> None:
        self.http_response = response
        self._source = EventSource(response)
        self._item_type = item_type

    def __iter__(self) -> Iterator[ServerSentEvent]:
        try:
            with _sse_errors(self.http_response):
                for event in self._source:
                    if _dispatched(event):
                        yield event
        finally:
            self.close()

    def iter_json(self) -> Iterator[Any]:
        """The ``data`` of each event decoded as JSON (events without data are skipped)."""
        events = iter(self)
        try:
            for event in events:
                if event.data:
                    yield _decode(event, self.http_response)
        finally:
            self.close()

    def iter_items(self) -> Iterator[T]:
        """Each event's data as the documented item type (events without data are skipped)."""
        events = iter(self)
        try:
            for event in events:
                if event.data:
                    yield _item(event, self.http_response, self._item_type)
        finally:
            self.close()

    def close(self) -> None:
        self.http_response.close()

    def __enter__(self) -> EventStream[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEventStream(Generic[T]):
    """Async twin of :class:`EventStream`."""

    def __init__(self, response: httpx2.Response, item_type: Any = Any) -> None:
        self.http_response = response
        self._source = EventSource(response)
        self._item_type = item_type

    async def __aiter__(self) -> AsyncIterator[ServerSentEvent]:
        try:
            with _sse_errors(self.http_response):
                async for event in self._source:
                    if _dispatched(event):
                        yield event
        finally:
            await self.close()

    async def iter_json(self) -> AsyncIterator[Any]:
        """The ``data`` of each event decoded as JSON (events without data are skipped)."""
        try:
            with _sse_errors(self.http_response):
                async for event in self._source:
                    if event.data:
                        yield _decode(event, self.http_response)
        finally:
            await self.close()

    async def iter_items(self) -> AsyncIterator[T]:
        """Each event's data as the documented item type (events without data are skipped)."""
        try:
            with _sse_errors(self.http_response):
                async for event in self._source:
                    if event.data:
                        yield _item(event, self.http_response, self._item_type)
        finally:
            await self.close()

    async def close(self) -> None:
        await self.http_response.aclose()

    async def __aenter__(self) -> AsyncEventStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


# --- JSON lines ---------------------------------------------------------------------------------


class JSONLines(Generic[T]):
    """What the lines of a JSON-lines body are (``item``), and how an error line and the final
    line are recognised: an object with ``error_member`` and none of ``error_without`` is an
    error; a complete stream ends with an object that has ``final_member``."""

    def __init__(
        self,
        item: Any,
        *,
        error_member: str = "",
        error_without: tuple[str, ...] = (),
        final_member: str = "",
    ) -> None:
        self.item = item
        self.error_member = error_member
        self.error_without = error_without
        self.final_member = final_member

    def open(self, response: httpx2.Response, strict: bool = False) -> JSONLinesStream[T]:
        return JSONLinesStream(response, self, strict)

    def aopen(self, response: httpx2.Response, strict: bool = False) -> AsyncJSONLinesStream[T]:
        return AsyncJSONLinesStream(response, self, strict)


# ``application/json-seq`` (RFC 7464) starts each record with a record separator; JSON lines and
# NDJSON do not. One reader serves all three.
_RS = b"\x1e"
_BLANK = b" \t\r\n\x1e"


class _Lines(Generic[T]):
    """Splits bytes into lines and turns each into an item; the sync and async streams share it."""

    def __init__(self, response: httpx2.Response, spec: JSONLines[T], strict: bool) -> None:
        self.response = response
        self.spec = spec
        # strict: the client's strict mode reaches each line (unknown enum values fail too)
        self.context = {STRICT: True} if strict else None
        self.pieces: list[bytes] = []  # the unfinished line
        self.count = 0
        self.last: object = None

    def feed(self, chunk: bytes) -> Iterator[T]:
        """The items of the lines ``chunk`` completes, one at a time: the lines before an error
        line reach the caller before the error does."""
        if b"\n" not in chunk:
            self.pieces.append(chunk)
            return
        head, *complete = chunk.split(b"\n")
        tail = complete.pop()
        complete.insert(0, b"".join([*self.pieces, head]))
        self.pieces = [tail] if tail else []
        for line in complete:
            if line.strip(_BLANK):
                yield self._item(line)

    def finish(self) -> Iterator[T]:
        """The last line (a final newline is optional), then the completeness check."""
        rest, self.pieces = b"".join(self.pieces), []
        if rest.strip(_BLANK):
            try:
                json.loads(rest.lstrip(_RS))
            except ValueError:
                raise self._incomplete("the stream ended inside a line") from None
            yield self._item(rest)
        member = self.spec.final_member
        if member and not (isinstance(self.last, dict) and member in self.last):
            raise self._incomplete(f"the stream ended before its final line (one with {member!r})")

    def _incomplete(self, message: str) -> IncompleteStreamError:
        return IncompleteStreamError(
            f"{message} after {self.count} line(s)", request=self.response.request, last=self.last
        )

    def _item(self, line: bytes) -> T:
        self.count += 1
        try:
            value = json.loads(line.lstrip(_RS))
        except ValueError as exc:
            raise APIResponseValidationError(
                f"line {self.count} is not valid JSON: {exc}",
                response=self.response,
                body=line[:500].decode("utf-8", "replace"),
            ) from None
        self.last = value
        spec = self.spec
        if (
            spec.error_member
            and isinstance(value, dict)
            and spec.error_member in value
            and not any(k in value for k in spec.error_without)
        ):
            raise APIStreamError(str(value[spec.error_member]), response=self.response, line=value)
        try:
            return _adapter(spec.item).validate_python(value, context=self.context)  # type: ignore[no-any-return]
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "the top level"
            raise APIResponseValidationError(
                f"line {self.count} does not match the documented schema: "
                f"{exc.error_count()} errors, first at {where}",
                response=self.response,
                body=value,
            ) from None


class JSONLinesStream(Generic[T]):
    """Iterate typed items as their lines arrive; leaving the loop early closes the connection."""

    def __init__(self, response: httpx2.Response, spec: JSONLines[T], strict: bool = False) -> None:
        self.http_response = response
        self._lines = _Lines(response, spec, strict)

    def __iter__(self) -> Iterator[T]:
        try:
            with stream_errors(self.http_response):
                for chunk in self.http_response.iter_bytes():
                    yield from self._lines.feed(chunk)
            yield from self._lines.finish()
        finally:
            self.close()

    def close(self) -> None:
        self.http_response.close()

    def __enter__(self) -> JSONLinesStream[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncJSONLinesStream(Generic[T]):
    """Async twin of :class:`JSONLinesStream`."""

    def __init__(self, response: httpx2.Response, spec: JSONLines[T], strict: bool = False) -> None:
        self.http_response = response
        self._lines = _Lines(response, spec, strict)

    async def __aiter__(self) -> AsyncIterator[T]:
        try:
            with stream_errors(self.http_response):
                async for chunk in self.http_response.aiter_bytes():
                    for item in self._lines.feed(chunk):
                        yield item
            for item in self._lines.finish():
                yield item
        finally:
            await self.close()

    async def close(self) -> None:
        await self.http_response.aclose()

    async def __aenter__(self) -> AsyncJSONLinesStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
