"""Fixtures for the runtime tests: a real server per test, generated clients bound to it."""

from __future__ import annotations

import ssl
from collections.abc import Iterator

import pytest
import trustme
from runtime_servers import LocalServer, Sleeps

from tests.helpers import ensure_generated_importable

ensure_generated_importable()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server() -> Iterator[LocalServer]:
    srv = LocalServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def tls_server(ca: trustme.CA) -> Iterator[LocalServer]:
    """An HTTPS server on 127.0.0.1 with a certificate from ``ca``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    srv = LocalServer(ssl_context=context).start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def trusting(ca: trustme.CA) -> ssl.SSLContext:
    """A client TLS context that trusts ``ca``."""
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context
