"""Responses: parsed values, raw access (status, headers), and streamed downloads."""

from __future__ import annotations

import csv
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import lru_cache, wraps
from typing import IO, Any, Generic, ParamSpec, TypeVar

import httpx
import pydantic

from ._exceptions import APIResponseValidationError

__all__ = ["APIResponse", "AsyncBinaryResponse", "BinaryResponse"]

R = TypeVar("R")
P = ParamSpec("P")
RAW_RESPONSE_HEADER = "X-Cube-Codegen-Raw-Response"
CHUNK = 64 * 1024


@lru_cache(maxsize=512)
def _adapter(tp: Any) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(tp)


def parse_json(response: httpx.Response, cast_to: Any) -> Any:
    """Validate a JSON body into ``cast_to``; a mismatch is a typed error, not a bare crash."""
    if cast_to is None or response.status_code == 204 or not response.content:
        return None
    try:
        data = response.json()
    except ValueError as exc:
        raise APIResponseValidationError(
            f"response body is not valid JSON: {exc}", response=response, body=response.text[:500]
        ) from None
    if cast_to is object:
        return data
    try:
        return _adapter(cast_to).validate_python(data)
    except pydantic.ValidationError as exc:
        raise APIResponseValidationError(
            f"response body does not match the documented schema: {exc.error_count()} errors, "
            f"first at {'.'.join(str(p) for p in exc.errors()[0]['loc']) or 'the top level'}",
            response=response,
            body=data,
        ) from None


class APIResponse(Generic[R]):
    """The HTTP response alongside the value it parses to: ``.status_code``, ``.headers``, ``.parse()``."""

    def __init__(self, response: httpx.Response, parser: Callable[[], R]) -> None:
        self.http_response = response
        self._parser = parser
        self._parsed: list[R] = []

    @property
    def status_code(self) -> int:
        return self.http_response.status_code

    @property
    def headers(self) -> httpx.Headers:
        return self.http_response.headers

    @property
    def url(self) -> httpx.URL:
        return self.http_response.url

    def parse(self) -> R:
        if not self._parsed:
            self._parsed.append(self._parser())
        return self._parsed[0]

    def __repr__(self) -> str:
        return f"<APIResponse [{self.status_code}] {self.http_response.request.method} {self.url}>"


def to_raw_response_wrapper(func: Callable[P, R]) -> Callable[P, APIResponse[R]]:
    """Wrap a resource method so that it returns :class:`APIResponse` instead of the value."""

    @wraps(func)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> APIResponse[R]:
        headers = dict(kwargs.get("extra_headers") or {})  # type: ignore[call-overload]
        headers[RAW_RESPONSE_HEADER] = "true"
        kwargs["extra_headers"] = headers
        return func(*args, **kwargs)  # type: ignore[return-value]

    return wrapped


def async_to_raw_response_wrapper(
    func: Callable[P, Awaitable[R]],
) -> Callable[P, Awaitable[APIResponse[R]]]:
    """Async twin of :func:`to_raw_response_wrapper`."""

    @wraps(func)
    async def wrapped(*args: P.args, **kwargs: P.kwargs) -> APIResponse[R]:
        headers = dict(kwargs.get("extra_headers") or {})  # type: ignore[call-overload]
        headers[RAW_RESPONSE_HEADER] = "true"
        kwargs["extra_headers"] = headers
        return await func(*args, **kwargs)  # type: ignore[return-value]

    return wrapped


class BinaryResponse:
    """A streamed download (PDF, PNG, CSV...): read it chunk by chunk, never all in memory.

    Use as a context manager, or call :meth:`close`; :meth:`write_to_file` closes it for you.
    """

    def __init__(self, response: httpx.Response) -> None:
        self.http_response = response

    @property
    def content_type(self) -> str:
        return str(self.http_response.headers.get("content-type", ""))

    def iter_bytes(self, chunk_size: int = CHUNK) -> Iterator[bytes]:
        yield from self.http_response.iter_bytes(chunk_size)

    def iter_lines(self) -> Iterator[str]:
        yield from self.http_response.iter_lines()

    def iter_csv_rows(self) -> Iterator[list[str]]:
        """Rows of a CSV body, parsed incrementally (quoted fields may span lines)."""
        decoded = _LineReader(self.http_response.iter_text())
        yield from csv.reader(decoded)

    def read(self) -> bytes:
        return self.http_response.read()

    def write_to_file(self, file: str | os.PathLike[str] | IO[bytes]) -> int:
        """Stream the body to a path or an open binary file; returns the byte count."""
        written = 0
        with self:
            if isinstance(file, (str, os.PathLike)):
                with open(file, "wb") as fh:
                    for chunk in self.iter_bytes():
                        written += fh.write(chunk)
            else:
                for chunk in self.iter_bytes():
                    written += file.write(chunk)
        return written

    def close(self) -> None:
        self.http_response.close()

    def __enter__(self) -> BinaryResponse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncBinaryResponse:
    """Async twin of :class:`BinaryResponse`."""

    def __init__(self, response: httpx.Response) -> None:
        self.http_response = response

    @property
    def content_type(self) -> str:
        return str(self.http_response.headers.get("content-type", ""))

    async def iter_bytes(self, chunk_size: int = CHUNK) -> AsyncIterator[bytes]:
        async for chunk in self.http_response.aiter_bytes(chunk_size):
            yield chunk

    async def iter_lines(self) -> AsyncIterator[str]:
        async for line in self.http_response.aiter_lines():
            yield line

    async def read(self) -> bytes:
        return await self.http_response.aread()

    async def write_to_file(self, file: str | os.PathLike[str] | IO[bytes]) -> int:
        written = 0
        try:
            if isinstance(file, (str, os.PathLike)):
                with open(file, "wb") as fh:
                    async for chunk in self.iter_bytes():
                        written += fh.write(chunk)
            else:
                async for chunk in self.iter_bytes():
                    written += file.write(chunk)
        finally:
            await self.close()
        return written

    async def close(self) -> None:
        await self.http_response.aclose()

    async def __aenter__(self) -> AsyncBinaryResponse:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class _LineReader:
    """Adapts an iterator of text chunks into the line iterator ``csv.reader`` expects."""

    def __init__(self, chunks: Iterator[str]) -> None:
        self._chunks = chunks
        self._buffer = ""

    def __iter__(self) -> _LineReader:
        return self

    def __next__(self) -> str:
        while True:
            cut = self._buffer.find("\n")
            if cut >= 0:
                line, self._buffer = self._buffer[: cut + 1], self._buffer[cut + 1 :]
                return line
            chunk = next(self._chunks, None)
            if chunk is None:
                if self._buffer:
                    line, self._buffer = self._buffer, ""
                    return line
                raise StopIteration
            self._buffer += chunk
