"""Errors against a real server: one class per status family with the server's message, broken
connections and bodies, raw access, "omitted is not null", and no credential anywhere.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterator
from typing import Any

import cube_client
import pytest
from cube_client import (
    APIConnectionError,
    APIResponseValidationError,
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
from cube_client._base_client import PreparedCall, SyncAPIClient
from runtime_servers import (
    API_KEY,
    CREATE,
    CREATE_ARGS,
    DEPLOYMENT,
    Exchange,
    LocalServer,
    async_platform,
    deployment,
    platform,
)

STATUS_CLASSES: list[tuple[int, type[APIStatusError]]] = [
    (400, BadRequestError),
    (401, AuthenticationError),
    (403, PermissionDeniedError),
    (404, NotFoundError),
    (409, ConflictError),
    (422, UnprocessableEntityError),
    (429, RateLimitError),
    (500, InternalServerError),
    (502, InternalServerError),
    (418, APIStatusError),
]


def _error_route(server: LocalServer, status: int) -> None:
    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        # echoes the credential back, as a careless server might: it must be redacted
        auth = ex.seen.headers.get("authorization", "")
        headers = {"Retry-After": "0", "X-Request-Id": f"req-{status}", "X-Echo": auth}
        ex.error(status, f"nope {status}: rejected {auth}", headers)


def _check_status_error(err: APIStatusError, status: int, cls: type[APIStatusError]) -> None:
    assert type(err) is cls
    assert err.status_code == status
    assert err.message == f"nope {status}: rejected Bearer [redacted]"
    assert err.method == "GET"
    assert err.url.endswith(DEPLOYMENT)
    assert err.response.status_code == status
    # the body and the request kept on the error hold no credential either
    assert err.body == {"error": f"nope {status}: rejected Bearer [redacted]"}
    assert err.request.headers["authorization"] == "[redacted]"
    assert API_KEY not in repr(err.body) and API_KEY not in repr(dict(err.request.headers))
    assert str(status) in str(err) and DEPLOYMENT in str(err)
    # the response kept on the error: its text and headers read back without the credential
    assert err.response.json() == {"error": f"nope {status}: rejected Bearer [redacted]"}
    assert API_KEY not in err.response.text and err.response.headers["x-echo"] == "[redacted]"
    assert err.request_id == f"req-{status}"
    for text in (str(err), repr(err), "".join(traceback.format_exception(err))):
        assert API_KEY not in text


@pytest.mark.parametrize(("status", "cls"), STATUS_CLASSES)
def test_status_maps_to_class_sync(
    server: LocalServer, status: int, cls: type[APIStatusError]
) -> None:
    _error_route(server, status)
    with platform(server.url, max_retries=0) as client, pytest.raises(cls) as info:
        client.deployments.get_deployment(7)
    _check_status_error(info.value, status, cls)


@pytest.mark.anyio
@pytest.mark.parametrize(("status", "cls"), STATUS_CLASSES)
async def test_status_maps_to_class_async(
    server: LocalServer, status: int, cls: type[APIStatusError]
) -> None:
    _error_route(server, status)
    async with async_platform(server.url, max_retries=0) as client:
        with pytest.raises(cls) as info:
            await client.deployments.get_deployment(7)
    _check_status_error(info.value, status, cls)


def test_non_json_error_body_keeps_reason_and_text(server: LocalServer) -> None:
    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        ex.send(404, b"<html>gone</html>", {"Content-Type": "text/html"})

    with platform(server.url) as client, pytest.raises(NotFoundError) as info:
        client.deployments.get_deployment(7)
    assert info.value.message == "Not Found: <html>gone</html>"


def _reset_mid_response(ex: Exchange) -> None:
    ex.raw(
        b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"id": 7, '
    )
    ex.reset()


def test_reset_connection_get_is_retried_then_raises_sync(server: LocalServer) -> None:
    server.route("GET", DEPLOYMENT)(_reset_mid_response)
    with (
        platform(server.url, sleep=lambda _: None) as client,
        pytest.raises(APIConnectionError) as info,
    ):
        client.deployments.get_deployment(7)
    assert not isinstance(info.value, cube_client.APITimeoutError)
    assert info.value.method == "GET" and info.value.url.endswith(DEPLOYMENT)
    assert len(server.seen("GET", DEPLOYMENT)) == 3  # idempotent: retried twice


def test_reset_connection_post_is_not_resent_sync(server: LocalServer) -> None:
    server.route("POST", CREATE)(_reset_mid_response)
    with platform(server.url, sleep=lambda _: None) as client, pytest.raises(APIConnectionError):
        client.deployment_creation.create_deployment(**CREATE_ARGS)
    assert len(server.seen("POST", CREATE)) == 1  # may have been processed: never re-sent


@pytest.mark.anyio
async def test_reset_connection_async(server: LocalServer) -> None:
    server.route("GET", DEPLOYMENT)(_reset_mid_response)
    server.route("POST", CREATE)(_reset_mid_response)

    async def no_sleep(_: float) -> None:
        pass

    async with async_platform(server.url, sleep=no_sleep) as client:
        with pytest.raises(APIConnectionError):
            await client.deployments.get_deployment(7)
        with pytest.raises(APIConnectionError):
            await client.deployment_creation.create_deployment(**CREATE_ARGS)
    assert len(server.seen("GET", DEPLOYMENT)) == 3
    assert len(server.seen("POST", CREATE)) == 1


def _truncated(ex: Exchange) -> None:
    # promises 100 bytes, sends 20, closes: the body is incomplete, a transport failure
    ex.raw(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
    ex.raw(b'{"id": 7, "name": "d", ')
    ex.handler.close_connection = True
    ex.handler.connection.shutdown(2)


def _invalid_json(ex: Exchange) -> None:
    ex.send(200, b'{"id": 7, "name": "d"', {"Content-Type": "application/json"})


def _wrong_shape(ex: Exchange) -> None:
    ex.json(200, {**deployment(), "id": "seven"})


def test_truncated_and_invalid_bodies_sync(server: LocalServer) -> None:
    with platform(server.url, sleep=lambda _: None, max_retries=0) as client:
        server.route("GET", DEPLOYMENT)(_truncated)
        with pytest.raises(APIConnectionError) as conn:
            client.deployments.get_deployment(7)
        assert "RemoteProtocolError" in str(conn.value)
        server.route("GET", DEPLOYMENT)(_invalid_json)
        with pytest.raises(APIResponseValidationError) as bad:
            client.deployments.get_deployment(7)
        assert "not valid JSON" in bad.value.message and bad.value.status_code == 200
        server.route("GET", DEPLOYMENT)(_wrong_shape)
        with pytest.raises(APIResponseValidationError) as shape:
            client.with_options(strict=True).deployments.get_deployment(7)
        assert "does not match" in shape.value.message
        assert shape.value.body == {**deployment(), "id": "seven"}


@pytest.mark.anyio
async def test_truncated_and_invalid_bodies_async(server: LocalServer) -> None:
    async with async_platform(server.url, max_retries=0) as client:
        server.route("GET", DEPLOYMENT)(_truncated)
        with pytest.raises(APIConnectionError):
            await client.deployments.get_deployment(7)
        server.route("GET", DEPLOYMENT)(_invalid_json)
        with pytest.raises(APIResponseValidationError):
            await client.deployments.get_deployment(7)


def test_connection_refused_is_a_connection_error(sleeps: Any) -> None:
    url = _closed_port_url()
    with platform(url, sleep=sleeps.sync()) as client, pytest.raises(APIConnectionError) as info:
        client.deployment_creation.create_deployment(**CREATE_ARGS)
    assert "ConnectError" in str(info.value)
    assert len(sleeps.delays) == 2  # never reached the server: safe to retry even a POST


def _closed_port_url() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- no credential in any exception, repr or log line ------------------------------------------


@pytest.fixture
def all_logs() -> Iterator[list[logging.LogRecord]]:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=logging.DEBUG)
    root = logging.getLogger()
    names = ["httpx2", "httpcore", "cube_client", "hpack", "h11"]
    before = {name: logging.getLogger(name).level for name in names}
    old_root = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    for name in names:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        root.removeHandler(handler)
        root.setLevel(old_root)
        for name, level in before.items():
            logging.getLogger(name).setLevel(level)


def _leaky_routes(server: LocalServer) -> None:
    calls = {"n": 0}

    @server.route("GET", DEPLOYMENT)
    def flaky(ex: Exchange) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            ex.error(503, f"busy, {ex.seen.headers['authorization']}", {"Retry-After": "0"})
        else:
            ex.json(200, deployment())

    @server.route("POST", CREATE)
    def denied(ex: Exchange) -> None:
        ex.error(401, f"bad key {ex.seen.headers['authorization']}")


def _assert_no_secret(
    records: list[logging.LogRecord], errors: list[BaseException], objects: list[Any]
) -> None:
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    lines = [formatter.format(r) for r in records]
    assert any(r.name.startswith("httpx2") for r in records)
    assert any(r.name.startswith("httpcore") for r in records)
    assert any(r.name.startswith("cube_client") for r in records)
    for line in lines:
        assert API_KEY not in line
    for err in errors:
        for text in (str(err), repr(err), "".join(traceback.format_exception(err))):
            assert API_KEY not in text
    for obj in objects:
        assert API_KEY not in repr(obj) and API_KEY not in str(obj)


def test_credential_never_in_errors_or_logs_sync(
    server: LocalServer, all_logs: list[logging.LogRecord]
) -> None:
    _leaky_routes(server)
    errors: list[BaseException] = []
    with platform(server.url, sleep=lambda _: None) as client:
        assert client.deployments.get_deployment(7).id == 7
        with pytest.raises(AuthenticationError) as info:
            client.deployment_creation.create_deployment(**CREATE_ARGS)
        errors.append(info.value)
        with (
            platform(_closed_port_url(), max_retries=0) as other,
            pytest.raises(APIConnectionError) as refused,
        ):
            other.deployments.get_deployment(7)
        errors.append(refused.value)
        objects = [client, client.deployments, client.deployment_creation, client.with_raw_response]
    assert server.seen("POST", CREATE)[0].headers["authorization"] == f"Bearer {API_KEY}"
    _assert_no_secret(all_logs, errors, objects)


@pytest.mark.anyio
async def test_credential_never_in_errors_or_logs_async(
    server: LocalServer, all_logs: list[logging.LogRecord]
) -> None:
    _leaky_routes(server)

    async def no_sleep(_: float) -> None:
        pass

    async with async_platform(server.url, sleep=no_sleep) as client:
        assert (await client.deployments.get_deployment(7)).id == 7
        with pytest.raises(AuthenticationError) as info:
            await client.deployment_creation.create_deployment(**CREATE_ARGS)
        objects = [client, client.deployments]
    _assert_no_secret(all_logs, [info.value], objects)


def test_configuration_errors_never_show_the_credential() -> None:
    from cube_client import ConfigurationError, PlatformClient

    secret = "sk-very-secret-in-url"
    with pytest.raises(ConfigurationError) as info:
        PlatformClient(api_key="k", base_url=f"https://user:{secret}@example.com")
    assert secret not in str(info.value) and secret not in repr(info.value)
    with pytest.raises(ConfigurationError) as bad:
        PlatformClient(api_key=f"{secret}\nX-Injected: 1", base_url="https://example.com")
    assert secret not in str(bad.value)


# --- raw access and "omitted is not null" ---------------------------------------------------------


def _deployment_ok(ex: Exchange) -> None:
    ex.json(200, deployment(7, "raw"), {"X-Request-Id": "req-1"})


def test_raw_response_sync(server: LocalServer) -> None:
    server.route("GET", DEPLOYMENT)(_deployment_ok)
    with platform(server.url) as client:
        raw = client.deployments.with_raw_response.get_deployment(7)
        assert raw.status_code == 200 and raw.headers["x-request-id"] == "req-1"
        parsed = raw.parse()
        assert parsed.id == 7 and parsed.deployment_url == "https://raw.example"
    assert "x-cube-codegen-raw-response" not in server.seen()[0].headers


@pytest.mark.anyio
async def test_raw_response_async(server: LocalServer) -> None:
    server.route("GET", DEPLOYMENT)(_deployment_ok)
    async with async_platform(server.url) as client:
        raw = await client.deployments.with_raw_response.get_deployment(7)
        assert raw.status_code == 200 and raw.headers["x-request-id"] == "req-1"
        assert raw.parse().name == "raw"


_SETTINGS = {
    **deployment(),
    "cloudProvider": "aws",
    "creationStep": "ready",
    "deployBranchMergeAllowed": False,
    "deployBranchName": "main",
    "deployBranchReadOnly": False,
    "deployProjectRoot": "/",
    "isCubeSqlEnabled": True,
    "isSupportPreAggregations": True,
    "releaseChannel": "latest",
    "releaseChannelVersionHold": None,
    "template": "single",
}


def test_omitted_is_not_null(server: LocalServer) -> None:
    @server.route("PUT", DEPLOYMENT)
    def update(ex: Exchange) -> None:
        ex.json(200, _SETTINGS)

    with platform(server.url) as client:
        client.deployments.update_deployment(7, release_channel=None)
        settings = client.deployments.update_deployment(7, release_channel_version="img:v1")
    assert settings.release_channel == "latest" and settings.release_channel_version_hold is None
    first, second = (s.json() for s in server.seen("PUT"))
    assert first == {"releaseChannel": None}
    assert second == {"releaseChannelVersion": "img:v1"}


def test_direct_client_and_prepared_call(server: LocalServer) -> None:
    @server.route("GET", "/anything/a%2Fb")
    def anything(ex: Exchange) -> None:
        ex.json(200, {"q": ex.seen.q("x"), "auth": ex.seen.headers.get("x-key")})

    with SyncAPIClient(
        base_url=server.url,
        credential="k1",
        auth_header="X-Key",
        auth_prefix="",
        allow_http_loopback=True,
    ) as client:
        call = PreparedCall("GET", "/anything/{id}", path_params={"id": "a/b"}, query={"x": 1})
        assert client.request(call, cast_to=object) == {"q": "1", "auth": "k1"}
