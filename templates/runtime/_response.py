"""Responses: parsed values, raw access (status, headers), and streamed downloads."""

from __future__ import annotations

import csv
import json
import os
import secrets
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from functools import lru_cache, wraps
from typing import IO, Any, Generic, ParamSpec, TypeVar

import httpx2
import pydantic

from ._differences import Context, from_errors, report
from ._exceptions import APIConnectionError, APIResponseValidationError, APITimeoutError
from ._limits import DEFAULT_LIMITS, Limits, aread_body, read_body
from ._models import STRICT, Where, adapter, construct, lazy_builder
from ._response_headers import request_id
from ._types import RAW_RESPONSE_HEADER

__all__ = ["APIResponse", "AsyncBinaryResponse", "BinaryResponse"]

R = TypeVar("R")
P = ParamSpec("P")
CHUNK = 64 * 1024


_STRICT_CONTEXT = {STRICT: True}


def _invalid_json(response: httpx2.Response, detail: object) -> APIResponseValidationError:
    return APIResponseValidationError(
        f"response body is not valid JSON: {detail}", response=response, body=response.text[:500]
    )


def parse_json(
    response: httpx2.Response, cast_to: Any, strict: bool = False, path: str = ""
) -> Any:
    """Validate a JSON body into ``cast_to``.

    Models are built lazily (each field validated when first read, see :mod:`._models`); other
    types are parsed and validated in one pass by pydantic-core (``validate_json``), markedly
    cheaper than ``json.loads`` followed by ``validate_python``. A body that differs from the
    document follows the one rule of :mod:`._differences`: kept with a warning, or with
    ``strict`` an :class:`APIResponseValidationError`. ``path`` is the operation's path template.
    """
    if cast_to is None or response.status_code == 204 or not response.content:
        return None
    builder = None if strict else lazy_builder(cast_to)
    if builder is not None or cast_to is object:
        data = loads(response, response.content)
        if builder is None:
            return data
        return builder(data, Where(Context.of(response, path)))
    try:
        return adapter(cast_to).validate_json(
            response.content, context=_STRICT_CONTEXT if strict else None
        )
    except pydantic.ValidationError as exc:
        errors = exc.errors()
        if errors[0]["type"] == "recursion_loop" or "recursion limit" in errors[0]["msg"]:
            raise too_deep(response) from None
        if errors[0]["type"] == "json_invalid":
            raise _invalid_json(response, errors[0]["msg"]) from None
        return _differs(response, cast_to, errors, strict, path)


def _differs(response: httpx2.Response, cast_to: Any, errors: Any, strict: bool, path: str) -> Any:
    """A body that did not validate, through the one rule (kept and warned, or refused)."""
    body = loads(response, response.content)
    context = Context.of(response, path)
    if strict:
        report(from_errors(errors, body, context), strict=True, response=response, body=body)
    value, found = construct(cast_to, body, "", context)
    report(found, response=response, body=body)
    return value


def parse_items(
    response: httpx2.Response,
    data: Any,
    items: Any,
    item_type: Any,
    strict: bool = False,
    at: str = "",
    path: str = "",
    operation: str = "",
) -> list[Any]:
    """The items of one page (already parsed JSON, found at pointer ``at``), leniently unless
    ``strict``."""
    tp, builder = _list_of(item_type)
    context = Context.of(response, path, operation=operation)
    if builder is not None and not strict and isinstance(items, list):
        built = builder(items, Where(context, at))
        return built if type(built) is list else list(built)
    try:
        return list(adapter(tp).validate_python(items, context=_STRICT_CONTEXT if strict else None))
    except pydantic.ValidationError as exc:
        if strict:
            found = from_errors(exc.errors(), items, context, at)
            report(found, strict=True, response=response, body=data)
        value, found = construct(tp, items, at, context)
        report(found, response=response, body=data)
        return list(value)


@lru_cache(maxsize=1024)
def _list_of(item_type: Any) -> tuple[Any, Any]:
    """``list[item_type]`` and its lazy builder (or ``None``), made once per item type rather
    than on every page."""
    tp = list[item_type]
    return tp, lazy_builder(tp)


