"""HTTPS only: a trustme-certified server on 127.0.0.1, plain HTTP refused outside loopback, and
redirects never followed, so the credential never leaves the configured origin.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator

import httpx2
import pytest
from cube_client import APIConnectionError, APIStatusError, ConfigurationError, PlatformClient
from runtime_servers import (
    API_KEY,
    DEPLOYMENT,
    Exchange,
    LocalServer,
    Sleeps,
    async_platform,
    deployment,
    platform,
)


@pytest.fixture
def tls_server(tls_server: LocalServer) -> LocalServer:
    @tls_server.route("GET", DEPLOYMENT)
    def one(ex: Exchange) -> None:
        ex.json(200, deployment(7, "tls"))

    return tls_server


def test_https_with_trusted_certificate_sync(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    assert tls_server.url.startswith("https://")
    with (
        httpx2.Client(verify=trusting) as http,
        PlatformClient(api_key=API_KEY, base_url=tls_server.url, http_client=http) as client,
    ):
        result = client.deployments.get_deployment(7)
    assert result.id == 7 and result.deployment_url == "https://tls.example"
    assert tls_server.seen()[0].headers["authorization"] == f"Bearer {API_KEY}"


@pytest.mark.anyio
async def test_https_with_trusted_certificate_async(
    tls_server: LocalServer, trusting: ssl.SSLContext
) -> None:
    from cube_client import AsyncPlatformClient

    async with httpx2.AsyncClient(verify=trusting) as http:
        async with AsyncPlatformClient(
            api_key=API_KEY, base_url=tls_server.url, http_client=http
        ) as client:
            result = await client.deployments.get_deployment(7)
    assert result.name == "tls"


def test_untrusted_certificate_fails_without_retrying(
    tls_server: LocalServer, sleeps: Sleeps
) -> None:
    with PlatformClient(api_key=API_KEY, base_url=tls_server.url) as client:
        client._sleep = sleeps.sync()
        with pytest.raises(APIConnectionError) as info:
            client.deployments.get_deployment(7)
    assert "ConnectError" in str(info.value) and API_KEY not in str(info.value)
    assert sleeps.delays == []  # a certificate failure does not heal on a retry
    assert tls_server.seen() == []


@pytest.mark.parametrize(
    ("url", "allow"),
    [
        ("http://127.0.0.1:9", False),  # loopback, but not allowed
        ("http://example.com", True),  # allowed flag, but not loopback
        ("http://10.0.0.1", True),
        ("ftp://127.0.0.1", True),
        ("127.0.0.1:8080", True),
        ("https://user:pass@example.com", False),
    ],
)
def test_unsafe_base_urls_are_refused(url: str, allow: bool) -> None:
    with pytest.raises(ConfigurationError):
        PlatformClient(api_key=API_KEY, base_url=url, allow_http_loopback=allow)


def test_http_from_the_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUBE_BASE_URL", "http://cube.example.com")
    with pytest.raises(ConfigurationError, match="https"):
        PlatformClient(api_key=API_KEY)


@pytest.mark.parametrize("url", ["http://127.0.0.1:9", "http://localhost:9", "http://[::1]:9"])
def test_plain_http_only_for_loopback_with_the_flag(url: str) -> None:
    with PlatformClient(api_key=API_KEY, base_url=url, allow_http_loopback=True) as client:
        assert str(client.base_url).startswith("http://")


# --- redirects are not followed -----------------------------------------------------------------


@pytest.fixture
def elsewhere() -> Iterator[LocalServer]:
    srv = LocalServer().start()
    try:
        yield srv
    finally:
        srv.stop()


def _redirect(server: LocalServer, target: LocalServer) -> None:
    @server.route("GET", DEPLOYMENT)
    def moved(ex: Exchange) -> None:
        ex.send(302, b"", {"Location": f"{target.url}/steal"})


def test_redirect_is_not_followed_sync(server: LocalServer, elsewhere: LocalServer) -> None:
    _redirect(server, elsewhere)
    # even an http client configured to follow redirects does not follow them for us
    with httpx2.Client(follow_redirects=True) as http:
        with (
            platform(server.url, http_client=http) as client,
            pytest.raises(APIStatusError) as info,
        ):
            client.deployments.get_deployment(7)
    assert info.value.status_code == 302
    assert len(server.seen()) == 1 and elsewhere.seen() == []


@pytest.mark.anyio
async def test_redirect_is_not_followed_async(server: LocalServer, elsewhere: LocalServer) -> None:
    _redirect(server, elsewhere)
    async with async_platform(server.url) as client:
        with pytest.raises(APIStatusError) as info:
            await client.deployments.get_deployment(7)
    assert info.value.status_code == 302 and elsewhere.seen() == []


@pytest.mark.anyio
async def test_untrusted_certificate_and_plain_http_async(
    tls_server: LocalServer, sleeps: Sleeps
) -> None:
    from cube_client import AsyncPlatformClient

    with pytest.raises(ConfigurationError):
        AsyncPlatformClient(
            api_key=API_KEY, base_url="http://example.com", allow_http_loopback=True
        )
    async with AsyncPlatformClient(api_key=API_KEY, base_url=tls_server.url) as client:
        client._sleep = sleeps.asynchronous()
        with pytest.raises(APIConnectionError):
            await client.deployments.get_deployment(7)
    assert sleeps.delays == [] and tls_server.seen() == []


@pytest.mark.parametrize("legacy", ["Client", "AsyncClient"])
def test_a_legacy_httpx_client_is_refused_naming_the_fix(legacy: str) -> None:
    """The runtime sends with httpx2; a legacy ``httpx`` client is refused at construction (its
    TLS, proxy and limits could not be carried over), and the message names the one-line fix."""
    httpx = pytest.importorskip("httpx")
    from cube_client import AsyncPlatformClient

    client_class = PlatformClient if legacy == "Client" else AsyncPlatformClient
    http = getattr(httpx, legacy)()
    try:
        with pytest.raises(ConfigurationError, match=rf"httpx2\.{legacy}\(\.\.\.\)"):
            client_class(api_key=API_KEY, base_url="https://acme.test", http_client=http)
    finally:
        if legacy == "Client":
            http.close()
