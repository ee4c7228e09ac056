"""Bounds on everything a server controls: body size, line and event size, pages, time.

A misbehaving server (or a proxy, or a compressed body that inflates a thousandfold) must end in
a typed error, never a hang or a process out of memory. Each bound has a default here and is
set per client with ``limits=Limits(...)`` (or ``client.with_options(limits=...)`` for one call
or a few); ``timeout=`` bounds each attempt as a whole (see :func:`deadline`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx2

from ._exceptions import APIResponseValidationError, ConfigurationError

if TYPE_CHECKING:
    from ._differences import Hear

__all__ = ["Limits", "PaginationError", "ResponseTooLargeError"]

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The bounds a client applies (all in bytes but ``max_pages``); ``None`` lifts one."""

    # A body read into memory (JSON, text, an error body, ``BinaryResponse.read()``), counted
    # after decompression as it arrives, so a gzip bomb stops at the bound.
    max_response_bytes: int | None = 100 * MiB
    # One line of a JSON-lines stream.
    max_line_bytes: int | None = 16 * MiB
    # One server-sent event.
    max_event_bytes: int | None = 1 * MiB
    # Pages one walk (``for item in page``, ``iter_pages()``) fetches, the first included.
    max_pages: int | None = 10_000

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ConfigurationError(f"Limits.{name} must be a positive integer or None")


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Reading:
    """How a response body is read: strictly or not (see ``_differences``), within which
    limits, the operation's path template (named in warnings and errors), and who records its
    differences (the client's shape recorder, see ``_shapes``)."""

    strict: bool = False
    limits: Limits = DEFAULT_LIMITS
    path: str = ""
    hear: Hear | None = None


class ResponseTooLargeError(APIResponseValidationError):
    """A body, line or event grew past its bound (``limit`` bytes) and was not read further."""

    def __init__(self, what: str, limit: int, *, response: httpx2.Response) -> None:
        super().__init__(
            f"{what} is larger than the {limit:,}-byte limit (Limits); reading stopped",
            response=response,
            body=None,
        )
        self.limit = limit


class PaginationError(APIResponseValidationError):
    """Paging stopped: the server repeated a cursor or a page, or the page bound was reached.

    ``reason`` is ``"repeated-cursor"``, ``"repeated-page"`` or ``"max-pages"``; ``pages`` the
    number of pages fetched by then.
    """

    def __init__(self, reason: str, detail: str, pages: int, *, response: httpx2.Response) -> None:
        super().__init__(
            f"paging stopped after {pages} pages: {detail}", response=response, body=None
        )
        self.reason = reason
        self.pages = pages


def total_seconds(timeout: object) -> float | None:
    """The whole-attempt bound ``timeout=`` sets: a number, or an ``httpx2.Timeout``'s read
    value (its other phases are bounded by httpx2 itself); ``None`` for no bound."""
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        return float(timeout)
    if isinstance(timeout, httpx2.Timeout):
        return timeout.read
    return None


def deadline(timeout: object) -> float | None:
    """The monotonic time an attempt starting now must end by."""
    seconds = total_seconds(timeout)
    return None if seconds is None else time.monotonic() + seconds


def past(when: float | None, request: httpx2.Request) -> None:
    """Raise a read timeout (the retry policy's and the error mapping's kind) once ``when`` is
    past: a server that drips bytes never lets a per-read timeout fire."""
    if when is not None and time.monotonic() > when:
        raise httpx2.ReadTimeout("the attempt's total timeout passed", request=request)


def read_body(response: httpx2.Response, limits: Limits, when: float | None) -> bytes:
    """Read a streamed response's whole (decoded) body within ``limits`` and ``when``."""
    limit, size, parts = limits.max_response_bytes, 0, []
    try:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if limit is not None and size > limit:
                raise ResponseTooLargeError("the response body", limit, response=response)
            parts.append(chunk)
            past(when, response.request)
    finally:
        response.close()
    return _keep(response, b"".join(parts))


async def aread_body(response: httpx2.Response, limits: Limits, when: float | None) -> bytes:
    """Async twin of :func:`read_body`."""
    limit, size, parts = limits.max_response_bytes, 0, []
    try:
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if limit is not None and size > limit:
                raise ResponseTooLargeError("the response body", limit, response=response)
            parts.append(chunk)
            past(when, response.request)
    finally:
        await response.aclose()
    return _keep(response, b"".join(parts))


def _keep(response: httpx2.Response, content: bytes) -> bytes:
    # What ``Response.read()`` itself stores, so ``.content``, ``.json()`` and ``.text`` work.
    response._content = content
    return content
