"""Calls that carry a request id (``x-cube-request-id``), and the "Continue wait" answer.

Request ids
    Every such call is sent under one id: the caller's ``request_id=`` or a fresh UUID. Each
    send carries it as ``<id>-span-<n>`` (``n`` counts the sends of the call from 1) in the
    operation's header, so the server's logs tie a query's polls together. The id is on the
    result (``result._request_id``) and on any error the call raises (``error.request_id``).

Continue wait
    A query the server has not finished yet is answered with status 200 and a small JSON object
    such as ``{"error": "Continue wait", "stage": ...}``. Such an answer is never returned: the
    call is sent again, same body, same id, next span, after a short back-off
    (:data:`FIRST_DELAY` doubling up to :data:`MAX_DELAY`), until a real answer or an error.
    ``on_progress`` receives each of those bodies. Each send is bounded by the call's
    ``timeout``; the whole wait by ``wait_timeout`` (:data:`DEFAULT_WAIT_TIMEOUT` seconds,
    ``None`` for no limit), after which :class:`ContinueWaitTimeoutError` names the request id.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ._exceptions import APIError, ContinueWaitTimeoutError
from ._request_ids import tagged
from ._types import NOT_GIVEN, NotGiven

if TYPE_CHECKING:
    import httpx2

    from ._base_client import AsyncAPIClient, PreparedCall, SyncAPIClient

__all__ = [
    "DEFAULT_WAIT_TIMEOUT",
    "RequestIdSpec",
    "arequest_with_id",
    "new_request_id",
    "request_with_id",
]

DEFAULT_WAIT_TIMEOUT = 300.0  # seconds a call keeps asking again while the server says wait
FIRST_DELAY = 0.05
MAX_DELAY = 1.0
# A "Continue wait" body is a small object; a bigger answer is a result and is not read twice.
MAX_WAIT_BODY = 64 * 1024

Progress = Callable[[dict[str, Any]], object]


@dataclass(frozen=True)
class RequestIdSpec:
    """From the operation's ``x-cube-request-id``: the header, and the "ask again" answer."""

    header: str = "x-request-id"
    span_separator: str = "-span-"
    continue_member: str | None = None
    continue_value: str | None = None


def new_request_id() -> str:
    """A fresh id for a call the caller gave none."""
    return str(uuid.uuid4())


class _Waiting:
    """One call's polls: the span counter, the back-off and the whole wait's deadline."""

    def __init__(
        self, spec: RequestIdSpec, rid: str, limit: float | None, progress: Progress | None
    ) -> None:
        self.spec = spec
        self.rid = rid
        self.limit = limit
        self.progress = progress
        self.span = 1
        self.started = time.monotonic()
        self.delay = FIRST_DELAY

    def prepared(self, call: PreparedCall) -> PreparedCall:
        value = f"{self.rid}{self.spec.span_separator}{self.span}"
        return replace(call, headers={**call.headers, self.spec.header: value})

    def still_waiting(self, response: httpx2.Response) -> dict[str, Any] | None:
        """The body when it is the "ask again" answer, else None."""
        member, value = self.spec.continue_member, self.spec.continue_value
        if member is None or len(response.content) > MAX_WAIT_BODY:
            return None
        try:
            body = json.loads(response.content)
        except ValueError:
            return None
        if isinstance(body, dict) and body.get(member) == value:
            return body
        return None

    def next_delay(self, body: dict[str, Any]) -> float:
        """Report progress; the sleep before the next poll, or raise when the wait is over."""
        if self.progress is not None:
            self.progress(body)
        waited = time.monotonic() - self.started
        delay = self.delay
        if self.limit is not None and waited + delay > self.limit:
            raise ContinueWaitTimeoutError(
                f"still waiting for the result after {waited:.1f} s and {self.span} polls "
                f"(request id {self.rid}); pass a larger wait_timeout, or None to wait without "
                "limit, and the same request_id to keep following this query",
                request_id=self.rid,
                waited=waited,
                polls=self.span,
            )
        self.delay = min(self.delay * 2, MAX_DELAY)
        self.span += 1
        return delay


def _limit(wait_timeout: float | NotGiven | None) -> float | None:
    return DEFAULT_WAIT_TIMEOUT if isinstance(wait_timeout, NotGiven) else wait_timeout


def _result(
    client: Any, call: PreparedCall, response: httpx2.Response, cast_to: Any, rid: str
) -> Any:
    """The answer as the client's ``request`` gives it: parsed, raw or streamed, with its id."""
    from ._response_values import parse_value

    reading = client._reading(call)

    def parse() -> Any:
        return tagged(parse_value(response, cast_to, "json", reading), rid)

    if client._wants_unread(call):  # the body was read already: a "wait" answer is small
        from ._streamed import StreamedAPIResponse

        return StreamedAPIResponse(response, parse, read_first=True, limits=client.limits)
    if client._wants_raw(call):
        from ._response import APIResponse

        return APIResponse(response, parse)
    return parse()


def request_with_id(
    client: SyncAPIClient,
    call: PreparedCall,
    cast_to: Any,
    spec: RequestIdSpec,
    *,
    request_id: str | None = None,
    wait_timeout: float | NotGiven | None = NOT_GIVEN,
    on_progress: Progress | None = None,
) -> Any:
    """Send ``call`` under a request id; while the server says wait, ask again (see module)."""
    waiting = _Waiting(spec, request_id or new_request_id(), _limit(wait_timeout), on_progress)
    while True:
        sent = waiting.prepared(call)
        try:
            response = client.send(sent)
        except APIError as exc:
            exc._sent_request_id = waiting.rid
            raise
        body = waiting.still_waiting(response)
        if body is None:
            return _result(client, sent, response, cast_to, waiting.rid)
        response.close()
        client._sleep(waiting.next_delay(body))


async def arequest_with_id(
    client: AsyncAPIClient,
    call: PreparedCall,
    cast_to: Any,
    spec: RequestIdSpec,
    *,
    request_id: str | None = None,
    wait_timeout: float | NotGiven | None = NOT_GIVEN,
    on_progress: Progress | None = None,
) -> Any:
    """The async twin of :func:`request_with_id`."""
    waiting = _Waiting(spec, request_id or new_request_id(), _limit(wait_timeout), on_progress)
    while True:
        sent = waiting.prepared(call)
        try:
            response = await client.send(sent)
        except APIError as exc:
            exc._sent_request_id = waiting.rid
            raise
        body = waiting.still_waiting(response)
        if body is None:
            return _result(client, sent, response, cast_to, waiting.rid)
        await response.aclose()
        await client._sleep(waiting.next_delay(body))
