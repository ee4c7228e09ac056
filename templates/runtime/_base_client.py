"""The request loop every generated client shares: HTTPS policy, auth, retries, timeouts, parsing.

Sync and async clients differ only in how they send and sleep; everything that decides *what* to
send or *whether* to retry lives in :class:`BaseClient` so both follow one policy: what a call
sends is a :class:`PreparedCall` (``_prepared_call``), what every request of a client shares is
worked out once (``_request_defaults``), and when a failed attempt is sent again is the
``_retry_policy``.

HTTPS
    The base URL must be ``https://``; ``http://`` is accepted only for a loopback host
    (``localhost``, ``127.0.0.0/8``, ``::1``) with ``allow_http_loopback=True``. A base URL with
    userinfo (``https://user:pass@host``) is refused: credentials go in ``api_key``. Redirects are
    never followed (a 3xx is an :class:`APIStatusError`), so the credential is only ever sent to
    the configured origin.

Retries (``max_retries``, default 2: at most three sends; per client and per call)
    Only when the server cannot have acted on the request, or the call is idempotent: see
    ``_retry_policy``.

Timeouts
    :data:`DEFAULT_TIMEOUT` (60 s to read, write or wait for a pooled connection; 10 s to
    connect) unless ``timeout=`` is given to the client or the call (a float, an
    ``httpx2.Timeout``, or ``None`` for none). A number also bounds each attempt as a whole,
    from sending to the body's last byte (checked as each piece of the body arrives), so a
    server that drips a byte at a time still ends in an :class:`APITimeoutError` after about
    that long (an ``httpx2.Timeout`` bounds the whole attempt by its read value).

Limits
    ``limits=Limits(...)`` (see ``_limits``): the largest body read into memory (100 MiB after
    decompression, checked as it arrives), JSON line, server-sent event and page walk.

Logging
    The ``cube_client`` logger (named after this package) records retries at INFO and each
    request and response at DEBUG: method, URL, status and (at DEBUG) the request headers with
    every credential shown as ``[redacted]`` — never bodies. ``CUBE_LOG=info`` or ``CUBE_LOG=debug``
    in the environment sends these lines to stderr without any logging set-up of your own.

Defaults and copies
    ``User-Agent: <distribution>/<version> python/<x.y> httpx2/<x.y>`` on every request (a
    ``default_headers`` or ``extra_headers`` value replaces it). ``client.with_options(timeout=...,
    max_retries=...)`` returns a copy with other settings that shares the connection pool.

Responses
    Parsed leniently by default (see ``_models``): a body that differs from the document is kept
    with a ``ResponseValidationWarning``. ``strict=True`` makes every difference an
    :class:`APIResponseValidationError`. ``record_shapes=DIR`` (or ``CUBE_RECORD_SHAPES``) records
    each kind of difference once, as a shape, for the maintainers (see ``_shapes``).
"""

from __future__ import annotations

import copy
import functools
import ipaddress
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Self

import httpx2

from ._exceptions import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    ConfigurationError,
)
from ._limits import DEFAULT_LIMITS, Limits, Reading, aread_body, read_body, total_seconds
from ._prepared_call import PreparedCall, RequestOptions
from ._request_defaults import (
    UNSET,
    RequestDefaults,
    client_headers,
    merged_headers,
    parsed_url,
    timeout_extension,
)
from ._request_log import SENSITIVE_HEADERS, log, log_request, log_response, setup_logging
from ._response_values import STREAMED_KINDS, ResponseKind, async_value, error_body, parse_value
from ._retry_policy import (
    DEFAULT_MAX_RETRIES,
    MAX_RETRY_AFTER,
    retry_delay,
    rewind_files,
    should_retry_error,
    should_retry_status,
)
from ._shapes import observe, recorder_for
from ._status_errors import make_status_error
from ._types import NOT_GIVEN, RAW_RESPONSE_HEADER, NotGiven, Timeout
from ._utils import build_path, build_query, to_jsonable

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "MAX_RETRY_AFTER",
    "AsyncAPIClient",
    "PreparedCall",
    "RequestOptions",
    "SyncAPIClient",
]

