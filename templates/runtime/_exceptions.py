"""One exception class per status family under :class:`APIError`, plus connection and job failures.

Every error carries the request method and URL and, for status errors, the status, the server's
message and the response. None of them prints a credential: messages never include request
headers, URLs are shown without userinfo, and the client redacts its credential from a server
message that echoes it.

Hierarchy::

    APIError
    ├── ConfigurationError
    ├── APIConnectionError            no response: refused, reset, truncated, DNS or TLS failure
    │   └── APITimeoutError
    ├── APIResponseValidationError    2xx whose body is not JSON or not the documented shape
    ├── APIStatusError                any other non-2xx (3xx too: redirects are not followed)
    │   ├── BadRequestError 400, AuthenticationError 401, PermissionDeniedError 403,
    │   ├── NotFoundError 404, ConflictError 409, UnprocessableEntityError 422,
    │   └── RateLimitError 429, InternalServerError 5xx
    └── JobError                      an asynchronous job did not give a result
        ├── JobFailedError, JobExpiredError, JobTimeoutError
"""

from __future__ import annotations

import datetime
from typing import Any

import httpx2

from ._redaction import REDACTED, holds, redact, safe_url, scrub, scrubbed_response
from ._response_headers import parse_retry_after, request_id

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APIStreamError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "ConflictError",
    "ContinueWaitTimeoutError",
    "IncompleteStreamError",
    "InternalServerError",
    "JobError",
    "JobExpiredError",
    "JobFailedError",
    "JobTimeoutError",
    "MissingExtraError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RequestValidationError",
    "UnprocessableEntityError",
]


