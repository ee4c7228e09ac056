"""The request loop every generated client shares: HTTPS policy, auth, retries, timeouts, parsing.

Sync and async clients differ only in how they send and sleep; everything that decides *what* to
send or *whether* to retry lives in :class:`BaseClient` so both follow one policy.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import ipaddress
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from ._exceptions import (
    APIConnectionError,
    APITimeoutError,
    ConfigurationError,
    make_status_error,
)
from ._response import RAW_RESPONSE_HEADER, APIResponse, AsyncBinaryResponse, BinaryResponse, parse_json
from ._types import NOT_GIVEN, Body, Headers, NotGiven, Query, Timeout
from ._utils import build_path, build_query, to_jsonable

__all__ = ["DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT", "AsyncAPIClient", "SyncAPIClient"]

DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=10.0)
DEFAULT_MAX_RETRIES = 2
INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
MAX_RETRY_AFTER = 60.0
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
# Statuses where the server says it did not act on the request, so even a POST may be re-sent.
NOT_PROCESSED_STATUSES = frozenset({408, 425, 429, 503})
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
ResponseKind = Literal["json", "binary", "text", "event-stream", "empty"]


@dataclass(frozen=True)
class RequestOptions:
    """Per-call overrides every generated method accepts."""

    extra_headers: Headers | None = None
    extra_query: Query | None = None
    extra_body: Body | None = None
    timeout: Timeout | NotGiven = NOT_GIVEN
    max_retries: int | NotGiven = NOT_GIVEN


@dataclass(frozen=True)
class PreparedCall:
    """Everything needed to (re-)send one call; pagination re-sends it with new query values."""

    method: str
    path: str
    path_params: Mapping[str, object] = field(default_factory=dict)
    query: Mapping[str, object] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    json: object = NOT_GIVEN
    content: bytes | str | None = None
    form: Mapping[str, object] | None = None
    files: Mapping[str, Any] | None = None
    options: RequestOptions = RequestOptions()

    def with_query(self, **changes: object) -> PreparedCall:
        return PreparedCall(
            self.method, self.path, self.path_params, {**self.query, **changes}, self.headers,
            self.json, self.content, self.form, self.files, self.options,
        )  # fmt: skip


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class BaseClient:
    """Configuration and request building shared by the sync and async clients."""

    def __init__(
        self,
        *,
        base_url: str,
        credential: str | None,
        auth_header: str,
        auth_prefix: str,
        timeout: Timeout | NotGiven,
        max_retries: int,
        default_headers: Mapping[str, str] | None,
        allow_http_loopback: bool,
    ) -> None:
        url = httpx.URL(base_url)
        if url.scheme != "https":
            loopback = url.scheme == "http" and _is_loopback(url.host)
            if not (loopback and allow_http_loopback):
                raise ConfigurationError(
                    f"base URL must use https:// (got {url.scheme or 'no scheme'}://{url.host}); "
                    "plain HTTP is allowed only for loopback hosts with allow_http_loopback=True"
                )
        if max_retries < 0:
            raise ConfigurationError("max_retries must be 0 or more")
        self.base_url = url
        self._credential = credential
        self._auth_header = auth_header
        self._auth_prefix = auth_prefix
        self.timeout: Timeout = DEFAULT_TIMEOUT if isinstance(timeout, NotGiven) else timeout
        self.max_retries = max_retries
        self._default_headers = dict(default_headers or {})

    def __repr__(self) -> str:  # never shows the credential
        return f"<{type(self).__name__} base_url={str(self.base_url)!r}>"

    @property
    def auth_headers(self) -> dict[str, str]:
        if self._credential is None:
            return {}
        return {self._auth_header: self._auth_prefix + self._credential}

    def _build_request(self, call: PreparedCall, client: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        opts = call.options
        path = build_path(call.path, call.path_params)
        base = str(self.base_url).rstrip("/")
        params = build_query({**call.query, **(opts.extra_query or {})})
        headers = {"Accept": "application/json", **self._default_headers, **self.auth_headers}
        headers.update(call.headers)
        headers.update(opts.extra_headers or {})
        headers.pop(RAW_RESPONSE_HEADER, None)
        kwargs: dict[str, Any] = {}
        if not isinstance(call.json, NotGiven):
            body = to_jsonable(call.json)
            if opts.extra_body and isinstance(body, dict):
                body = {**body, **to_jsonable(opts.extra_body)}
            kwargs["json"] = body
        elif call.form is not None or call.files is not None:
            kwargs["data"] = {k: v for k, v in (call.form or {}).items() if not isinstance(v, NotGiven)}
            if call.files:
                kwargs["files"] = dict(call.files)
        elif call.content is not None:
            kwargs["content"] = call.content
        timeout = self.timeout if isinstance(opts.timeout, NotGiven) else opts.timeout
        return client.build_request(
            call.method, base + path, params=params, headers=headers, timeout=timeout, **kwargs
        )

    def _max_retries(self, call: PreparedCall) -> int:
        n = call.options.max_retries
        return self.max_retries if isinstance(n, NotGiven) else n

    @staticmethod
    def _wants_raw(call: PreparedCall) -> bool:
        return bool(call.options.extra_headers and RAW_RESPONSE_HEADER in call.options.extra_headers)

    @staticmethod
    def _should_retry_status(method: str, response: httpx.Response) -> bool:
        override = response.headers.get("x-should-retry")
        if override in ("true", "false"):
            return bool(override == "true")
        status = response.status_code
        if method.upper() not in IDEMPOTENT_METHODS:
            return status in NOT_PROCESSED_STATUSES
        return status in RETRYABLE_STATUSES

    @staticmethod
    def _should_retry_error(method: str, exc: Exception) -> bool:
        """Errors before the request left (connect failures) are always safe to retry."""
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)):
            return True
        return method.upper() in IDEMPOTENT_METHODS and isinstance(exc, httpx.TransportError)

    @staticmethod
    def _retry_delay(attempt: int, response: httpx.Response | None) -> float:
        """Honour ``Retry-After`` (seconds or HTTP date) up to a cap; else backoff with jitter."""
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            delay: float | None
            try:
                delay = float(header)
            except ValueError:
                parsed = email.utils.parsedate_tz(header)
                delay = email.utils.mktime_tz(parsed) - time.time() if parsed else None
            if delay is not None and 0 <= delay <= MAX_RETRY_AFTER:
                return delay
        backoff = min(INITIAL_RETRY_DELAY * 2.0**attempt, MAX_RETRY_DELAY)
        return backoff * (1 - 0.25 * random.random())

    @staticmethod
    def _wrap_transport_error(exc: Exception, request: httpx.Request) -> Exception:
        if isinstance(exc, httpx.TimeoutException):
            return APITimeoutError(request=request)
        return APIConnectionError(f"Connection error: {type(exc).__name__}", request=request)


class SyncAPIClient(BaseClient):
    """Sends with an ``httpx.Client``; close it with :meth:`close` or a ``with`` block."""

    def __init__(self, *, http_client: httpx.Client | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._owns_client = http_client is None
        self._client = http_client or httpx.Client(follow_redirects=False)

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> SyncAPIClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, call: PreparedCall, *, stream: bool = False) -> httpx.Response:
        """Send with retries; returns a success response or raises a typed error."""
        retries = self._max_retries(call)
        attempt = 0
        while True:
            request = self._build_request(call, self._client)
            try:
                response = self._client.send(request, stream=stream, follow_redirects=False)
            except httpx.TransportError as exc:
                if attempt < retries and self._should_retry_error(call.method, exc):
                    time.sleep(self._retry_delay(attempt, None))
                    attempt += 1
                    continue
                raise self._wrap_transport_error(exc, request) from exc
            if response.is_success:
                return response
            if attempt < retries and self._should_retry_status(call.method, response):
                response.close()
                time.sleep(self._retry_delay(attempt, response))
                attempt += 1
                continue
            response.read()
            response.close()
            raise make_status_error(response, _error_body(response))

    def request(self, call: PreparedCall, *, cast_to: Any, kind: ResponseKind = "json") -> Any:
        streamed = kind in ("binary", "event-stream")
        response = self.send(call, stream=streamed)
        if self._wants_raw(call):
            return APIResponse(response, functools.partial(_parse, response, cast_to, kind))
        return _parse(response, cast_to, kind)


class AsyncAPIClient(BaseClient):
    """Sends with an ``httpx.AsyncClient``; close it with :meth:`close` or ``async with``."""

    def __init__(self, *, http_client: httpx.AsyncClient | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._owns_client = http_client is None
        self._client = http_client or httpx.AsyncClient(follow_redirects=False)

    async def close(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> AsyncAPIClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def send(self, call: PreparedCall, *, stream: bool = False) -> httpx.Response:
        retries = self._max_retries(call)
        attempt = 0
        while True:
            request = self._build_request(call, self._client)
            try:
                response = await self._client.send(request, stream=stream, follow_redirects=False)
            except httpx.TransportError as exc:
                if attempt < retries and self._should_retry_error(call.method, exc):
                    await asyncio.sleep(self._retry_delay(attempt, None))
                    attempt += 1
                    continue
                raise self._wrap_transport_error(exc, request) from exc
            if response.is_success:
                return response
            if attempt < retries and self._should_retry_status(call.method, response):
                await response.aclose()
                await asyncio.sleep(self._retry_delay(attempt, response))
                attempt += 1
                continue
            await response.aread()
            await response.aclose()
            raise make_status_error(response, _error_body(response))

    async def request(self, call: PreparedCall, *, cast_to: Any, kind: ResponseKind = "json") -> Any:
        streamed = kind in ("binary", "event-stream")
        response = await self.send(call, stream=streamed)
        if kind == "binary":
            value: Any = AsyncBinaryResponse(response)
            return APIResponse(response, lambda: value) if self._wants_raw(call) else value
        if kind == "event-stream":
            from ._streaming import AsyncEventStream

            stream = AsyncEventStream(response)
            return APIResponse(response, lambda: stream) if self._wants_raw(call) else stream
        if self._wants_raw(call):
            return APIResponse(response, functools.partial(_parse, response, cast_to, kind))
        return _parse(response, cast_to, kind)


def _parse(response: httpx.Response, cast_to: Any, kind: ResponseKind) -> Any:
    if kind == "json":
        return parse_json(response, cast_to)
    if kind == "text":
        return response.text
    if kind == "binary":
        return BinaryResponse(response)
    if kind == "event-stream":
        from ._streaming import EventStream

        return EventStream(response)
    return None


def _error_body(response: httpx.Response) -> object:
    try:
        return response.json()
    except ValueError:
        return response.text[:2000]