DEFAULT_TIMEOUT = httpx2.Timeout(60.0, connect=10.0)


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
        auth_header: str = "Authorization",
        auth_prefix: str = "Bearer ",
        timeout: Timeout | NotGiven = NOT_GIVEN,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        allow_http_loopback: bool = False,
        strict: bool = False,
        record_shapes: str | os.PathLike[str] | None = None,
        limits: Limits | None = None,
    ) -> None:
        setup_logging()
        try:
            url = httpx2.URL(base_url)
        except httpx2.InvalidURL:
            raise ConfigurationError("base URL is not a valid URL") from None
        if url.scheme != "https":
            loopback = url.scheme == "http" and _is_loopback(url.host)
            if not (loopback and allow_http_loopback):
                raise ConfigurationError(
                    f"base URL must use https:// (got {url.scheme or 'no scheme'}://{url.host}); "
                    "plain HTTP is allowed only for loopback hosts with allow_http_loopback=True"
                )
        if url.userinfo:
            raise ConfigurationError(
                "base URL must not contain a user name or password; pass the credential as api_key"
            )
        if not url.host:
            raise ConfigurationError("base URL has no host")
        if max_retries < 0:
            raise ConfigurationError("max_retries must be 0 or more")
        _own_timeout(timeout)
        self.base_url = url
        self._credential = credential
        self._auth_header = auth_header
        self._auth_prefix = auth_prefix
        self.timeout: Timeout = DEFAULT_TIMEOUT if isinstance(timeout, NotGiven) else timeout
        self.max_retries = max_retries
        self._default_headers = dict(default_headers or {})
        self.strict = strict
        self.limits = limits or DEFAULT_LIMITS
        self._recorder = recorder_for(record_shapes)
        self._fixed = UNSET

    def _observed(
        self,
        call: PreparedCall,
        response: httpx2.Response,
        cast_to: Any,
        parse: Callable[[], Any],
    ) -> Any:
        """``parse()``, after noting how the JSON body differs from the document (recording is
        on: see ``_shapes``); when the body is read, so a streamed or raw response is seen too."""
        if self._recorder is not None:
            observe(self._recorder, call.method, call.path, response, cast_to)
        return parse()

    def with_options(
        self,
        *,
        timeout: Timeout | NotGiven = NOT_GIVEN,
        max_retries: int | NotGiven = NOT_GIVEN,
        default_headers: Mapping[str, str] | None = None,
        strict: bool | NotGiven = NOT_GIVEN,
        limits: Limits | None = None,
    ) -> Self:
        """A copy with other defaults, sharing this client's connections (and credential).

        ``client.with_options(timeout=5, max_retries=0).deployments.get_deployments()``; closing
        the copy leaves the shared connection pool open for the original.
        """
        if not isinstance(max_retries, NotGiven) and max_retries < 0:
            raise ConfigurationError("max_retries must be 0 or more")
        _own_timeout(timeout)
        new = copy.copy(self)
        for name, attr in _class_attrs(type(self)):  # resources made for the original client
            if isinstance(attr, functools.cached_property):
                new.__dict__.pop(name, None)
        if not isinstance(timeout, NotGiven):
            new.timeout = timeout
        if not isinstance(max_retries, NotGiven):
            new.max_retries = max_retries
        if default_headers is not None:
            new._default_headers = {**self._default_headers, **default_headers}
        if not isinstance(strict, NotGiven):
            new.strict = strict
        if limits is not None:
            new.limits = limits
        new._owns_client = False
        return new

    _owns_client = False
    # The headers this client's own httpx2 client was made with (see ``_request_defaults``),
    # by lower-case name; none for an ``http_client`` given by the caller.
    _preset_headers: Mapping[str, str] = {}

    def __repr__(self) -> str:  # never shows the credential
        return f"<{type(self).__name__} base_url={str(self.base_url)!r}>"

    @property
    def with_raw_response(self) -> object:
        """Every resource, returning the HTTP response; each generated client narrows the type."""
        raise NotImplementedError

    @property
    def with_streaming_response(self) -> object:
        """Every resource, handing over the response before its body is read (a context manager)."""
        raise NotImplementedError

    @property
    def auth_headers(self) -> dict[str, str]:
        if self._credential is None:
            return {}
        return {self._auth_header: self._auth_prefix + self._credential}

    def _build_request(
        self,
        call: PreparedCall,
        client: httpx2.Client | httpx2.AsyncClient,
        timeout: Timeout | NotGiven = NOT_GIVEN,
    ) -> httpx2.Request:
        """The request for one attempt; ``timeout`` is the call's (see :meth:`_timeout`) when the
        caller has already worked it out."""
        if isinstance(timeout, NotGiven):
            timeout = self._timeout(call)
        opts = call.options
        fixed = self._fixed
        if fixed.stale(self.base_url, self._default_headers, self.timeout):
            fixed = self._fixed = RequestDefaults.of(
                self.base_url,
                self._default_headers,
                self.auth_headers,
                self.timeout,
                self._preset_headers,
            )
        path = build_path(call.path, call.path_params)
        query = {**call.query, **opts.extra_query} if opts.extra_query else call.query
        params = build_query(query, call.unexploded)
        headers: Sequence[tuple[str, str]] | None = fixed.pairs
        if call.headers or opts.extra_headers:
            headers = merged_headers(fixed.headers, call.headers, opts.extra_headers)
        kwargs: dict[str, Any] = {}
        if not isinstance(call.json, NotGiven):
            body = to_jsonable(call.json)
            if opts.extra_body and isinstance(body, dict):
                body = {**body, **to_jsonable(opts.extra_body)}
            kwargs["json"] = body
        elif call.form is not None or call.files is not None:
            form = {**(call.form or {}), **(opts.extra_body or {})}
            data = {k: v for k, v in form.items() if not isinstance(v, NotGiven)}
            files = dict(call.files or {})
            if call.files is not None:  # multipart: binary values travel as file parts
                for key in [
                    k
                    for k, v in data.items()
                    if isinstance(v, (bytes, bytearray)) or hasattr(v, "read")
                ]:
                    files[key] = data.pop(key)
            kwargs["data"] = data
            if files:
                kwargs["files"] = files
        elif call.content is not None:
            if opts.extra_body:
                raise TypeError("extra_body cannot be combined with a raw (binary or text) body")
            kwargs["content"] = call.content
        elif opts.extra_body:  # an operation without a documented body: send the extra as JSON
            kwargs["json"] = to_jsonable(opts.extra_body)
        return client.build_request(
            call.method,
            parsed_url((fixed.root if call.host_root else fixed.base) + path),
            params=params or None,  # an empty list would still cost httpx2 a query merge
            headers=headers,
            extensions=timeout_extension(timeout, fixed),
            **kwargs,
        )

    def _reading(self, call: PreparedCall) -> Reading:
        return Reading(self.strict, self._limits_for(call), call.path)

    def _limits_for(self, call: PreparedCall) -> Limits:
        """The call's own limits, else the client's."""
        return call.options.limits or self.limits

    def _timeout(self, call: PreparedCall) -> Timeout:
        given = call.options.timeout
        if given is NOT_GIVEN:
            return self.timeout
        _own_timeout(given)
        return self.timeout if isinstance(given, NotGiven) else given

    def _max_retries(self, call: PreparedCall) -> int:
        n = call.options.max_retries
        return self.max_retries if isinstance(n, NotGiven) else max(n, 0)

    @staticmethod
    def _wants_raw(call: PreparedCall) -> bool:
        return bool(
            call.options.extra_headers and RAW_RESPONSE_HEADER in call.options.extra_headers
        )

    @staticmethod
    def _wants_unread(call: PreparedCall) -> bool:
        """Asked for through ``with_streaming_response``: the response before its body."""
        headers = call.options.extra_headers
        return headers is not None and headers.get(RAW_RESPONSE_HEADER) == "stream"

    def _plan_retry(
        self,
        call: PreparedCall,
        attempt: int,
        *,
        response: httpx2.Response | None = None,
        exc: Exception | None = None,
    ) -> float | None:
        """The delay before re-sending this call, or ``None`` to give up now."""
        if attempt >= self._max_retries(call):
            return None
        if response is not None and not should_retry_status(call, response):
            return None
        if exc is not None and not should_retry_error(call, exc):
            return None
        if not rewind_files(call):
            return None
        delay = retry_delay(attempt, response)
        if delay is not None:
            why = f"status {response.status_code}" if response is not None else type(exc).__name__
            log.info(
                "Retrying %s %s in %.2f s (retry %d of %d) after %s",
                call.method, call.path, delay, attempt + 1, self._max_retries(call), why,
            )  # fmt: skip
        return delay

    def _status_error(self, response: httpx2.Response) -> APIStatusError:
        error = make_status_error(response, error_body(response))
        error._redact(self._credential, self._sensitive_headers())
        return error

    def _sensitive_headers(self) -> frozenset[str]:
        return SENSITIVE_HEADERS | {self._auth_header.lower()}

    def _transport_error(self, exc: Exception, request: httpx2.Request) -> APIError:
        error: APIError
        if isinstance(exc, httpx2.TimeoutException):
            error = APITimeoutError(request=request)
        else:
            detail = str(exc).splitlines()[0][:200] if str(exc) else ""
            message = f"Connection error: {type(exc).__name__}" + (f": {detail}" if detail else "")
            error = APIConnectionError(message, request=request)
        error._redact(self._credential, self._sensitive_headers())
        return error


