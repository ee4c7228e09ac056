"""The async client: sends with an ``httpx2.AsyncClient`` and awaits between retries."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Self

import httpx2

from ._client_base import BaseClient
from ._client_settings import own_http_client
from ._limits import aread_body, total_seconds
from ._prepared_call import PreparedCall
from ._request_defaults import client_headers
from ._request_log import log, log_request, log_response
from ._response_values import STREAMED_KINDS, ResponseKind, async_value


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
        own_http_client(http_client, httpx2.AsyncClient)
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
