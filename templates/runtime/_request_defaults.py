"""What every request of one client carries, worked out once per client instead of on every call.

A call's request is the client's base URL, headers and timeout with the call's own path, query,
headers and body over them. Merging the client's part again on each call (and letting httpx2
normalise the same headers again) cost about as much as the rest of building the request, so
:class:`RequestDefaults` keeps it, made again only when the client's ``base_url``,
``default_headers`` or ``timeout`` is replaced (``with_options`` gives a copy its own).

The ``httpx2`` client a client makes for itself carries these headers from the start
(:func:`client_headers`), so a call sends only what differs from them; a client given with
``http_client=`` gets every header on every request, over whatever that client sets.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx2

from ._types import RAW_RESPONSE_HEADER
from ._version import DISTRIBUTION, __version__

__all__ = ["RequestDefaults", "client_headers", "merged_headers", "parsed_url", "user_agent"]


def user_agent() -> str:
    """``cube-client/1.0.0 python/3.12 httpx2/2.16``: who is calling, for the server's logs."""
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    httpx_version = ".".join(httpx2.__version__.split(".")[:2])
    return f"{DISTRIBUTION}/{__version__} python/{python} httpx2/{httpx_version}"


_USER_AGENT_HEADER = ("User-Agent", user_agent())
_RAW_RESPONSE_KEY = RAW_RESPONSE_HEADER.lower()
Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RequestDefaults:
    """One client's part of every request (see the module)."""

    url: httpx2.URL | None  # the client's base_url, default_headers and timeout it was made from
    defaults: Mapping[str, str] | None
    timeout: object
    base: str  # the base URL as text, without a trailing slash
    root: str  # the same for the host's root (``host_root`` calls)
    # The headers to send with each call, keyed by the lower-case name (case-insensitive: a
    # caller's "authorization" replaces ours rather than joining it); those the http client
    # was made with are left out. ``pairs`` is the same as httpx2 takes it, None when empty.
    headers: Mapping[str, tuple[str, str]]
    pairs: Pairs | None
    timeouts: Mapping[str, float | None]  # the timeout as httpx2's request extension

    @classmethod
    def of(
        cls,
        url: httpx2.URL,
        defaults: Mapping[str, str],
        auth: Mapping[str, str],
        timeout: object,
        preset: Mapping[str, str],
    ) -> RequestDefaults:
        """A client's part: its ``base_url``, ``default_headers``, credential header and
        ``timeout``; ``preset`` the headers its httpx2 client was made with (lower-case names)."""
        merged = {
            name: pair
            for name, pair in client_headers(defaults, auth).items()
            if preset.get(name) != pair[1]
        }
        base, root = str(url).rstrip("/"), str(url.copy_with(path="/")).rstrip("/")
        pairs = tuple(merged.values()) or None
        return cls(url, defaults, timeout, base, root, merged, pairs, _timeouts(timeout))

    def stale(self, url: httpx2.URL, defaults: Mapping[str, str], timeout: object) -> bool:
        """Whether a client has been given another base URL, default headers or timeout."""
        return self.url is not url or self.defaults is not defaults or self.timeout is not timeout


UNSET = RequestDefaults(None, None, None, "", "", {}, None, {})


def client_headers(
    defaults: Mapping[str, str], auth: Mapping[str, str]
) -> dict[str, tuple[str, str]]:
    """Every header a client's requests carry, by lower-case name: ours, then its
    ``default_headers``, then its credential."""
    merged = {"accept": ("Accept", "application/json"), "user-agent": _USER_AGENT_HEADER}
    for layer in (defaults, auth):
        for key, value in layer.items():
            merged[key.lower()] = (key, value)
    merged.pop(_RAW_RESPONSE_KEY, None)
    return merged


def merged_headers(
    fixed: Mapping[str, tuple[str, str]], *layers: Mapping[str, str] | None
) -> list[tuple[str, str]]:
    """The client's headers with a call's own over them (see :class:`RequestDefaults`)."""
    merged = dict(fixed)
    for layer in layers:
        if layer:
            for key, value in layer.items():
                merged[key.lower()] = (key, value)
    merged.pop(_RAW_RESPONSE_KEY, None)
    return list(merged.values())


def timeout_extension(timeout: object, fixed: RequestDefaults) -> dict[str, Any]:
    """The request's ``extensions`` for ``timeout``, as httpx2 would make them from it (the
    client's own timeout is worked out once)."""
    if timeout is fixed.timeout:
        return {"timeout": fixed.timeouts}
    return {"timeout": _timeouts(timeout)}


def _timeouts(timeout: object) -> dict[str, float | None]:
    return httpx2.Timeout(timeout).as_dict()  # type: ignore[arg-type]


@functools.lru_cache(maxsize=512)
def parsed_url(text: str) -> httpx2.URL:
    """``text`` parsed once (``httpx2.URL`` is immutable): a client calls the same few URLs
    again and again, and parsing one costs more than the rest of building its request."""
    return httpx2.URL(text)
