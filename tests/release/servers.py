"""A real HTTPS server on 127.0.0.1 (trustme certificate) answering every GET with one JSON body,
recording the requests it saw: the live service for ``update`` and for installed clients."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import trustme


class JsonServer:
    def __init__(self, cert: trustme.LeafCert, body: Any) -> None:
        self.body = body
        self.requests: list[tuple[str, str, str]] = []  # method, path, Authorization
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self) -> None:
                owner.requests.append(
                    (self.command, self.path, self.headers.get("Authorization", ""))
                )
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                data = json.dumps(owner.body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _reply

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(context)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.httpd.server_address[1]}"


@contextmanager
def serving(body: Any, ca: trustme.CA) -> Iterator[JsonServer]:
    server = JsonServer(ca.issue_cert("127.0.0.1"), body)
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


def ca_file(ca: trustme.CA, folder: Path) -> Path:
    path = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path
