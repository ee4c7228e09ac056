"""Streamed downloads (PDF, PNG, CSV...): :class:`BinaryResponse` and its async twin, read chunk
by chunk and never all in memory, or written to a file atomically; and transport failures while
any streamed body is read, as this package's connection errors."""

from __future__ import annotations

import csv
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from typing import IO

import httpx2

from ._exceptions import APIConnectionError, APITimeoutError
from ._limits import DEFAULT_LIMITS, Limits, aread_body, read_body
from ._text_lines import BOM, LineSplitter, RecordParser, split_lines, strip_bom

__all__ = ["AsyncBinaryResponse", "BinaryResponse", "stream_errors"]

CHUNK = 64 * 1024


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
                yield from strip_bom(self.http_response.iter_text(chunk_size))
        finally:
            self.close()

    def iter_lines(self) -> Iterator[str]:
        """Lines without their line endings."""
        for line in split_lines(self.iter_text()):
            yield line.rstrip("\r\n")

    def iter_csv_rows(self) -> Iterator[list[str]]:
        """Rows of a CSV body parsed as they arrive: memory stays bounded whatever the body's size.

        Quoted fields may span lines; blank lines are skipped. The first row is the header.
        """
        for row in csv.reader(split_lines(self.iter_text())):
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
        splitter = LineSplitter()
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
        splitter, parser = LineSplitter(), RecordParser()
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