class APIError(Exception):
    """Base of every error raised by this package."""

    message: str
    _sent_request_id: str | None = None  # set by calls that send one (``_data``)

    @property
    def request_id(self) -> str | None:
        """The id the call was sent under (``x-request-id``), for operations that send one."""
        return self._sent_request_id

    def __init__(self, message: str, *, method: str = "", url: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.method = method
        self.url = url

    def __str__(self) -> str:
        where = f" ({self.method} {self.url})" if self.method else ""
        return f"{self.message}{where}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"

    def _redact(self, secret: str | None, headers: frozenset[str] = frozenset()) -> None:
        """Replace ``secret`` wherever the error repeats it: the message, the body (a server
        echoing the credential), and the request kept on the error, whose ``headers`` named here
        (``authorization`` and the like) read ``[redacted]``."""
        if secret and holds(self.message, secret):
            self.message = redact(self.message, secret)
            self.args = (self.message,)
        if secret and "body" in vars(self):
            vars(self)["body"] = scrub(vars(self)["body"], secret)
        request = getattr(self, "request", None)
        if isinstance(request, httpx2.Request):
            for name in list(request.headers):
                value = request.headers[name]
                if name.lower() in headers or (secret and holds(value, secret)):
                    request.headers[name] = REDACTED
        response = vars(self).get("response")
        if secret and isinstance(response, httpx2.Response):
            vars(self)["response"] = scrubbed_response(response, secret)


class RequestValidationError(APIError, ValueError):
    """The arguments do not form a request body the document allows; nothing was sent."""


class ConfigurationError(APIError):
    """The client was constructed with missing or unsafe settings (e.g. no credential, http://)."""


class APIConnectionError(APIError):
    """The request did not get a (complete) response: refused, reset, truncated, DNS or TLS
    failure."""

    status_code: int | None = None

    def __init__(self, message: str = "Connection error.", *, request: httpx2.Request) -> None:
        super().__init__(message, method=request.method, url=safe_url(request.url))
        self.request = request


class APITimeoutError(APIConnectionError):
    """The request timed out (connect, read, write or waiting for a pooled connection)."""

    def __init__(self, *, request: httpx2.Request) -> None:
        super().__init__("Request timed out.", request=request)


class APIResponseValidationError(APIError):
    """The server answered with a success status but a body that does not match the document.

    ``differences``: what differed, one entry per value, when the body was valid JSON.
    """

    differences: tuple[Any, ...] = ()

    def __init__(self, message: str, *, response: httpx2.Response, body: object) -> None:
        request = response.request
        super().__init__(message, method=request.method, url=safe_url(request.url))
        self.request = request
        self.response = response
        self.status_code = response.status_code
        self.body = body

    @property
    def request_id(self) -> str | None:
        """The id the call was sent under, else the server's (``x-request-id``)."""
        return self._sent_request_id or request_id(self.response)


class APIStatusError(APIError):
    """The server answered with a non-2xx status; ``message`` is the server's ``error`` text."""

    status_code: int

    def __init__(self, message: str, *, response: httpx2.Response, body: object) -> None:
        request = response.request
        super().__init__(message, method=request.method, url=safe_url(request.url))
        self.request = request
        self.response = response
        self.status_code = response.status_code
        self.body = body

    @property
    def request_id(self) -> str | None:
        """The id the call was sent under, else the server's (``x-request-id``): quote it to
        support."""
        return self._sent_request_id or request_id(self.response)

    @property
    def retry_after(self) -> float | None:
        """Seconds the server asked us to wait (``Retry-After``/``retry-after-ms``), if it said."""
        return parse_retry_after(self.response.headers)

    def __str__(self) -> str:
        return f"Error code {self.status_code}: {super().__str__()}"

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


class JobError(APIError):
    """An asynchronous job did not produce its result."""

    def __init__(self, message: str, *, job_id: str) -> None:
        super().__init__(message)
        self.job_id = job_id


class JobFailedError(JobError):
    """The job reached a failure status; ``error`` is the job's own error text (may be empty)."""

    def __init__(self, message: str, *, job_id: str, error: str, status: object) -> None:
        super().__init__(message, job_id=job_id)
        self.error = error
        self.status = status


class JobExpiredError(JobError):
    """The job would expire (``expires_at``) before it completed; it is not polled after that."""

    def __init__(self, message: str, *, job_id: str, expires_at: datetime.datetime) -> None:
        super().__init__(message, job_id=job_id)
        self.expires_at = expires_at


class JobTimeoutError(JobError):
    """``wait(timeout=...)`` ran out before the job completed; the job itself may still finish."""

    def __init__(self, message: str, *, job_id: str, timeout: float) -> None:
        super().__init__(message, job_id=job_id)
        self.timeout = timeout


class APIStreamError(APIError):
    """The server reported an error inside a streamed answer whose status was already 2xx.

    ``message`` is the line's error text; ``line`` the whole line, decoded.
    """

    def __init__(self, message: str, *, response: httpx2.Response, line: object) -> None:
        request = response.request
        super().__init__(message, method=request.method, url=safe_url(request.url))
        self.response = response
        self.status_code = response.status_code
        self.line = line


class IncompleteStreamError(APIConnectionError):
    """The stream ended inside a line, or before the line that marks a complete answer.

    ``last`` is the last complete line, decoded (None when there was none); ``received``
    every complete line, decoded, for a stream that must end with a final line (the chat
    stream's usage frame), so what arrived before the cut is not lost.
    """

    received: tuple[object, ...] = ()

    def __init__(self, message: str, *, request: httpx2.Request, last: object) -> None:
        super().__init__(message, request=request)
        self.last = last


class ContinueWaitTimeoutError(APIError):
    """The server kept answering "Continue wait" until the call's ``wait_timeout`` ran out.

    The query may still be running on the server: asking again with the same ``request_id``
    continues it rather than starting over.
    """

    def __init__(self, message: str, *, request_id: str, waited: float, polls: int) -> None:
        super().__init__(message)
        self._sent_request_id = request_id
        self.waited = waited
        self.polls = polls


class MissingExtraError(APIError, ImportError):
    """A method needs an optional dependency that is not installed; the message names the
    ``pip install`` that adds it."""
