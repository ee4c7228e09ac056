"""Which error a non-2xx response raises: one class per status family (see :mod:`._exceptions`),
its message the server's own words from the body when it gave any."""

from __future__ import annotations

from typing import Any

import httpx2

from ._exceptions import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)

__all__ = ["error_class_for", "make_status_error", "server_message"]

_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def error_class_for(status: int) -> type[APIStatusError]:
    if status >= 500:
        return InternalServerError
    return _BY_STATUS.get(status, APIStatusError)


def server_message(body: Any, response: httpx2.Response) -> str:
    """The server's own words: the ``error`` (or ``message``/``detail``) field of a JSON body."""
    if isinstance(body, dict):
        for key in ("error", "message", "detail"):
            value = body.get(key)
            if isinstance(value, str) and value:
                return value
            if isinstance(value, dict) and isinstance(value.get("message"), str):
                return str(value["message"])
    text = body.strip() if isinstance(body, str) else ""
    reason = response.reason_phrase or "error"
    return reason + (f": {text[:200]}" if text else "")


def make_status_error(response: httpx2.Response, body: object) -> APIStatusError:
    cls = error_class_for(response.status_code)
    return cls(server_message(body, response), response=response, body=body)