def conform(
    value: Any, tp: Any, response: httpx2.Response, strict: bool, path: str, part: str
) -> Any:
    """One decoded JSON value of a stream (a line, an event's data) as ``tp``, under the one
    rule of :mod:`._differences`; ``part`` says which (``line 3``)."""
    try:
        return adapter(tp).validate_python(value, context=_STRICT_CONTEXT if strict else None)
    except pydantic.ValidationError as exc:
        context = Context.of(response, path, part)
        if strict:
            found = from_errors(exc.errors(), value, context)
            report(found, strict=True, response=response, body=value)
        built, found = construct(tp, value, "", context)
        report(found, response=response, body=value)
        return built


def loads(response: httpx2.Response, content: bytes | str, what: str = "response body") -> Any:
    """JSON from ``content``; invalid or too deeply nested JSON is the response's error."""
    try:
        return json.loads(content)
    except ValueError as exc:
        raise APIResponseValidationError(
            f"{what} is not valid JSON: {exc}", response=response, body=content[:500]
        ) from None
    except RecursionError:
        raise too_deep(response, what) from None


def too_deep(response: httpx2.Response, what: str = "response body") -> APIResponseValidationError:
    return APIResponseValidationError(
        f"{what} is nested deeper than the parser can follow",
        response=response,
        body=None,
    )


class ResponseHead:
    """What is known before the body: status, headers, URL and the server's request id
    (shared by the raw and the streamed responses)."""

    http_response: httpx2.Response

    @property
    def status_code(self) -> int:
        return self.http_response.status_code

    @property
    def headers(self) -> httpx2.Headers:
        return self.http_response.headers

    @property
    def request_id(self) -> str | None:
        """The server's id of this request (``x-request-id`` or ``request-id``), for support."""
        return request_id(self.http_response)

    @property
    def url(self) -> httpx2.URL:
        return self.http_response.url

    def __repr__(self) -> str:
        request = self.http_response.request
        return f"<{type(self).__name__} [{self.status_code}] {request.method} {self.url}>"


class APIResponse(ResponseHead, Generic[R]):
    """The HTTP response alongside the value it parses to: ``.status_code``, ``.headers``,
    ``.parse()``."""

    def __init__(self, response: httpx2.Response, parser: Callable[[], R]) -> None:
        self.http_response = response
        self._parser = parser
        self._parsed: list[R] = []

    def parse(self) -> R:
        if not self._parsed:
            self._parsed.append(self._parser())
        return self._parsed[0]


def _as_raw(result: Any) -> Any:
    """Pages carry their response but are not an :class:`APIResponse`; wrap them so they are."""
    if isinstance(result, APIResponse):
        return result
    response = getattr(result, "http_response", None)
    if isinstance(response, httpx2.Response):
        return APIResponse(response, lambda: result)
    return result


def to_raw_response_wrapper(func: Callable[P, R]) -> Callable[P, APIResponse[R]]:
    """Wrap a resource method so that it returns :class:`APIResponse` instead of the value."""

    @wraps(func)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> APIResponse[R]:
        headers = dict(kwargs.get("extra_headers") or {})  # type: ignore[call-overload]
        headers[RAW_RESPONSE_HEADER] = "true"
        kwargs["extra_headers"] = headers
        return _as_raw(func(*args, **kwargs))  # type: ignore[no-any-return]

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
        return _as_raw(await func(*args, **kwargs))  # type: ignore[no-any-return]

    return wrapped


@contextmanager
def stream_errors(response: httpx2.Response) -> Iterator[None]:
    """Transport failures while reading a streamed body, as this package's connection errors."""
    try:
        yield
    except httpx2.TimeoutException as exc:
        raise APITimeoutError(request=response.request) from exc
    except httpx2.RequestError as exc:  # transport failures, and bodies that fail to decompress
        name = type(exc).__name__
        raise APIConnectionError(
            f"Connection error while reading the response: {name}", request=response.request
        ) from exc


