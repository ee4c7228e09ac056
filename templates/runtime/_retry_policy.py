"""When a failed attempt is sent again, and after how long: the one retry policy of every client.

Retries (``max_retries``, default 2: at most three sends; per client and per call)
    A failed attempt is sent again only when one of these holds:

    1. the request never left: ``ConnectError``, ``ConnectTimeout``, ``PoolTimeout`` — any method,
       except a TLS certificate failure (retrying cannot fix it);
    2. the server says it did not act on the request: 408, 425, 429, 503 — any method;
    3. the call is idempotent — ``GET HEAD OPTIONS PUT DELETE TRACE``, or any method whose call
       carries an ``Idempotency-Key`` header — and it got any other 5xx except 501 and 505, or a
       transport error after the request was sent (reset, truncated body, read/write timeout).

    A server's ``x-should-retry: true|false`` header overrides 2 and 3. Everything else is raised
    at once; in particular a POST or PATCH that got a 500, 502, 504, a reset or a read timeout may
    have been processed and is never re-sent. 3xx, 409 and other 4xx are never retried.

    Delay: the server's ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date) when it
    gives one, from 0 up to :data:`MAX_RETRY_AFTER` seconds; a server asking for longer is not
    retried — the error is raised at once with ``retry_after`` set. Otherwise exponential backoff,
    0.5 s doubling per attempt up to 8 s, less up to 25 % random jitter. Files being uploaded are
    rewound before a re-send; a non-seekable file is not re-sent.
"""

from __future__ import annotations

import random
import ssl
from typing import Any

import httpx2

from ._prepared_call import PreparedCall
from ._response_headers import parse_retry_after

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "MAX_RETRY_AFTER",
    "retry_delay",
    "rewind_files",
    "should_retry_error",
    "should_retry_status",
]

DEFAULT_MAX_RETRIES = 2
INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
MAX_RETRY_AFTER = 60.0
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
IDEMPOTENCY_HEADER = "idempotency-key"
# The server says it did not act on the request, so even a POST may be re-sent.
NOT_PROCESSED_STATUSES = frozenset({408, 425, 429, 503})
# 5xx that will not change on a retry.
PERMANENT_SERVER_STATUSES = frozenset({501, 505})


def should_retry_status(call: PreparedCall, response: httpx2.Response) -> bool:
    """Rules 2 and 3, with the server's ``x-should-retry``."""
    override = response.headers.get("x-should-retry")
    if override in ("true", "false"):
        return bool(override == "true")
    status = response.status_code
    if status in NOT_PROCESSED_STATUSES:
        return True
    return status >= 500 and status not in PERMANENT_SERVER_STATUSES and _is_idempotent(call)


def should_retry_error(call: PreparedCall, exc: Exception) -> bool:
    """Rules 1 and 3: unsent requests always; sent ones only when idempotent."""
    if _is_certificate_error(exc):
        return False
    if isinstance(exc, (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout)):
        return True
    return _is_idempotent(call) and isinstance(exc, httpx2.TransportError)


def retry_delay(attempt: int, response: httpx2.Response | None) -> float | None:
    """Seconds to wait before the next attempt, or ``None`` when the server asks too long a
    wait."""
    if response is not None:
        asked = parse_retry_after(response.headers)
        if asked is not None:
            return asked if asked <= MAX_RETRY_AFTER else None
    backoff = min(INITIAL_RETRY_DELAY * 2.0**attempt, MAX_RETRY_DELAY)
    return backoff * (1 - 0.25 * random.random())


def rewind_files(call: PreparedCall) -> bool:
    """Rewind the files being uploaded for a re-send; False when one cannot be."""
    for fh in _file_objects(call):
        try:
            fh.seek(0)
        except (OSError, ValueError):
            return False
    return True


def _is_idempotent(call: PreparedCall) -> bool:
    if call.method.upper() in IDEMPOTENT_METHODS:
        return True
    names = [*call.headers, *(call.options.extra_headers or {})]
    return any(name.lower() == IDEMPOTENCY_HEADER for name in names)


def _is_certificate_error(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    for _ in range(8):  # walk the cause chain a bounded number of steps
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _file_objects(call: PreparedCall) -> list[Any]:
    """Open files among the upload parts (a value, or the second item of a tuple part)."""
    found: list[Any] = []
    for value in (call.files or {}).values():
        parts = value if isinstance(value, tuple) else (value,)
        found.extend(p for p in parts if hasattr(p, "read") and hasattr(p, "seek"))
    return found
