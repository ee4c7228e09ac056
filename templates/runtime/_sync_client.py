"""The sync client: sends with an ``httpx2.Client`` and sleeps between retries."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any, Self

import httpx2

from ._client_base import BaseClient
from ._client_settings import own_http_client
from ._limits import read_body, total_seconds
from ._prepared_call import PreparedCall
from ._request_defaults import client_headers
from ._request_log import log, log_request, log_response
from ._response_values import STREAMED_KINDS, ResponseKind, parse_value


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
        own_http_client(http_client, httpx2.Client)
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