def _class_attrs(cls: type) -> list[tuple[str, object]]:
    return [(name, attr) for klass in cls.__mro__ for name, attr in vars(klass).items()]


def _own_http_client(given: Any, expected: type) -> None:
    """Refuse an HTTP client of another library, naming the fix.

    A legacy ``httpx.Client`` is not adapted: its TLS context, proxies and limits live in httpx's
    own transport, which httpx2 cannot take over, and an adapter that dropped them would send
    requests past a corporate proxy or CA without a word. httpx2 takes the same constructor
    arguments, so the fix is one import.
    """
    if given is not None and not isinstance(given, expected):
        kind = f"{type(given).__module__}.{type(given).__qualname__}"
        raise ConfigurationError(
            f"http_client must be an httpx2.{expected.__name__}, not {kind}: build it with "
            f"`import httpx2; httpx2.{expected.__name__}(...)` (same arguments as httpx)"
        )


def _own_timeout(value: object) -> None:
    """Refuse a timeout httpx2 would not honour as given, naming the fix.

    A legacy ``httpx.Timeout`` is another library's class: accepting it silently would leave
    the caller unsure which limits apply.
    """
    if value is None or isinstance(value, httpx2.Timeout | NotGiven | int | float):
        return
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    raise ConfigurationError(
        f"timeout must be seconds, None or an httpx2.Timeout, not {kind}: build it with "
        "`import httpx2; httpx2.Timeout(...)` (same arguments as httpx)"
    )


