"""Support for the generated tests: a transport that records requests and answers one response."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx

# The tests run against this distribution's sources whether or not it is installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CREDENTIAL = "test-credential"
BASE_URL = "https://api.test/base"


class Recorder:
    """Answers every request with one response and keeps the requests for assertions."""

    def __init__(self, status: int = 200, body: Any = None, content_type: str = "application/json") -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.requests: list[httpx.Request] = []

    def _handle(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        if self.body is None:
            return httpx.Response(self.status)
        if isinstance(self.body, bytes):
            return httpx.Response(self.status, content=self.body, headers={"content-type": self.content_type})
        return httpx.Response(self.status, content=json.dumps(self.body).encode(), headers={"content-type": "application/json"})

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self._handle)

    @property
    def last(self) -> httpx.Request:
        assert len(self.requests) == 1, f"expected one request, got {len(self.requests)}"
        return self.requests[0]

    def path(self) -> str:
        return self.last.url.raw_path.decode("ascii").split("?", 1)[0]

    def query(self, name: str) -> str:
        return ",".join(self.last.url.params.get_list(name))

    def json(self) -> Any:
        return json.loads(self.last.content)
