"""What a response's headers say beyond its body: the id the server gave the request, and how
long it asks the client to wait before trying again. Read by errors, responses and the retry
policy alike, so none of them needs another's module for it."""

from __future__ import annotations

import datetime
import math
import time

import httpx2

__all__ = ["parse_retry_after", "request_id"]


def request_id(response: httpx2.Response) -> str | None:
    """The id the server gave the request (``x-request-id`` or ``request-id``), for support."""
    return response.headers.get("x-request-id") or response.headers.get("request-id")


def parse_retry_after(headers: httpx2.Headers) -> float | None:
    """``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date) as seconds, never
    negative."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            value = float(millis) / 1000
        except ValueError:
            pass
        else:
            return max(value, 0.0) if math.isfinite(value) else None
    header = headers.get("retry-after")
    if not header:
        return None
    try:
        value = float(header)
    except ValueError:
        try:
            import email.utils  # only for the rare HTTP-date form; costly to import

            when = email.utils.parsedate_to_datetime(header)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.UTC)
        value = when.timestamp() - time.time()
    return max(value, 0.0) if math.isfinite(value) else None