def _sibling_temp(file: str | os.PathLike[str]) -> str:
    """A fresh temporary path in the target's folder (same file system, so the rename is atomic)."""
    folder, name = os.path.split(os.fspath(file))
    return os.path.join(folder, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.part")


class BinaryResponse:
    """A streamed download (PDF, PNG, CSV...): read it chunk by chunk, never all in memory.

    Use as a context manager, or call :meth:`close`; :meth:`write_to_file` and running any
    ``iter_*`` method to its end (or leaving its loop early) close it for you.
    """

    def __init__(self, response: httpx2.Response, limits: Limits = DEFAULT_LIMITS) -> None:
        self.http_response = response
        self._limits = limits

    @property
    def content_type(self) -> str:
        return str(self.http_response.headers.get("content-type", ""))

    def iter_bytes(self, chunk_size: int = CHUNK) -> Iterator[bytes]:
        try:
            with stream_errors(self.http_response):
                yield from self.http_response.iter_bytes(chunk_size)
        finally:
            self.close()

    def iter_text(self, chunk_size: int = CHUNK) -> Iterator[str]:
        """Decoded text (the response's charset, else UTF-8), a leading byte-order mark dropped."""
        try:
            with stream_errors(self.http_response):
                yield from _strip_bom(self.http_response.iter_text(chunk_size))
        finally:
            self.close()

    def iter_lines(self) -> Iterator[str]:
        """Lines without their line endings."""
        for line in _split_lines(self.iter_text()):
            yield line.rstrip("\r\n")

    def iter_csv_rows(self) -> Iterator[list[str]]:
        """Rows of a CSV body parsed as they arrive: memory stays bounded whatever the body's size.

        Quoted fields may span lines; blank lines are skipped. The first row is the header.
        """
        for row in csv.reader(_split_lines(self.iter_text())):
            if row:
                yield row

    def iter_csv_dicts(self) -> Iterator[dict[str, str]]:
        """Rows as dictionaries keyed by the header row."""
        rows = self.iter_csv_rows()
        header = next(rows, None)
        if header is None:
            return
        for row in rows:
            yield dict(zip(header, row, strict=False))

    def read(self) -> bytes:
        """The whole body in memory (up to ``Limits.max_response_bytes``); prefer the ``iter_*``
        methods for large downloads."""
        with stream_errors(self.http_response):
            return read_body(self.http_response, self._limits, None)

    def write_to_file(self, file: str | os.PathLike[str] | IO[bytes]) -> int:
        """Stream the body to a path or an open binary file; returns the byte count.

        A path is written through a temporary file beside it and renamed into place at the end,
        so a download that fails part-way leaves an existing file as it was.
        """
        written = 0
        with self:
            if isinstance(file, (str, os.PathLike)):
                tmp = _sibling_temp(file)
                try:
                    with open(tmp, "wb") as fh:
                        for chunk in self.iter_bytes():
                            written += fh.write(chunk)
                    os.replace(tmp, file)
                except BaseException:
                    with suppress(OSError):
                        os.unlink(tmp)
                    raise
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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} [{self.http_response.status_code}] {self.content_type!r}>"


