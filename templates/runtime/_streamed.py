"""``with_streaming_response``: the HTTP response handed over before its body is read.

``with client.with_streaming_response.<resource>.<method>(...) as response:`` sends the request
and yields as soon as the status and headers are in; the body is read only when asked for
(``iter_bytes()``, ``iter_lines()``, ``read()``, ``parse()``) and the connection is released when
the block ends, read or not. ``async with`` on the async client.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import wraps
from typing import Any, Generic, ParamSpec, TypeVar

import httpx2

from ._binary_response import stream_errors
from ._limits import DEFAULT_LIMITS, Limits, aread_body, read_body
from ._response import ResponseHead
from ._types import RAW_RESPONSE_HEADER

__all__ = ["AsyncStreamedAPIResponse", "StreamedAPIResponse"]

R = TypeVar("R")
P = ParamSpec("P")
STREAM_MARK = "stream"  # the value of RAW_RESPONSE_HEADER that asks for an unread response


class StreamedAPIResponse(ResponseHead, Generic[R]):
    """A response whose body has not been read: read it in parts, whole, or parsed."""

    def __init__(
        self,
        response: httpx2.Response,
        parser: Callable[[], R],
        *,
        read_first: bool,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.http_response = response
        self._parser = parser
        self._read_first = read_first  # a JSON or text answer is read whole before parsing
        self._limits = limits  # a body read whole stops at the client's size limit

    def iter_bytes(self, chunk_size: int | None = None) -> Iterator[bytes]:
        with stream_errors(self.http_response):
            yield from self.http_response.iter_bytes(chunk_size)

    def iter_text(self, chunk_size: int | None = None) -> Iterator[str]:
        with stream_errors(self.http_response):
            yield from self.http_response.iter_text(chunk_size)

    def iter_lines(self) -> Iterator[str]:
        with stream_errors(self.http_response):
            yield from self.http_response.iter_lines()

    def read(self) -> bytes:
        """The whole body (at most the client's ``max_response_bytes``)."""
        response = self.http_response
        with stream_errors(response):
            if response.is_stream_consumed:
                return response.read()
            return read_body(response, self._limits, None)

    def text(self) -> str:
        self.read()
        return self.http_response.text

    def json(self) -> Any:
        return json.loads(self.read())

    def parse(self) -> R:
        """The value the method returns without ``with_streaming_response``."""
        if self._read_first:
            self.read()
        return self._parser()

    def close(self) -> None:
        self.http_response.close()


class AsyncStreamedAPIResponse(ResponseHead, Generic[R]):
    """Async twin of :class:`StreamedAPIResponse`."""

    def __init__(
        self,
        response: httpx2.Response,
        parser: Callable[[], R],
        *,
        read_first: bool,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.http_response = response
        self._parser = parser
        self._read_first = read_first
        self._limits = limits

    async def iter_bytes(self, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        with stream_errors(self.http_response):
            async for chunk in self.http_response.aiter_bytes(chunk_size):
                yield chunk

    async def iter_text(self, chunk_size: int | None = None) -> AsyncIterator[str]:
        with stream_errors(self.http_response):
            async for text in self.http_response.aiter_text(chunk_size):
                yield text

    async def iter_lines(self) -> AsyncIterator[str]:
        with stream_errors(self.http_response):
            async for line in self.http_response.aiter_lines():
                yield line

    async def read(self) -> bytes:
        response = self.http_response
        with stream_errors(response):
            if response.is_stream_consumed:
                return await response.aread()
            return await aread_body(response, self._limits, None)

    async def text(self) -> str:
        await self.read()
        return self.http_response.text

    async def json(self) -> Any:
        return json.loads(await self.read())

    async def parse(self) -> R:
        if self._read_first:
            await self.read()
        return self._parser()

    async def close(self) -> None:
        await self.http_response.aclose()


class StreamedResponseContext(Generic[R]):
    """Sends on entry, yields the unread response, releases the connection on exit."""

    def __init__(self, send: Callable[[], Any]) -> None:
        self._send = send
        self._response: StreamedAPIResponse[R] | None = None

    def __enter__(self) -> StreamedAPIResponse[R]:
        self._response = _as_streamed(self._send())
        return self._response

    def __exit__(self, *exc: object) -> None:
        if self._response is not None:
            self._response.close()


class AsyncStreamedResponseContext(Generic[R]):
    """Async twin of :class:`StreamedResponseContext`."""

    def __init__(self, send: Callable[[], Awaitable[Any]]) -> None:
        self._send = send
        self._response: AsyncStreamedAPIResponse[R] | None = None

    async def __aenter__(self) -> AsyncStreamedAPIResponse[R]:
        self._response = _as_async_streamed(await self._send())
        return self._response

    async def __aexit__(self, *exc: object) -> None:
        if self._response is not None:
            await self._response.close()


def _as_streamed(result: Any) -> Any:
    """A page is fetched whole (it must know its next page); it is handed over as is."""
    if isinstance(result, StreamedAPIResponse):
        return result
    return StreamedAPIResponse(result.http_response, lambda: result, read_first=False)


def _as_async_streamed(result: Any) -> Any:
    if isinstance(result, AsyncStreamedAPIResponse):
        return result
    return AsyncStreamedAPIResponse(result.http_response, lambda: result, read_first=False)


def _marked(kwargs: dict[str, Any]) -> None:
    headers = dict(kwargs.get("extra_headers") or {})
    headers[RAW_RESPONSE_HEADER] = STREAM_MARK
    kwargs["extra_headers"] = headers


def to_streamed_response_wrapper(
    func: Callable[P, R],
) -> Callable[P, StreamedResponseContext[R]]:
    """Wrap a resource method so that it returns a context manager over the unread response."""

    @wraps(func)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> StreamedResponseContext[R]:
        _marked(kwargs)
        return StreamedResponseContext(lambda: func(*args, **kwargs))

    return wrapped


def async_to_streamed_response_wrapper(
    func: Callable[P, Awaitable[R]],
) -> Callable[P, AsyncStreamedResponseContext[R]]:
    """Async twin of :func:`to_streamed_response_wrapper`."""

    @wraps(func)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> AsyncStreamedResponseContext[R]:
        _marked(kwargs)
        return AsyncStreamedResponseContext(lambda: func(*args, **kwargs))

    return wrapped