class SyncAPIClient(BaseClient):
    """Sends with an ``httpx2.Client``; close it with :meth:`close` or a ``with`` block.

    ``http_client`` (e.g. one with a custom ``verify=`` context or proxy) is used as given and
    left open for its owner to close. ``sleep`` replaces ``time.sleep`` between retries.
    """

    def __init__(
        self,
        *,
        http_client: httpx2.Client | None = None,
        sleep: Callable[[float], None] | None = None,
        **kwargs: Any,
    ) -> None:
        _own_http_client(http_client, httpx2.Client)
        super().__init__(**kwargs)
        self._owns_client = http_client is None
        if http_client is None:
            preset = client_headers(self._default_headers, self.auth_headers)
            self._preset_headers = {name: value for name, (_, value) in preset.items()}
            http_client = httpx2.Client(follow_redirects=False, headers=list(preset.values()))
        self._client = http_client
        self._sleep: Callable[[float], None] = sleep or time.sleep

    def close(self) -> None:
        if self._recorder is not None:
            self._recorder.flush()
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, call: PreparedCall, *, stream: bool = False) -> httpx2.Response:
        """Send with retries; returns a 2xx response or raises a typed :class:`APIError`."""
        attempt = 0
        timeout, limits = self._timeout(call), self._limits_for(call)
        seconds = total_seconds(timeout)
        debug = log.isEnabledFor(logging.DEBUG)
        while True:
            request = self._build_request(call, self._client, timeout)
            if debug:
                log_request(request, attempt, self._credential, self._sensitive_headers())
            when = None if seconds is None else time.monotonic() + seconds
            try:
                response = self._client.send(request, stream=True, follow_redirects=False)
                ok = 200 <= response.status_code < 300
                if ok and not stream:
                    read_body(response, limits, when)
            except httpx2.RequestError as exc:
                delay = self._plan_retry(call, attempt, exc=exc)
                if delay is None:
                    raise self._transport_error(exc, request) from exc
            else:
                if debug:
                    log_response(response)
                if ok:
                    return response
                delay = self._plan_retry(call, attempt, response=response)
                if delay is None:
                    try:
                        read_body(response, limits, when)
                    except httpx2.RequestError as exc:
                        raise self._transport_error(exc, request) from exc
                    raise self._status_error(response)
                response.close()
            self._sleep(delay)
            attempt += 1

    def request(self, call: PreparedCall, *, cast_to: Any, kind: ResponseKind = "json") -> Any:
        unread = self._wants_unread(call)
        streamed = kind in STREAMED_KINDS
        response = self.send(call, stream=streamed or unread)
        parse: Callable[[], Any] = functools.partial(
            parse_value, response, cast_to, kind, self._reading(call)
        )
        if kind == "json" and self._recorder is not None:
            parse = functools.partial(self._observed, call, response, cast_to, parse)
        if unread:
            from ._streamed import StreamedAPIResponse

            return StreamedAPIResponse(response, parse, read_first=not streamed, limits=self.limits)
        if self._wants_raw(call):
            from ._response import APIResponse

            return APIResponse(response, parse)
        return parse()


