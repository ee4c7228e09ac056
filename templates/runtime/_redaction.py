"""What the package never shows: the client's credential where a server echoes it (in a message,
a body or a header) and the userinfo of a URL. Kept apart from the errors that use it so the
client's debug log and the errors redact by one rule."""

from __future__ import annotations

import functools
import re
from typing import Any

import httpx2

__all__ = ["REDACTED", "holds", "redact", "safe_url", "scrub", "scrubbed_response"]

REDACTED = "[redacted]"


@functools.lru_cache(maxsize=16)
def _token(secret: str) -> re.Pattern[str]:
    """``secret`` where it stands as a whole token: not inside a longer word, so a one-letter
    key never turns ``keep-alive`` into ``[redacted]eep-alive``."""
    return re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(secret)}(?![A-Za-z0-9_-])")


def holds(text: str, secret: str) -> bool:
    return secret in text and _token(secret).search(text) is not None


def redact(text: str, secret: str | None) -> str:
    """``text`` with each whole-token occurrence of ``secret`` shown as ``[redacted]``."""
    if not secret or secret not in text:
        return text
    return _token(secret).sub(REDACTED, text)


def scrub(value: Any, secret: str) -> Any:
    """``value`` (JSON data or text) with every occurrence of ``secret`` replaced."""
    if isinstance(value, str):
        return redact(value, secret)
    if isinstance(value, dict):
        return {scrub(k, secret): scrub(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, secret) for v in value]
    return value


def scrubbed_response(response: httpx2.Response, secret: str) -> httpx2.Response:
    """``response`` as kept on an error: a server that echoes the credential (in its body or a
    header) has it replaced, so ``error.response.text`` and ``.headers`` never hold it."""
    content = response.content
    text = content.decode("latin-1")  # one character per byte: offsets and bytes kept
    echoed = holds(text, secret) or any(holds(v, secret) for v in response.headers.values())
    if not echoed:
        return response
    headers = [(k, REDACTED if holds(v, secret) else v) for k, v in response.headers.multi_items()]
    return httpx2.Response(
        response.status_code,
        headers=[(k, v) for k, v in headers if k.lower() != "content-length"],
        content=redact(text, secret).encode("latin-1"),
        request=response.request,
    )


def safe_url(url: httpx2.URL) -> str:
    """The URL without userinfo; query strings never carry credentials in this package."""
    return str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)
