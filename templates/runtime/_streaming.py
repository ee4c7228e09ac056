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
from typing import Any, Generic, TypeVar

import httpx
import pydantic
from httpx_sse import EventSource, ServerSentEvent, SSEError

from ._exceptions import APIResponseValidationError
from ._response import _adapter, stream_errors

__all__ = ["AsyncEventStream", "EventStream", "ServerSentEvent"]

T = TypeVar("T")  # the type of each event's data (the document's ``itemSchema``; Any without)


def _item(event: ServerSentEvent, response: httpx.Response, item_type: Any) -> Any:
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


class EventStream(Generic[T]):
    """Iterate events as they arrive; leaving the loop early closes the connection.

    ``iter_items()`` gives each event's data parsed as the documented item type.
    """

    def __init__(self, response: httpx.Response, item_type: Any = Any) -> None:
        self.http_response = response
        self._source = EventSource(response)
        self._item_type = item_type

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

    def __init__(self, response: httpx.Response, item_type: Any = Any) -> None:
        self.http_response = response
        self._source = EventSource(response)
        self._item_type = item_type

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

    async def iter_items(self) -> AsyncIterator[T]:
        """Each event's data as the documented item type (events without data are skipped)."""
        try:
            with _sse_errors(self.http_response):
                async for event in self._source.aiter_sse():
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