class AsyncAPIClient(BaseClient):
    """Sends with an ``httpx2.AsyncClient``; close it with :meth:`close` or ``async with``.

    ``sleep`` replaces ``asyncio.sleep`` between retries.
    """

    def __init__(
        self,
        *,
        http_client: httpx2.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        **kwargs: Any,
    ) -> None:
        _own_http_client(http_client, httpx2.AsyncClient)
        super().__init__(**kwargs)
        self._owns_client = http_client is None
        if http_client is None:
            preset = client_headers(self._default_headers, self.auth_headers)
            self._preset_headers = {name: value for name, (_, value) in preset.items()}
            http_client = httpx2.AsyncClient(follow_redirects=False, headers=list(preset.values()))
        self._client = http_client
        if sleep is None:
            import asyncio

            sleep = asyncio.sleep
        self._sleep: Callable[[float], Awaitable[None]] = sleep

    async def close(self) -> None:
        if self._recorder is not None:
            self._recorder.flush()
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def send(self, call: PreparedCall, *, stream: bool = False) -> httpx2.Response:
        """Send with retries; returns a 2xx response or raises a typed :class:`APIError`."""
        attempt = 0
        timeout, limits = self._timeout(call), self._limits_for(call)
        seconds = total_seconds(timeout)
        debug = log.isEnabledFor(logging.DEBUG)
        while True:
            request = self._build_request(call, self._client, timeout)
            if debug:
                log_request(request, attempt, self._credential, self._sensitive_headers())
            when = None if seconds is None else time.monotonic() + seconds
            try:
                response = await self._client.send(request, stream=True, follow_redirects=False)
                ok = 200 <= response.status_code < 300
                if ok and not stream:
                    await aread_body(response, limits, when)
            except httpx2.RequestError as exc:
                delay = self._plan_retry(call, attempt, exc=exc)
                if delay is None:
                    raise self._transport_error(exc, request) from exc
            else:
                if debug:
                    log_response(response)
                if ok:
                    return response
                delay = self._plan_retry(call, attempt, response=response)
                if delay is None:
                    try:
                        await aread_body(response, limits, when)
                    except httpx2.RequestError as exc:
                        raise self._transport_error(exc, request) from exc
                    raise self._status_error(response)
                await response.aclose()
            await self._sleep(delay)
            attempt += 1

    async def request(
        self, call: PreparedCall, *, cast_to: Any, kind: ResponseKind = "json"
    ) -> Any:
        unread = self._wants_unread(call)
        streamed = kind in STREAMED_KINDS
        response = await self.send(call, stream=streamed or unread)
        from ._response import APIResponse

        reading = self._reading(call)
        build: Callable[[], Any] = functools.partial(async_value, response, cast_to, kind, reading)
        if kind == "json" and self._recorder is not None:
            build = functools.partial(self._observed, call, response, cast_to, build)
        if unread:
            from ._streamed import AsyncStreamedAPIResponse

            return AsyncStreamedAPIResponse(
                response, build, read_first=not streamed, limits=self.limits
            )
        if streamed:  # made now, so that a raw response hands out this same stream
            value = build()
            return APIResponse(response, lambda: value) if self._wants_raw(call) else value
        return APIResponse(response, build) if self._wants_raw(call) else build()
