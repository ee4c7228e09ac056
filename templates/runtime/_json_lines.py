"""JSON lines read as they arrive: one JSON value per line (the agent chat API's answer and the
SQL results of the core data API), also NDJSON and ``application/json-seq``.

Each line is yielded as a typed item; a line the document marks as an error raises
:class:`APIStreamError`, and a stream that stops inside a line or before its final line (the
chat stream's usage frame) raises :class:`IncompleteStreamError` carrying what was received. A
line longer than ``Limits.max_line_bytes`` raises :class:`ResponseTooLargeError`. Lines that
differ from the document follow the one rule of :mod:`._differences`, as every other body does.
Leaving the loop early, reaching the end, or an error closes the connection.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, Generic, TypeVar

import httpx2

from ._binary_response import stream_errors
from ._exceptions import APIStreamError, IncompleteStreamError
from ._json_body import conform, loads
from ._limits import Reading, ResponseTooLargeError

__all__ = ["AsyncJSONLinesStream", "JSONLines", "JSONLinesStream"]

T = TypeVar("T")  # the type of each line's item


class JSONLines(Generic[T]):
    """What the lines of a JSON-lines body are (``item``), and how an error line and the final
    line are recognised: an object with ``error_member`` and none of ``error_without`` is an
    error; a complete stream ends with an object that has ``final_member`` (equal to
    ``final_value`` when that is given)."""

    def __init__(
        self,
        item: Any,
        *,
        error_member: str = "",
        error_without: tuple[str, ...] = (),
        final_member: str = "",
        final_value: str = "",
    ) -> None:
        self.item = item
        self.error_member = error_member
        self.error_without = error_without
        self.final_member = final_member
        self.final_value = final_value

    def is_final(self, value: object) -> bool:
        member = self.final_member
        if not (isinstance(value, dict) and member in value):
            return False
        return not self.final_value or value[member] == self.final_value

    def open(self, response: httpx2.Response, reading: Reading | None = None) -> JSONLinesStream[T]:
        return JSONLinesStream(response, self, reading)

    def aopen(
        self, response: httpx2.Response, reading: Reading | None = None
    ) -> AsyncJSONLinesStream[T]:
        return AsyncJSONLinesStream(response, self, reading)


# ``application/json-seq`` (RFC 7464) starts each record with a record separator; JSON lines and
# NDJSON do not. One reader serves all three.
_RS = b"\x1e"
_BLANK = b" \t\r\n\x1e"


class _Lines(Generic[T]):
    """Splits bytes into lines and turns each into an item; the sync and async streams share it."""

    def __init__(
        self, response: httpx2.Response, spec: JSONLines[T], reading: Reading | None
    ) -> None:
        self.response = response
        self.spec = spec
        self.reading = reading or Reading()
        self.limit = self.reading.limits.max_line_bytes
        self.pieces: list[bytes] = []  # the unfinished line
        self.pending = 0  # its size
        self.count = 0
        self.last: object = None
        # A stream that must end with a final line keeps what it received, for the error
        # that says it did not (such streams are conversations, not bulk data).
        self.received: list[object] | None = [] if spec.final_member else None

    def feed(self, chunk: bytes) -> Iterator[T]:
        """The items of the lines ``chunk`` completes, one at a time: the lines before an error
        line reach the caller before the error does."""
        if b"\n" not in chunk:
            self.pieces.append(chunk)
            self._grow(len(chunk))
            return
        head, *complete = chunk.split(b"\n")
        tail = complete.pop()
        self._grow(len(head))
        complete.insert(0, b"".join([*self.pieces, head]))
        self.pieces, self.pending = ([tail] if tail else []), 0
        self._grow(len(tail))
        for line in complete:
            if self.limit is not None and len(line) > self.limit:
                raise ResponseTooLargeError(
                    f"line {self.count + 1}", self.limit, response=self.response
                )
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
            except RecursionError:
                pass  # complete but too deep: the line's own error follows
            yield self._item(rest)
        spec = self.spec
        if spec.final_member and not spec.is_final(self.last):
            which = f"{spec.final_member}={spec.final_value!r}" if spec.final_value else ""
            wanted = which or repr(spec.final_member)
            raise self._incomplete(f"the stream ended before its final line (one with {wanted})")

    def _grow(self, size: int) -> None:
        self.pending += size
        if self.limit is not None and self.pending > self.limit:
            raise ResponseTooLargeError(
                f"line {self.count + 1}", self.limit, response=self.response
            )

    def _incomplete(self, message: str) -> IncompleteStreamError:
        error = IncompleteStreamError(
            f"{message} after {self.count} line(s)", request=self.response.request, last=self.last
        )
        error.received = tuple(self.received or ())
        return error

    def _item(self, line: bytes) -> T:
        self.count += 1
        value = loads(self.response, line.lstrip(_RS), f"line {self.count}")
        self.last = value
        if self.received is not None:
            self.received.append(value)
        spec = self.spec
        if (
            spec.error_member
            and isinstance(value, dict)
            and spec.error_member in value
            and not any(k in value for k in spec.error_without)
        ):
            raise APIStreamError(str(value[spec.error_member]), response=self.response, line=value)
        reading = self.reading
        part = f"line {self.count}"
        return conform(value, spec.item, self.response, reading, part)  # type: ignore[no-any-return]


class JSONLinesStream(Generic[T]):
    """Iterate typed items as their lines arrive; leaving the loop early closes the connection."""

    def __init__(
        self, response: httpx2.Response, spec: JSONLines[T], reading: Reading | None = None
    ) -> None:
        self.http_response = response
        self._lines = _Lines(response, spec, reading)

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

    def __init__(
        self, response: httpx2.Response, spec: JSONLines[T], reading: Reading | None = None
    ) -> None:
        self.http_response = response
        self._lines = _Lines(response, spec, reading)

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
