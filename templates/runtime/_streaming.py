"""Server-sent events read as they arrive, parsed with httpx2's own reader (JSON lines are
:mod:`._json_lines`).

Events that differ from the document follow the one rule of :mod:`._differences` (kept with a
warning, or refused with ``strict=True``), as every other body does; an event larger than
``Limits.max_event_bytes`` raises :class:`ResponseTooLargeError`.

Server-sent events are yielded as they arrive. A ``data:`` field spread over several lines is
joined with ``\\n`` as the SSE specification says; comments and ``retry:`` lines are handled by
httpx2.
Leaving the loop early, reaching the end, or an error closes the connection (for ``async for``,
leaving early closes it when the loop's iterator is finalised; use ``async with stream:`` to
close it at a point you choose).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

import httpx2
from httpx2 import EventSource, ServerSentEvent, SSEError

from ._binary_response import stream_errors
from ._exceptions import APIResponseValidationError, APIStreamError
from ._json_body import conform, loads
from ._limits import Reading, ResponseTooLargeError

__all__ = ["APIStreamError", "AsyncEventStream", "EventStream", "ServerSentEvent"]

T = TypeVar("T")  # the type of each event's data (the document's ``itemSchema``; Any without)


class _Events:
    """What the sync and async event streams share: the source, the rule, the count."""

    def __init__(self, response: httpx2.Response, item_type: Any, reading: Reading | None) -> None:
        self.reading = reading or Reading()
        self.response = response
        self.item_type = item_type
        self.source = EventSource(response, max_event_size=self.reading.limits.max_event_bytes)
        self.count = 0

    def item(self, event: ServerSentEvent) -> Any:
        self.count += 1
        data = _decode(event, self.response)
        reading = self.reading
        part = f"event {self.count}"
        return conform(data, self.item_type, self.response, reading, part)


@contextmanager
def _sse_errors(response: httpx2.Response, limit: int | None) -> Iterator[None]:
    with stream_errors(response):
        try:
            yield
        except SSEError as exc:  # a TransportError subclass, but the server's fault
            if limit is not None and "byte limit" in str(exc):
                raise ResponseTooLargeError(
                    "a server-sent event", limit, response=response
                ) from None
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
    return loads(response, event.data, "event data")


class EventStream(Generic[T]):
    """Iterate events as they arrive; leaving the loop early closes the connection.

    ``iter_items()`` gives each event's data parsed as the documented item type.
    """

    def __init__(
        self, response: httpx2.Response, item_type: Any = Any, reading: Reading | None = None
    ) -> None:
        self.http_response = response
        self._events = _Events(response, item_type, reading)

    def __iter__(self) -> Iterator[ServerSentEvent]:
        try:
            with _sse_errors(self.http_response, self._events.reading.limits.max_event_bytes):
                for event in self._events.source:
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
                    yield self._events.item(event)
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

    def __init__(
        self, response: httpx2.Response, item_type: Any = Any, reading: Reading | None = None
    ) -> None:
        self.http_response = response
        self._events = _Events(response, item_type, reading)

    async def __aiter__(self) -> AsyncIterator[ServerSentEvent]:
        limit = self._events.reading.limits.max_event_bytes
        try:
            with _sse_errors(self.http_response, limit):
                async for event in self._events.source:
                    if _dispatched(event):
                        yield event
        finally:
            await self.close()

    async def iter_json(self) -> AsyncIterator[Any]:
        """The ``data`` of each event decoded as JSON (events without data are skipped)."""
        limit = self._events.reading.limits.max_event_bytes
        try:
            with _sse_errors(self.http_response, limit):
                async for event in self._events.source:
                    if event.data:
                        yield _decode(event, self.http_response)
        finally:
            await self.close()

    async def iter_items(self) -> AsyncIterator[T]:
        """Each event's data as the documented item type (events without data are skipped)."""
        limit = self._events.reading.limits.max_event_bytes
        try:
            with _sse_errors(self.http_response, limit):
                async for event in self._events.source:
                    if event.data:
                        yield self._events.item(event)
        finally:
            await self.close()

    async def close(self) -> None:
        await self.http_response.aclose()

    async def __aenter__(self) -> AsyncEventStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
