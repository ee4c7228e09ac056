"""Support for the generated tests: a transport that records requests and answers one response,
and a real HTTP server on 127.0.0.1 that answers every request with one JSON body."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pydantic

# The tests run against this distribution's sources whether or not it is installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CREDENTIAL = "test-credential"
BASE_URL = "https://api.test/base"


class Recorder:
    """Answers every request with one response and keeps the requests for assertions."""

    def __init__(
        self, status: int = 200, body: Any = None, content_type: str = "application/json"
    ) -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.requests: list[httpx2.Request] = []

    def _handle(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        self.requests.append(request)
        if self.body is None:
            return httpx2.Response(self.status)
        if isinstance(self.body, bytes):
            return httpx2.Response(
                self.status, content=self.body, headers={"content-type": self.content_type}
            )
        return httpx2.Response(
            self.status,
            content=json.dumps(self.body).encode(),
            headers={"content-type": "application/json"},
        )

    def transport(self) -> httpx2.MockTransport:
        return httpx2.MockTransport(self._handle)

    @property
    def last(self) -> httpx2.Request:
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
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

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


def assert_reads_back(value: Any, sent: Any, where: str = "body") -> None:
    """Every value in ``sent`` reads back from ``value`` as what was sent, through the typed
    attributes (the lazy reader) for declared fields and ``model_extra`` for the others."""
    if type(value).__name__ == "Unknown":  # the package's own Unknown (named per package)
        assert value.value == sent, f"{where}: {value!r} != {sent!r}"
    elif isinstance(value, pydantic.RootModel):
        assert_reads_back(value.root, sent, where)
    elif isinstance(value, pydantic.BaseModel) and isinstance(sent, dict):
        cls = type(value)
        # Read every field before asking pydantic for aliases: the reader must find them itself,
        # whatever state the class is in (forward references resolved or not).
        read = {name: getattr(value, name) for name in cls.model_fields}
        if not cls.__pydantic_complete__:
            cls.model_rebuild()
        fields = {info.alias or name: name for name, info in cls.model_fields.items()}
        for key, item in sent.items():
            if key in fields:
                assert_reads_back(read[fields[key]], item, f"{where}.{key}")
            else:
                assert (value.model_extra or {}).get(key) == item, (
                    f"{where}.{key}: extra field lost"
                )
    elif isinstance(value, list) and isinstance(sent, list):
        assert len(value) == len(sent), f"{where}: {len(value)} items read, {len(sent)} sent"
        for i, (got, item) in enumerate(zip(value, sent, strict=True)):
            assert_reads_back(got, item, f"{where}[{i}]")
    elif isinstance(value, dict) and isinstance(sent, dict):
        assert value.keys() == sent.keys(), f"{where}: keys {sorted(value)} != {sorted(sent)}"
        for key, item in sent.items():
            assert_reads_back(value[key], item, f"{where}.{key}")
    elif value != sent:
        # a typed scalar (date-time, date, number) equals the wire value read as its own type
        assert value is not None, f"{where}: read as None, sent {sent!r}"
        assert value == pydantic.TypeAdapter(type(value)).validate_python(sent), (
            f"{where}: {value!r} != {sent!r}"
        )


def page_items(body: Any, path: tuple[str, ...]) -> Any:
    """The item array of a page body, found along the pagination's ``items`` path."""
    for key in path:
        body = body[key]
    return body


def field(model: Any, wire: str) -> Any:
    """The value of the model field sent as ``wire`` (its alias, or its own name)."""
    for name, info in type(model).model_fields.items():
        if wire in (info.alias, name):
            return getattr(model, name)
    raise AssertionError(f"{type(model).__name__} has no field {wire!r}")
