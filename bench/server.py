"""A loopback HTTP/1.1 server for the per-call benchmark (run in its own process).

``GET /api/v1/deployments/{id}/environments`` answers a list of 100 environments in the
published platform document's shape (``items`` and ``pageInfo``); ``GET /_stats`` answers how many
connections and requests it has seen, so the benchmark can show that each side reused one
connection. Prints the port on the first line of stdout, then serves until stdin closes.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ITEMS = 100
PATH = re.compile(r"^/api/v1/deployments/\d+/environments(\?.*)?$")


def environments(n: int = ITEMS) -> dict[str, object]:
    """A page in the published document's shape: ``items`` and ``pageInfo``."""
    kinds = ("production", "staging", "development")
    items = [
        {
            "id": f"env-{i}",
            "type": kinds[i % 3],
            "branch": f"branch-{i}",
            "api_credentials": [
                {
                    "type": "rest",
                    "url": f"https://tenant.cubecloud.dev/cubejs-api/{i}",
                    "version": 1,
                },
                {"type": "sql", "host": "sql.tenant.cubecloud.dev", "port": 5432 + i, "version": 1},
            ],
        }
        for i in range(n)
    ]
    return {"items": items, "pageInfo": {"hasNextPage": False, "hasPreviousPage": False}}


def _response(body: bytes, status: str = "200 OK") -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one connection serves every call
    disable_nagle_algorithm = True
    body = _response(json.dumps(environments()).encode())
    connections = 0
    requests = 0
    lock = threading.Lock()

    def setup(self) -> None:
        super().setup()
        with Handler.lock:
            Handler.connections += 1

    def do_GET(self) -> None:
        with Handler.lock:
            Handler.requests += 1
        if PATH.match(self.path):
            self.wfile.write(self.body)  # status line, headers and body in one write
        elif self.path == "/_stats":
            stats = {"connections": Handler.connections, "requests": Handler.requests}
            self.wfile.write(_response(json.dumps(stats).encode()))
        else:
            self.wfile.write(_response(b'{"error": "not found"}', "404 Not Found"))

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # the parent closes stdin (or exits) to stop the server
    server.shutdown()


if __name__ == "__main__":
    main()
