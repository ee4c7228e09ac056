"""Server-sent event streams (the agent chat API), parsed with httpx-sse.

Events are yielded as they arrive. A ``data:`` field spread over several lines is joined with
``\\n`` as the SSE specification says; comments and ``retry:`` lines are handled by httpx-sse.
Leaving the loop early, reaching the end, or an error closes the connection (for ``async for``,
leaving early closes it when the loop's iterator is finalised; use ``async with stream:`` to
close it at a point you choose).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from ._exceptions import APIResponseValidationError
from ._response import stream_errors

__all__ = ["AsyncEventStream", "EventStream", "ServerSentEvent"]


@contextmanager
def _sse_errors(response: httpx.Response) -> Iterator[None]:
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
    by the specification, but httpx-sse passes it on once a last event id is set. Such events are
    dropped; a named event is kept even without data.
    """
    return bool(event.data) or event.event != "message" or event.retry is not None


def _decode(event: ServerSentEvent, response: httpx.Response) -> Any:
    try:
        return json.loads(event.data)
    except ValueError as exc:
        raise APIResponseValidationError(
            f"event data is not valid JSON: {exc}", response=response, body=event.data[:500]
        ) from None


class EventStream:
    """Iterate events as they arrive; leaving the loop early closes the connection."""

    def __init__(self, response: httpx.Response) -> None:
        self.http_response = response
        self._source = EventSource(response)

    def __iter__(self) -> Iterator[ServerSentEvent]:
        try:
            with _sse_errors(self.http_response):
                for event in self._source.iter_sse():
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

    def close(self) -> None:
        self.http_response.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEventStream:
    """Async twin of :class:`EventStream`."""

    def __init__(self, response: httpx.Response) -> None:
        self.http_response = response
        self._source = EventSource(response)

    async def __aiter__(self) -> AsyncIterator[ServerSentEvent]:
        try:
            with _sse_errors(self.http_response):
                async for event in self._source.aiter_sse():
                    if _dispatched(event):
                        yield event
        finally:
            await self.close()

    async def iter_json(self) -> AsyncIterator[Any]:
        """The ``data`` of each event decoded as JSON (events without data are skipped)."""
        try:
            with _sse_errors(self.http_response):
                async for event in self._source.aiter_sse():
                    if event.data:
                        yield _decode(event, self.http_response)
        finally:
            await self.close()

    async def close(self) -> None:
        await self.http_response.aclose()

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
