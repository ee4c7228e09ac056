"""One exception class per status family under :class:`APIError`, plus connection failures.

Every error carries the request method and URL and, for status errors, the status, the server's
message and the response. None of them ever holds or prints a credential.
"""

from __future__ import annotations

from typing import Any

import httpx

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "ConflictError",
    "InternalServerError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "UnprocessableEntityError",
]


class APIError(Exception):
    """Base of every error raised by this package."""

    message: str

    def __init__(self, message: str, *, method: str = "", url: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.method = method
        self.url = url

    def __str__(self) -> str:
        where = f" ({self.method} {self.url})" if self.method else ""
        return f"{self.message}{where}"


class ConfigurationError(APIError):
    """The client was constructed with missing or unsafe settings (e.g. no credential, http://)."""


class APIConnectionError(APIError):
    """The request did not get a response: refused, reset, DNS or TLS failure."""

    def __init__(self, message: str = "Connection error.", *, request: httpx.Request) -> None:
        super().__init__(message, method=request.method, url=_safe_url(request.url))
        self.request = request


class APITimeoutError(APIConnectionError):
    """The request timed out."""

    def __init__(self, *, request: httpx.Request) -> None:
        super().__init__("Request timed out.", request=request)


class APIResponseValidationError(APIError):
    """The server answered with a success status but a body that does not match the document."""

    def __init__(self, message: str, *, response: httpx.Response, body: object) -> None:
        request = response.request
        super().__init__(message, method=request.method, url=_safe_url(request.url))
        self.response = response
        self.status_code = response.status_code
        self.body = body


class APIStatusError(APIError):
    """The server answered with a 4xx or 5xx status."""

    status_code: int

    def __init__(self, message: str, *, response: httpx.Response, body: object) -> None:
        request = response.request
        super().__init__(message, method=request.method, url=_safe_url(request.url))
        self.response = response
        self.status_code = response.status_code
        self.body = body

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status_code={self.status_code}, message={self.message!r})"


class BadRequestError(APIStatusError):
    status_code = 400


class AuthenticationError(APIStatusError):
    status_code = 401


class PermissionDeniedError(APIStatusError):
    status_code = 403


class NotFoundError(APIStatusError):
    status_code = 404


class ConflictError(APIStatusError):
    status_code = 409


class UnprocessableEntityError(APIStatusError):
    status_code = 422


class RateLimitError(APIStatusError):
    status_code = 429


class InternalServerError(APIStatusError):
    """Any 5xx status."""


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


def server_message(body: Any, response: httpx.Response) -> str:
    """The server's own words: the ``error`` (or ``message``/``detail``) field of a JSON body."""
    if isinstance(body, dict):
        for key in ("error", "message", "detail"):
            value = body.get(key)
            if isinstance(value, str) and value:
                return value
            if isinstance(value, dict) and isinstance(value.get("message"), str):
                return str(value["message"])
    text = body if isinstance(body, str) else ""
    reason = response.reason_phrase or "error"
    return f"{response.status_code} {reason}" + (f": {text[:200]}" if text else "")


def make_status_error(response: httpx.Response, body: object) -> APIStatusError:
    cls = error_class_for(response.status_code)
    return cls(server_message(body, response), response=response, body=body)


def _safe_url(url: httpx.URL) -> str:
    """The URL without userinfo; query strings never carry credentials in this package."""
    return str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)
