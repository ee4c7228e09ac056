"""Fixtures for the runtime tests: a real server per test, generated clients bound to it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
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
