"""What the sync and async clients share (see ``_base_client``): their settings, how a call
becomes a request, whether and when a failed attempt is sent again, and which error a failure
raises."""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Callable, Mapping
from typing import Any, Self

import httpx2

from ._client_settings import DEFAULT_TIMEOUT, checked_base_url, class_attrs, own_timeout
from ._exceptions import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    ConfigurationError,
)
from ._limits import DEFAULT_LIMITS, Limits, Reading
from ._prepared_call import PreparedCall
from ._request_build import build_request
from ._request_defaults import UNSET, RequestDefaults
from ._request_log import SENSITIVE_HEADERS, log, setup_logging
from ._response_values import error_body
from ._retry_policy import (
    DEFAULT_MAX_RETRIES,
    retry_delay,
    rewind_files,
    should_retry_error,
    should_retry_status,
)
from ._shapes import observe, recorder_for
from ._status_errors import make_status_error
from ._types import NOT_GIVEN, RAW_RESPONSE_HEADER, NotGiven, Timeout


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
        url = checked_base_url(base_url, allow_http_loopback)
        if max_retries < 0:
            raise ConfigurationError("max_retries must be 0 or more")
        own_timeout(timeout)
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
        own_timeout(timeout)
        new = copy.copy(self)
        for name, attr in class_attrs(type(self)):  # resources made for the original client
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
        fixed = self._fixed
        if fixed.stale(self.base_url, self._default_headers, self.timeout):
            fixed = self._fixed = RequestDefaults.of(
                self.base_url,
                self._default_headers,
                self.auth_headers,
                self.timeout,
                self._preset_headers,
            )
        return build_request(call, client, fixed, timeout)

    def _reading(self, call: PreparedCall) -> Reading:
        hear = self._recorder.hear if self._recorder is not None else None
        return Reading(self.strict, self._limits_for(call), call.path, hear)

    def _limits_for(self, call: PreparedCall) -> Limits:
        """The call's own limits, else the client's."""
        return call.options.limits or self.limits

    def _timeout(self, call: PreparedCall) -> Timeout:
        given = call.options.timeout
        if given is NOT_GIVEN:
            return self.timeout
        own_timeout(given)
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
