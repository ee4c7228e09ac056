"""Responses with raw access: the status, headers and request id beside the parsed value
(``with_raw_response``). Streamed downloads are :mod:`._binary_response`'s."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, Generic, ParamSpec, TypeVar

import httpx2

# The generated resources name every kind of response from here.
from ._binary_response import AsyncBinaryResponse, BinaryResponse
from ._response_headers import request_id
from ._types import RAW_RESPONSE_HEADER

__all__ = ["APIResponse", "AsyncBinaryResponse", "BinaryResponse"]

R = TypeVar("R")
P = ParamSpec("P")


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
