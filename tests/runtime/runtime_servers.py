"""Real HTTP(S) servers on 127.0.0.1 for the runtime tests.

A :class:`LocalServer` is a ``ThreadingHTTPServer`` on an ephemeral port speaking HTTP/1.1. Tests
register one handler per ``(method, path)``; a handler gets an :class:`Exchange` (what the client
sent, plus ways to answer: JSON, chunked streams, truncated bodies, resets, stalls). Every request
is recorded, so tests count attempts server-side.
"""

from __future__ import annotations

import json
import socket
import ssl
import struct
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

API_KEY = "sk-test-Sup3rSecretV4lue-0042"


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    raw_query: str = ""

    def q(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None

    def json(self) -> Any:
        return json.loads(self.body)


class Exchange:
    """The handler's view of one request: what was sent and how to answer it."""

    def __init__(self, handler: _Handler, seen: Seen) -> None:
        self.handler = handler
        self.seen = seen
        self.server: LocalServer = handler.server

    def send(
        self, status: int, body: bytes = b"", headers: Mapping[str, str] | None = None
    ) -> None:
        h = self.handler
        h.send_response(status)
        given = {k.lower() for k in headers or {}}
        for key, value in (headers or {}).items():
            h.send_header(key, value)
        if "content-length" not in given:
            h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        self.send(
            status,
            json.dumps(payload).encode(),
            {"Content-Type": "application/json", **(headers or {})},
        )

    def error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        self.json(status, {"error": message}, headers)

    def stream(self, status: int, chunks: Iterable[bytes], headers: Mapping[str, str]) -> None:
        """A chunked body, written as the iterable produces it."""
        h = self.handler
        h.send_response(status)
        for key, value in headers.items():
            h.send_header(key, value)
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for chunk in chunks:
            if chunk:
                h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        h.wfile.write(b"0\r\n\r\n")

    def start_chunked(self, status: int, headers: Mapping[str, str]) -> None:
        h = self.handler
        h.send_response(status)
        for key, value in headers.items():
            h.send_header(key, value)
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        h.wfile.flush()

    def chunk(self, data: bytes) -> None:
        self.handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.handler.wfile.flush()

    def raw(self, data: bytes) -> None:
        """Bytes as they are: for malformed or truncated responses."""
        self.handler.wfile.write(data)
        self.handler.wfile.flush()

    def reset(self) -> None:
        """Abort the connection with a TCP reset (SO_LINGER 0), whatever was written so far."""
        h = self.handler
        h.close_connection = True
        h.wfile.flush()
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.rfile.close()
        h.wfile.close()
        h.connection.close()

    def wait_for_client_close(self, timeout: float = 10.0) -> bool:
        """Block until the client closes the connection (EOF or reset); False on timeout."""
        conn = self.handler.connection
        conn.settimeout(timeout)
        try:
            while True:
                if not conn.recv(1024):
                    return True
        except ConnectionError:
            return True
        except (TimeoutError, OSError):
            return False

    def stall(self, seconds: float = 10.0) -> None:
        """Say nothing for a while (or until the server stops)."""
        self.server.stopping.wait(seconds)


HandlerFn = Callable[[Exchange], None]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 15  # idle keep-alive connections end on their own
    server: LocalServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _dispatch(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        seen = Seen(
            method=self.command,
            path=parts.path,
            query=parse_qs(parts.query, keep_blank_values=True),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw_query=parts.query,
        )
        self.server.record(seen)
        routes = self.server.routes
        handler = routes.get((self.command, parts.path)) or routes.get((self.command, "*"))
        exchange = Exchange(self, seen)
        if handler is None:
            exchange.error(404, f"no route for {self.command} {parts.path}")
            return
        handler(exchange)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_QUERY = do_PURGE = _dispatch


class LocalServer(ThreadingHTTPServer):
    """A threaded HTTP/1.1 server on 127.0.0.1 (HTTPS when given a server SSL context)."""

    daemon_threads = True
    block_on_close = True

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.ssl_context = ssl_context
        self.routes: dict[tuple[str, str], HandlerFn] = {}
        self.requests: list[Seen] = []
        self.errors: list[BaseException] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        scheme = "https" if self.ssl_context else "http"
        return f"{scheme}://127.0.0.1:{self.server_address[1]}"

    def route(self, method: str, path: str) -> Callable[[HandlerFn], HandlerFn]:
        """Register a handler for ``method`` and ``path`` (``"*"``: any path without its own)."""

        def register(fn: HandlerFn) -> HandlerFn:
            self.routes[(method, path)] = fn
            return fn

        return register

    def record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)

    def seen(self, method: str | None = None, path: str | None = None) -> list[Seen]:
        with self._lock:
            return [
                s
                for s in self.requests
                if (method is None or s.method == method) and (path is None or s.path == path)
            ]

    def get_request(self) -> tuple[Any, Any]:
        sock, addr = self.socket.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms Nagle stalls
        if self.ssl_context is not None:  # handshake in the handler thread, not the accept loop
            sock = self.ssl_context.wrap_socket(
                sock, server_side=True, do_handshake_on_connect=False
            )
        return sock, addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        exc = sys.exc_info()[1]
        if exc is not None:
            self.errors.append(exc)

    def start(self) -> LocalServer:
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(10)


class Sleeps:
    """Records the delays the client asked for instead of sleeping (no timing in tests)."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def sync(self) -> Callable[[float], None]:
        def sleep(seconds: float) -> None:
            self.delays.append(seconds)

        return sleep

    def asynchronous(self) -> Callable[[float], Awaitable[None]]:
        async def sleep(seconds: float) -> None:
            self.delays.append(seconds)

        return sleep


def platform(url: str, *, sleep: Callable[[float], None] | None = None, **kwargs: Any) -> Any:
    """A generated ``PlatformClient`` on ``url`` (plain HTTP allowed: loopback only)."""
    from cube_client import PlatformClient

    kwargs.setdefault("allow_http_loopback", True)
    client = PlatformClient(api_key=API_KEY, base_url=url, **kwargs)
    if sleep is not None:
        client._sleep = sleep
    return client


def async_platform(url: str, *, sleep: Callable[[float], Any] | None = None, **kwargs: Any) -> Any:
    """A generated ``AsyncPlatformClient`` on ``url``."""
    from cube_client import AsyncPlatformClient

    kwargs.setdefault("allow_http_loopback", True)
    client = AsyncPlatformClient(api_key=API_KEY, base_url=url, **kwargs)
    if sleep is not None:
        client._sleep = sleep
    return client


# --- real platform operations the runtime tests drive ------------------------------------------

DEPLOYMENT = "/api/v1/deployments/7"  # getDeployment: a GET answering one model
CREATE = "/build/api/v1/deployments"  # createDeployment: a POST with a JSON body
CREATE_ARGS: dict[str, Any] = {
    "cloud_provider": "aws",
    "creation_step": "project",
    "is_managed": True,
    "name": "d",
    "region": "us-east-1",
    "target_platform": "aws",
}


def deployment(ident: int = 7, name: str = "d") -> dict[str, Any]:
    """A ``Deployment`` as the service answers it."""
    return {
        "id": ident,
        "name": name,
        "creationStep": "ready",
        "deploymentUrl": f"https://{name}.example",
    }
