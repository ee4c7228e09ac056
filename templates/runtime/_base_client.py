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

from ._async_client import AsyncAPIClient
from ._client_base import BaseClient
from ._client_settings import DEFAULT_TIMEOUT
from ._prepared_call import PreparedCall, RequestOptions
from ._retry_policy import DEFAULT_MAX_RETRIES, MAX_RETRY_AFTER
from ._sync_client import SyncAPIClient

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "MAX_RETRY_AFTER",
    "AsyncAPIClient",
    "BaseClient",
    "PreparedCall",
    "RequestOptions",
    "SyncAPIClient",
]
