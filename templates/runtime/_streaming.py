"""Server-sent event streams (the agent chat API), parsed with httpx-sse."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
from httpx_sse import EventSource, ServerSentEvent

__all__ = ["AsyncEventStream", "EventStream", "ServerSentEvent"]


class EventStream:
    """Iterate events as they arrive; leaving the loop early closes the connection."""

    def __init__(self, response: httpx.Response) -> None:
        self.http_response = response
        self._source = EventSource(response)

    def __iter__(self) -> Iterator[ServerSentEvent]:
        try:
            yield from self._source.iter_sse()
        finally:
            self.close()

    def iter_json(self) -> Iterator[Any]:
        """The ``data`` of each event decoded as JSON (events without data are skipped)."""
        for event in self:
            if event.data:
                yield json.loads(event.data)

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
            async for event in self._source.aiter_sse():
                yield event
        finally:
            await self.close()

    async def close(self) -> None:
        await self.http_response.aclose()

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
