"""Retries and timeouts against a real server, counting attempts server-side.

Sleeps are recorded instead of slept, so the delays the client chose are asserted as values and
the tests take no wall-clock time for them.
"""

from __future__ import annotations

import email.utils
import io
import time

import httpx2
import pytest
from cube_client import (
    APIStatusError,
    APITimeoutError,
    ConflictError,
    InternalServerError,
    RateLimitError,
)
from cube_client._base_client import (
    DEFAULT_TIMEOUT,
    MAX_RETRY_AFTER,
    PreparedCall,
    SyncAPIClient,
)
from runtime_servers import (
    CREATE,
    CREATE_ARGS,
    DEPLOYMENT,
    Exchange,
    LocalServer,
    Sleeps,
    async_platform,
    deployment,
    platform,
)


def _fail_then_ok(
    server: LocalServer,
    method: str,
    path: str,
    status: int,
    failures: int,
    headers: dict[str, str] | None = None,
) -> None:
    """Answer ``status`` to the first ``failures`` requests, then succeed."""

    @server.route(method, path)
    def reply(ex: Exchange) -> None:
        if len(server.seen(method, path)) <= failures:
            ex.error(status, f"attempt failed with {status}", headers)
        elif not path.startswith("/api/"):
            ex.json(200, deployment(42, "created"))
        else:
            ex.json(200, deployment(int(path.rsplit("/", 1)[1])))


# --- Retry-After ---------------------------------------------------------------------------------


def test_429_with_retry_after_then_success_sync(server: LocalServer, sleeps: Sleeps) -> None:
    _fail_then_ok(server, "GET", DEPLOYMENT, 429, 1, {"Retry-After": "2"})
    with platform(server.url, sleep=sleeps.sync()) as client:
        result = client.deployments.get_deployment(7)
    assert result.id == 7 and result.deployment_url == "https://d.example"
    assert len(server.seen("GET", DEPLOYMENT)) == 2
    assert sleeps.delays == [2.0]  # exactly what the server asked for


@pytest.mark.anyio
async def test_429_with_retry_after_then_success_async(server: LocalServer, sleeps: Sleeps) -> None:
    _fail_then_ok(server, "GET", DEPLOYMENT, 429, 2, {"Retry-After": "0"})
    async with async_platform(server.url, sleep=sleeps.asynchronous()) as client:
        result = await client.deployments.get_deployment(7)
    assert result.id == 7
    assert len(server.seen("GET", DEPLOYMENT)) == 3
    assert sleeps.delays == [0.0, 0.0]


