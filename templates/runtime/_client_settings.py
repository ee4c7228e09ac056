"""What a client checks in the settings it is given: the base URL (HTTPS, or plain HTTP to a
loopback host when asked), the timeout and the HTTP client, each refused with the fix named."""

from __future__ import annotations

import ipaddress
from typing import Any

import httpx2

from ._exceptions import ConfigurationError
from ._types import NotGiven

DEFAULT_TIMEOUT = httpx2.Timeout(60.0, connect=10.0)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def checked_base_url(base_url: str, allow_http_loopback: bool) -> httpx2.URL:
    """``base_url`` parsed: HTTPS (plain HTTP only to a loopback host, when allowed), a host, no
    user name or password (the credential travels as ``api_key``)."""
    try:
        url = httpx2.URL(base_url)
    except httpx2.InvalidURL:
        raise ConfigurationError("base URL is not a valid URL") from None
    if url.scheme != "https":
        loopback = url.scheme == "http" and is_loopback(url.host)
        if not (loopback and allow_http_loopback):
            raise ConfigurationError(
                f"base URL must use https:// (got {url.scheme or 'no scheme'}://{url.host}); "
                "plain HTTP is allowed only for loopback hosts with allow_http_loopback=True"
            )
    if url.userinfo:
        raise ConfigurationError(
            "base URL must not contain a user name or password; pass the credential as api_key"
        )
    if not url.host:
        raise ConfigurationError("base URL has no host")
    return url


def class_attrs(cls: type) -> list[tuple[str, object]]:
    return [(name, attr) for klass in cls.__mro__ for name, attr in vars(klass).items()]


def own_http_client(given: Any, expected: type) -> None:
    """Refuse an HTTP client of another library, naming the fix.

    A legacy ``httpx.Client`` is not adapted: its TLS context, proxies and limits live in httpx's
    own transport, which httpx2 cannot take over, and an adapter that dropped them would send
    requests past a corporate proxy or CA without a word. httpx2 takes the same constructor
    arguments, so the fix is one import.
    """
    if given is not None and not isinstance(given, expected):
        kind = f"{type(given).__module__}.{type(given).__qualname__}"
        raise ConfigurationError(
            f"http_client must be an httpx2.{expected.__name__}, not {kind}: build it with "
            f"`import httpx2; httpx2.{expected.__name__}(...)` (same arguments as httpx)"
        )


def own_timeout(value: object) -> None:
    """Refuse a timeout httpx2 would not honour as given, naming the fix.

    A legacy ``httpx.Timeout`` is another library's class: accepting it silently would leave
    the caller unsure which limits apply.
    """
    if value is None or isinstance(value, httpx2.Timeout | NotGiven | int | float):
        return
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    raise ConfigurationError(
        f"timeout must be seconds, None or an httpx2.Timeout, not {kind}: build it with "
        "`import httpx2; httpx2.Timeout(...)` (same arguments as httpx)"
    )
