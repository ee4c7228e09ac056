"""The headers and timeout every request of a client carries, worked out once per client
(``_request_defaults``): on the wire each is sent once, with the value the client (or its
``with_options`` copy, or the call) gives, whether the client made its own httpx2 client or was
given one. Against a real server on 127.0.0.1.
"""

from __future__ import annotations

import re
import time
from collections import Counter

import httpx2
import pytest
from cube_client import APITimeoutError
from runtime_servers import API_KEY, Exchange, LocalServer, async_platform, platform

LIST = "/api/v1/deployments"
SLOW = "/api/v1/deployments/7"
AGENT = re.compile(r"cube-client/\S+ python/\d+\.\d+ httpx2/\d+\.\d+")


def _record(server: LocalServer) -> list[list[tuple[str, str]]]:
    """Every request's header lines, as received (repeats kept), by lower-case name."""
    seen: list[list[tuple[str, str]]] = []

    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        seen.append([(k.lower(), v) for k, v in ex.handler.headers.items()])
        ex.json(200, {"data": {"deployments": []}, "pagination": {"total": 0}})

    @server.route("GET", SLOW)
    def slow(ex: Exchange) -> None:
        time.sleep(0.5)
        ex.json(200, {"id": 7, "name": "d"})

    return seen


def _once(lines: list[tuple[str, str]]) -> dict[str, str]:
    """The headers as a dict, after checking that none was sent twice."""
    counts = Counter(name for name, _ in lines)
    assert [n for n, c in counts.items() if c > 1] == [], lines
    return dict(lines)


def test_each_client_header_is_sent_once_with_the_clients_value(server: LocalServer) -> None:
    seen = _record(server)
    with platform(server.url, default_headers={"X-Team": "core"}) as client:
        client.deployments.get_deployments()
        client.with_raw_response.deployments.get_deployments()
    for lines in seen:
        headers = _once(lines)
        assert headers["accept"] == "application/json"
        assert headers["authorization"] == f"Bearer {API_KEY}"
        assert AGENT.fullmatch(headers["user-agent"])
        assert headers["x-team"] == "core"
        assert not any(name.startswith("x-cube-codegen") for name in headers)  # the raw marker
    assert len(seen) == 2


def test_a_copys_headers_and_a_calls_headers_replace_the_clients(server: LocalServer) -> None:
    seen = _record(server)
    with platform(server.url, default_headers={"X-Team": "core"}) as client:
        client.deployments.get_deployments()  # the client's part is worked out, then copied
        ops = client.with_options(default_headers={"X-Team": "ops", "X-Extra": "1"})
        ops.deployments.get_deployments()
        client.deployments.get_deployments(
            extra_headers={"authorization": "Bearer other", "ACCEPT": "application/problem+json"}
        )
        ops.deployments.get_deployments()
    original, copy, call, copy_again = (_once(lines) for lines in seen)
    assert copy["x-team"] == copy_again["x-team"] == "ops" and copy["x-extra"] == "1"
    assert original["x-team"] == "core" and "x-extra" not in original
    assert call["authorization"] == "Bearer other" and call["x-team"] == "core"
    assert call["accept"] == "application/problem+json"
    assert copy["authorization"] == original["authorization"] == f"Bearer {API_KEY}"


def test_a_given_http_client_keeps_its_headers_and_ours_win(server: LocalServer) -> None:
    seen = _record(server)
    given = httpx2.Client(headers={"User-Agent": "theirs/1.0", "X-Proxy-Tag": "p", "Accept": "*/*"})
    with given, platform(server.url, http_client=given) as client:
        client.deployments.get_deployments()
    headers = _once(seen[0])
    assert AGENT.fullmatch(headers["user-agent"]) and headers["accept"] == "application/json"
    assert headers["x-proxy-tag"] == "p" and headers["authorization"] == f"Bearer {API_KEY}"
    assert given.headers["user-agent"] == "theirs/1.0"  # the caller's client is not changed


@pytest.mark.anyio
async def test_async_clients_send_each_header_once(server: LocalServer) -> None:
    seen = _record(server)
    async with async_platform(server.url, default_headers={"X-Team": "core"}) as client:
        await client.deployments.get_deployments()
        await client.with_options(default_headers={"X-Team": "ops"}).deployments.get_deployments()
    first, second = (_once(lines) for lines in seen)
    assert first["x-team"] == "core" and second["x-team"] == "ops"
    for headers in (first, second):
        assert headers["accept"] == "application/json" and AGENT.fullmatch(headers["user-agent"])
        assert headers["authorization"] == f"Bearer {API_KEY}"


def test_a_copys_timeout_bounds_its_calls_alone(server: LocalServer) -> None:
    _record(server)
    with platform(server.url, max_retries=0) as client:
        assert client.deployments.get_deployment(7).id == 7  # the client's own 60 s
        quick = client.with_options(timeout=0.1)
        started = time.monotonic()
        with pytest.raises(APITimeoutError):
            quick.deployments.get_deployment(7)
        assert time.monotonic() - started < 0.45  # the server answers after 0.5 s
        assert client.deployments.get_deployment(7).id == 7