def test_retry_after_http_date_and_milliseconds(
    server: LocalServer, sleeps: Sleeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = 1_700_000_000.0  # the clock is fixed, so the date means exactly 30 s from "now"
    monkeypatch.setattr(time, "time", lambda: now)
    when = email.utils.formatdate(now + 30, usegmt=True)
    _fail_then_ok(server, "GET", DEPLOYMENT, 503, 1, {"Retry-After": when})
    with platform(server.url, sleep=sleeps.sync()) as client:
        client.deployments.get_deployment(7)
    assert sleeps.delays == [30.0]

    sleeps.delays.clear()
    _fail_then_ok(server, "GET", "/api/v1/deployments/8", 429, 1, {"retry-after-ms": "250"})
    with platform(server.url, sleep=sleeps.sync()) as client:
        client.deployments.get_deployment(8)
    assert sleeps.delays == [0.25]


def test_retry_after_beyond_the_cap_is_not_waited_for(server: LocalServer, sleeps: Sleeps) -> None:
    _fail_then_ok(
        server, "GET", DEPLOYMENT, 429, 5, {"Retry-After": str(int(MAX_RETRY_AFTER) + 3540)}
    )
    with platform(server.url, sleep=sleeps.sync()) as client, pytest.raises(RateLimitError) as info:
        client.deployments.get_deployment(7)
    assert info.value.retry_after == 3600.0
    assert len(server.seen()) == 1 and sleeps.delays == []


# --- how many attempts, per client and per call ------------------------------------------------


def test_503_until_retries_run_out_sync(server: LocalServer, sleeps: Sleeps) -> None:
    _fail_then_ok(server, "GET", DEPLOYMENT, 503, 100)
    with platform(server.url, sleep=sleeps.sync()) as client:
        with pytest.raises(InternalServerError) as info:
            client.deployments.get_deployment(7)
        assert info.value.status_code == 503
        assert len(server.seen()) == 3  # default: 2 retries
        with pytest.raises(InternalServerError):
            client.deployments.get_deployment(7, max_retries=0)
        assert len(server.seen()) == 4
        with pytest.raises(InternalServerError):
            client.deployments.get_deployment(7, max_retries=4)
        assert len(server.seen()) == 9
    with platform(server.url, sleep=sleeps.sync(), max_retries=1) as client:
        with pytest.raises(InternalServerError):
            client.deployments.get_deployment(7)
        assert len(server.seen()) == 11
    # backoff without Retry-After: 0.5 s doubling, less up to 25 % jitter
    first, second = sleeps.delays[0], sleeps.delays[1]
    assert 0.375 <= first <= 0.5 and 0.75 <= second <= 1.0


@pytest.mark.anyio
async def test_503_until_retries_run_out_async(server: LocalServer, sleeps: Sleeps) -> None:
    _fail_then_ok(server, "GET", DEPLOYMENT, 503, 100, {"Retry-After": "0"})
    async with async_platform(server.url, sleep=sleeps.asynchronous(), max_retries=3) as client:
        with pytest.raises(InternalServerError):
            await client.deployments.get_deployment(7)
        assert len(server.seen()) == 4
        with pytest.raises(InternalServerError):
            await client.deployments.get_deployment(7, max_retries=0)
        assert len(server.seen()) == 5


# --- never re-send a request that may have been processed ---------------------------------------


@pytest.mark.parametrize(
    ("status", "resent"),
    [(500, False), (502, False), (504, False), (429, True), (503, True), (408, True)],
)
def test_post_is_resent_only_when_not_processed_sync(
    server: LocalServer, sleeps: Sleeps, status: int, resent: bool
) -> None:
    _fail_then_ok(server, "POST", CREATE, status, 1, {"Retry-After": "0"})
    with platform(server.url, sleep=sleeps.sync()) as client:
        if resent:
            assert client.deployment_creation.create_deployment(**CREATE_ARGS).name == "created"
        else:
            with pytest.raises(InternalServerError):
                client.deployment_creation.create_deployment(**CREATE_ARGS)
    assert len(server.seen("POST", CREATE)) == (2 if resent else 1)


@pytest.mark.anyio
async def test_post_is_resent_only_when_not_processed_async(
    server: LocalServer, sleeps: Sleeps
) -> None:
    _fail_then_ok(server, "POST", CREATE, 500, 1)
    async with async_platform(server.url, sleep=sleeps.asynchronous()) as client:
        with pytest.raises(InternalServerError):
            await client.deployment_creation.create_deployment(**CREATE_ARGS)
        assert len(server.seen("POST", CREATE)) == 1
        _fail_then_ok(server, "POST", CREATE, 503, 2, {"Retry-After": "0"})
        server.requests.clear()
        created = await client.deployment_creation.create_deployment(**CREATE_ARGS)
        assert created.name == "created"
        assert len(server.seen("POST", CREATE)) == 3


def test_post_with_idempotency_key_is_retried_on_500(server: LocalServer, sleeps: Sleeps) -> None:
    _fail_then_ok(server, "POST", CREATE, 500, 1, {"Retry-After": "0"})
    with platform(server.url, sleep=sleeps.sync()) as client:
        created = client.deployment_creation.create_deployment(
            **CREATE_ARGS, extra_headers={"Idempotency-Key": "k-1"}
        )
    assert created.name == "created"
    assert [s.headers["idempotency-key"] for s in server.seen()] == ["k-1", "k-1"]


def test_server_override_and_permanent_statuses(server: LocalServer, sleeps: Sleeps) -> None:
    with platform(server.url, sleep=sleeps.sync()) as client:
        _fail_then_ok(server, "GET", DEPLOYMENT, 503, 5, {"x-should-retry": "false"})
        with pytest.raises(InternalServerError):
            client.deployments.get_deployment(7)
        assert len(server.seen()) == 1
        server.requests.clear()
        _fail_then_ok(
            server, "POST", CREATE, 500, 1, {"x-should-retry": "true", "Retry-After": "0"}
        )
        assert client.deployment_creation.create_deployment(**CREATE_ARGS).name == "created"
        assert len(server.seen()) == 2
        for status, cls in (
            (501, InternalServerError),
            (409, ConflictError),
            (302, APIStatusError),
        ):
            server.requests.clear()
            _fail_then_ok(server, "GET", DEPLOYMENT, status, 5)
            with pytest.raises(cls):
                client.deployments.get_deployment(7)
            assert len(server.seen()) == 1, status


def test_upload_is_rewound_before_a_resend(server: LocalServer, sleeps: Sleeps) -> None:
    _fail_then_ok(server, "POST", "/upload", 503, 1, {"Retry-After": "0"})
    upload = io.BytesIO(b"file-content-123")
    with SyncAPIClient(
        base_url=server.url, credential="k", allow_http_loopback=True, sleep=sleeps.sync()
    ) as client:
        call = PreparedCall("POST", "/upload", files={"file": ("a.txt", upload, "text/plain")})
        assert client.request(call, cast_to=object) == deployment(42, "created")
    bodies = [s.body for s in server.seen("POST", "/upload")]
    assert len(bodies) == 2 and all(b"file-content-123" in body for body in bodies)


# --- timeouts -----------------------------------------------------------------------------------


def _stall(ex: Exchange) -> None:
    ex.stall(10)


def test_defaults() -> None:
    with platform("https://example.invalid") as client:
        assert client.timeout == DEFAULT_TIMEOUT and client.max_retries == 2
        assert DEFAULT_TIMEOUT.connect == 10.0 and DEFAULT_TIMEOUT.read == 60.0


def test_read_timeout_per_call_and_per_client_sync(server: LocalServer, sleeps: Sleeps) -> None:
    server.route("GET", DEPLOYMENT)(_stall)
    server.route("POST", CREATE)(_stall)
    with platform(server.url, sleep=sleeps.sync()) as client:
        with pytest.raises(APITimeoutError) as info:
            client.deployments.get_deployment(7, timeout=0.2, max_retries=0)
        assert info.value.method == "GET" and "timed out" in str(info.value)
        assert len(server.seen()) == 1
        with pytest.raises(APITimeoutError):
            client.deployments.get_deployment(7, timeout=httpx2.Timeout(5.0, read=0.2))
        assert len(server.seen()) == 4  # a GET that timed out is retried
    with platform(server.url, sleep=sleeps.sync(), timeout=0.2) as client:
        with pytest.raises(APITimeoutError):
            client.deployment_creation.create_deployment(**CREATE_ARGS)
        assert (
            len(server.seen("POST", CREATE)) == 1
        )  # a POST that timed out may have been processed


@pytest.mark.anyio
async def test_read_timeout_per_call_and_per_client_async(
    server: LocalServer, sleeps: Sleeps
) -> None:
    server.route("GET", DEPLOYMENT)(_stall)
    async with async_platform(
        server.url, sleep=sleeps.asynchronous(), timeout=0.2, max_retries=0
    ) as client:
        with pytest.raises(APITimeoutError):
            await client.deployments.get_deployment(7)
        with pytest.raises(APITimeoutError):
            await client.deployments.get_deployment(7, timeout=0.1)
    assert len(server.seen()) == 2


@pytest.mark.anyio
async def test_retry_after_beyond_the_cap_async(server: LocalServer, sleeps: Sleeps) -> None:
    _fail_then_ok(server, "GET", DEPLOYMENT, 503, 5, {"Retry-After": "86400"})
    async with async_platform(server.url, sleep=sleeps.asynchronous()) as client:
        with pytest.raises(InternalServerError) as info:
            await client.deployments.get_deployment(7)
    assert info.value.retry_after == 86400.0 and len(server.seen()) == 1 and sleeps.delays == []
