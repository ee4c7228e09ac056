"""One trust store for both: the generator's ``fetch`` and the generated SDK verify certificates
the same way and go through the same proxy, so one setting fixes both.

A trustme CA signs ``tenant.cube.test``, served by an HTTPS server on 127.0.0.1 that is reached
only through a CONNECT proxy on 127.0.0.1 (the name resolves nowhere else): with
``HTTPS_PROXY`` and ``SSL_CERT_FILE`` set, ``fetch`` and the SDK both arrive and trust the
server; without ``SSL_CERT_FILE`` both refuse its certificate."""

from __future__ import annotations

import json
import select
import socket
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest
import trustme

from generator.document.fetch import FetchError, fetch_spec, ssl_context
from generator.document.trust import proxy_for
from tests.helpers import ensure_generated_importable

HOST = "tenant.cube.test"
TOKEN = "trust-token-5150"
SPEC = {"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {}}
KEYS = {"items": [], "pageInfo": {"hasNextPage": False, "hasPreviousPage": False}}


class _Api(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(SPEC if self.path == "/api/v1/spec" else KEYS).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Proxy(BaseHTTPRequestHandler):
    """CONNECT to any host is a tunnel to the API server on 127.0.0.1; the target is recorded."""

    api_port = 0
    seen: ClassVar[list[str]] = []

    def do_CONNECT(self) -> None:
        self.seen.append(f"{self.path} {self.headers.get('Authorization', '')}".strip())
        upstream = socket.create_connection(("127.0.0.1", self.api_port), timeout=10)
        self.send_response(200, "Connection established")
        self.end_headers()
        sockets = [self.connection, upstream]
        try:
            for _ in range(10_000):  # bounded: a few requests' worth of chunks
                ready, _, _ = select.select(sockets, [], [], 10)
                if not ready:
                    break
                for sock in ready:
                    try:
                        data = sock.recv(65536)
                    except ConnectionResetError:  # a side that hung up mid-stream: the end
                        return
                    if not data:
                        return
                    (upstream if sock is self.connection else self.connection).sendall(data)
        finally:
            upstream.close()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def proxy(ca: trustme.CA) -> Iterator[str]:
    api = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(HOST).configure_cert(context)
    api.socket = context.wrap_socket(api.socket, server_side=True)
    _Proxy.api_port = api.server_address[1]
    tunnel = ThreadingHTTPServer(("127.0.0.1", 0), _Proxy)
    for server in (api, tunnel):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{tunnel.server_address[1]}"
    finally:
        for server in (api, tunnel):
            server.shutdown()
            server.server_close()


def _sdk_keys(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> int:
    """The generated SDK's default client, configured by nothing but the environment."""
    ensure_generated_importable()
    from cube_client import PlatformClient

    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with PlatformClient(api_key=TOKEN, base_url=f"https://{HOST}", max_retries=0) as client:
        return len(client.api_keys.list_api_keys().items)


def test_fetch_and_the_sdk_trust_and_proxy_alike(
    proxy: str, ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pem = tmp_path / "corp-ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    env = {"HTTPS_PROXY": proxy, "SSL_CERT_FILE": str(pem)}
    _Proxy.seen.clear()
    fetched = fetch_spec(f"https://{HOST}", TOKEN, environ=env, max_attempts=1, timeout=10)
    assert fetched.document["info"]["title"] == "T"
    assert _sdk_keys(monkeypatch, env) == 0
    # both went through the proxy, and the token travelled inside TLS, never to the proxy
    assert _Proxy.seen == [f"{HOST}:443", f"{HOST}:443"]

    untrusted = {"HTTPS_PROXY": proxy}  # the CA is in no store either of them reads
    with pytest.raises(FetchError) as refused:
        fetch_spec(f"https://{HOST}", TOKEN, environ=untrusted, max_attempts=1, timeout=10)
    assert "certificate is not trusted" in refused.value.first.message
    from cube_client import APIConnectionError

    with pytest.raises(APIConnectionError) as sdk_refused:
        _sdk_keys(monkeypatch, untrusted)
    assert "certificate" in str(sdk_refused.value).lower()


def test_without_a_bundle_both_use_the_systems_store() -> None:
    """The very certificates the SDK's default client trusts, not another bundle's."""
    ours = ssl_context(environ={})
    sdk = httpx2.create_ssl_context(trust_env=False)  # the SDK's client, SSL_CERT_* unset
    assert ours.get_ca_certs() == sdk.get_ca_certs()
    assert ours.verify_mode == ssl.CERT_REQUIRED and ours.check_hostname


def test_the_proxy_is_read_as_the_sdk_reads_it() -> None:
    url = f"https://{HOST}/api/v1/spec"
    assert proxy_for(url, environ={}) is None
    assert proxy_for(url, environ={"https_proxy": "proxy.corp:3128"}) == "http://proxy.corp:3128"
    assert proxy_for(url, environ={"ALL_PROXY": "http://p:1"}) == "http://p:1"
    assert proxy_for(url, environ={"HTTP_PROXY": "http://p:1"}) is None  # not for https
    for no_proxy in ("*", "cube.test", ".cube.test", HOST, "other, cube.test:443"):
        env = {"HTTPS_PROXY": "http://p:1", "NO_PROXY": no_proxy}
        assert proxy_for(url, environ=env) is None, no_proxy
    kept = {"HTTPS_PROXY": "http://p:1", "NO_PROXY": "ube.test,example.com"}
    assert proxy_for(url, environ=kept) == "http://p:1"
