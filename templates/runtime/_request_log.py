"""The client's log: each request and response at DEBUG, retries at INFO (see ``_base_client``),
never a credential or a body; ``CUBE_LOG=info|debug`` sends it to stderr with no set-up."""

from __future__ import annotations

import logging
import os
import sys

import httpx2

from ._redaction import REDACTED, redact

__all__ = ["LOG_ENV", "SENSITIVE_HEADERS", "log", "log_request", "log_response", "setup_logging"]

log = logging.getLogger(__package__ or __name__)
LOG_ENV = "CUBE_LOG"
SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"}
)


def setup_logging() -> None:
    """Honour ``CUBE_LOG=info|debug`` once: a stderr handler on this package's logger."""
    level = {"info": logging.INFO, "debug": logging.DEBUG}.get(
        os.environ.get(LOG_ENV, "").strip().lower()
    )
    if level is None or getattr(log, "_cube_env_handler", False):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[%(asctime)s %(levelname)s %(name)s] %(message)s"))
    log.addHandler(handler)
    log.setLevel(level)
    log._cube_env_handler = True  # type: ignore[attr-defined]


def log_request(
    request: httpx2.Request, attempt: int, credential: str | None, sensitive: frozenset[str]
) -> None:
    """The request's method, URL and headers, every credential shown as ``[redacted]``."""
    if log.isEnabledFor(logging.DEBUG):
        shown = {k: REDACTED if k.lower() in sensitive else v for k, v in request.headers.items()}
        if credential:
            shown = {k: redact(v, credential) for k, v in shown.items()}
        log.debug(
            "Request %s %s (attempt %d) headers=%s",
            request.method, _loggable_url(request.url), attempt + 1, shown,
        )  # fmt: skip


def log_response(response: httpx2.Response) -> None:
    if log.isEnabledFor(logging.DEBUG):
        request = response.request
        log.debug(
            "Response %s %s -> %d",
            request.method,
            _loggable_url(request.url),
            response.status_code,
        )


def _loggable_url(url: httpx2.URL) -> str:
    return str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)
