"""Support for the generated tests: a transport that records requests and answers one response,
and a real HTTP server on 127.0.0.1 that answers every request with one JSON body."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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


class Loopback:
    """A threaded HTTP/1.1 server on 127.0.0.1 answering every request with ``status`` and the
    JSON ``body``; use as a context manager, and point a client at :attr:`url`."""

    def __init__(self, status: int, body: Any) -> None:
        payload = json.dumps(body).encode()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Loopback:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)


def field(model: Any, wire: str) -> Any:
    """The value of the model field sent as ``wire`` (its alias, or its own name)."""
    for name, info in type(model).model_fields.items():
        if wire in (info.alias, name):
            return getattr(model, name)
    raise AssertionError(f"{type(model).__name__} has no field {wire!r}")