class AsyncBinaryResponse:
    """Async twin of :class:`BinaryResponse`."""

    def __init__(self, response: httpx2.Response, limits: Limits = DEFAULT_LIMITS) -> None:
        self.http_response = response
        self._limits = limits

    @property
    def content_type(self) -> str:
        return str(self.http_response.headers.get("content-type", ""))

    async def iter_bytes(self, chunk_size: int = CHUNK) -> AsyncIterator[bytes]:
        try:
            with stream_errors(self.http_response):
                async for chunk in self.http_response.aiter_bytes(chunk_size):
                    yield chunk
        finally:
            await self.close()

    async def iter_text(self, chunk_size: int = CHUNK) -> AsyncIterator[str]:
        first = True
        try:
            with stream_errors(self.http_response):
                async for chunk in self.http_response.aiter_text(chunk_size):
                    if first and chunk:
                        yield chunk.removeprefix(BOM)
                        first = False
                        continue
                    yield chunk
        finally:
            await self.close()

    async def iter_lines(self) -> AsyncIterator[str]:
        """Lines without their line endings."""
        splitter = _LineSplitter()
        try:
            async for text in self.iter_text():
                for line in splitter.feed(text):
                    yield line.rstrip("\r\n")
            for line in splitter.finish():
                yield line.rstrip("\r\n")
        finally:
            await self.close()

    async def iter_csv_rows(self) -> AsyncIterator[list[str]]:
        """Rows of a CSV body parsed as they arrive (see :meth:`BinaryResponse.iter_csv_rows`).

        Records are cut where the count of ``"`` is even at a line end, as in any RFC 4180 file.
        """
        splitter, parser = _LineSplitter(), _RecordParser()
        try:
            async for text in self.iter_text():
                for row in parser.feed(splitter.feed(text)):
                    yield row
            for row in parser.feed(splitter.finish()):
                yield row
            for row in parser.finish():
                yield row
        finally:
            await self.close()

    async def iter_csv_dicts(self) -> AsyncIterator[dict[str, str]]:
        """Rows as dictionaries keyed by the header row."""
        header: list[str] | None = None
        async for row in self.iter_csv_rows():
            if header is None:
                header = row
            else:
                yield dict(zip(header, row, strict=False))

    async def read(self) -> bytes:
        with stream_errors(self.http_response):
            return await aread_body(self.http_response, self._limits, None)

    async def write_to_file(self, file: str | os.PathLike[str] | IO[bytes]) -> int:
        """Stream the body to a path (via a temporary file beside it) or an open binary file."""
        written = 0
        try:
            if isinstance(file, (str, os.PathLike)):
                tmp = _sibling_temp(file)
                try:
                    with open(tmp, "wb") as fh:
                        async for chunk in self.iter_bytes():
                            written += fh.write(chunk)
                    os.replace(tmp, file)
                except BaseException:
                    with suppress(OSError):
                        os.unlink(tmp)
                    raise
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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} [{self.http_response.status_code}] {self.content_type!r}>"


BOM = "\ufeff"


def _strip_bom(chunks: Iterator[str]) -> Iterator[str]:
    for text in chunks:
        if text:
            yield text.removeprefix(BOM)
            break
    yield from chunks


class _LineSplitter:
    """Cuts text chunks at ``\\n`` (kept, so ``csv`` sees real line ends); linear in the input."""

    def __init__(self) -> None:
        self._tail = ""

    def feed(self, text: str) -> list[str]:
        parts = (self._tail + text).split("\n")
        self._tail = parts.pop()
        return [part + "\n" for part in parts]

    def finish(self) -> list[str]:
        tail, self._tail = self._tail, ""
        return [tail] if tail else []


def _split_lines(chunks: Iterator[str]) -> Iterator[str]:
    splitter = _LineSplitter()
    for text in chunks:
        yield from splitter.feed(text)
    yield from splitter.finish()


class _RecordParser:
    """Feeds ``csv.reader`` whole records only, so it can be driven from an async loop."""

    def __init__(self) -> None:
        self._queue: deque[str] = deque()
        self._pending: list[str] = []
        self._quotes = 0
        self._reader = csv.reader(self)

    def __iter__(self) -> _RecordParser:
        return self

    def __next__(self) -> str:
        if not self._queue:
            raise StopIteration
        return self._queue.popleft()

    def feed(self, lines: list[str]) -> list[list[str]]:
        """Rows of every record completed by ``lines``; an open quoted field waits for more."""
        quotes, complete = self._quotes, -1
        for index, line in enumerate(lines):
            quotes += line.count('"')
            if not quotes % 2:
                complete = index
        if complete < 0:
            self._pending.extend(lines)
            self._quotes = quotes
            return []
        self._queue.extend(self._pending)
        self._queue.extend(lines[: complete + 1])
        self._pending = lines[complete + 1 :]
        self._quotes = sum(line.count('"') for line in self._pending)
        return [row for row in self._reader if row]

    def finish(self) -> list[list[str]]:
        self._queue.extend(self._pending)
        self._pending, self._quotes = [], 0
        return [row for row in self._reader if row]
