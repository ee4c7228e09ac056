"""Snapshot the service's published documents into a project's ``spec/`` with
``cube-codegen fetch``.

A loopback HTTPS server (a trustme certificate authority, nothing leaves 127.0.0.1) stands in for
a tenant: it serves the newest published platform document at ``/api/v1/spec``, where the service
serves its own, and the SCIM, core data and agent chat documents at their file names. Each family
is then fetched exactly as a maintainer fetches from a tenant, so the committed snapshots are what
the project's own command makes of the published documents.

    python tools/published.py --shared ../shared [--project .]
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import os
import re
import ssl
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

SPEC_PATH = "/api/v1/spec"
FAMILY_FILES = {"scim": "scim-api.yaml", "data": "core-data-api.yaml", "chat": "chat-api.yaml"}
"""Published document of each family besides the platform's (which is served at SPEC_PATH)."""
_PLATFORM = re.compile(r"platform-api\.(\d+)_[0-9a-f]+\.yaml")


def published_dir(shared: Path) -> Path:
    return shared / "specs" / "cube"


def platform_documents(shared: Path) -> list[Path]:
    """The published platform documents, oldest first (their number orders them)."""
    found = [
        (int(m.group(1)), p)
        for p in published_dir(shared).glob("platform-api.*.yaml")
        if (m := _PLATFORM.fullmatch(p.name))
    ]
    return [p for _, p in sorted(found)]


def routes(shared: Path, platform: Path | None = None) -> dict[str, Path]:
    """URL path → file: the platform document (the newest unless named) and the other families'."""
    docs = platform_documents(shared)
    chosen = platform or (docs[-1] if docs else None)
    if chosen is None:
        raise SystemExit(f"no published platform document under {published_dir(shared)}")
    table = {SPEC_PATH: chosen}
    table.update({f"/{name}": published_dir(shared) / name for name in FAMILY_FILES.values()})
    return table


@contextlib.contextmanager
def serve(table: dict[str, Path]) -> Iterator[tuple[str, Path]]:
    """Serve ``table`` over HTTPS on 127.0.0.1; yields (base URL, CA bundle path)."""
    import trustme

    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    files = {path: file.read_bytes() for path, file in table.items()}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = files.get(self.path.split("?", 1)[0])
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/yaml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    with tempfile.TemporaryDirectory() as tmp:
        bundle = Path(tmp) / "ca.pem"
        ca.cert_pem.write_to_path(str(bundle))
        try:
            yield f"https://127.0.0.1:{server.server_address[1]}", bundle
        finally:
            server.shutdown()
            server.server_close()


def fetch_commands(base_url: str, bundle: Path) -> list[list[str]]:
    """The ``cube-codegen fetch`` calls that snapshot every family, as a maintainer runs them."""
    common = ["--ca-bundle", str(bundle)]
    commands = [["fetch", "--family", "platform", "--base-url", base_url, *common]]
    for family, name in FAMILY_FILES.items():
        commands.append(["fetch", "--family", family, "--url", f"{base_url}/{name}", *common])
    return commands


def snapshot(shared: Path, project: Path, platform: Path | None = None) -> list[str]:
    """Run every fetch in ``project``; returns their outputs. Raises on the first failure."""
    cli = Path(sys.executable).with_name("cube-codegen")
    env = {**os.environ, "CUBE_API_KEY": "loopback-snapshot-token"}
    env.pop("CUBE_BASE_URL", None)
    outputs = []
    with serve(routes(shared, platform)) as (base_url, bundle):
        for args in fetch_commands(base_url, bundle):
            done = subprocess.run(
                [str(cli), *args], cwd=project, env=env, capture_output=True, text=True, check=False
            )
            if done.returncode != 0:
                raise RuntimeError(f"cube-codegen {args[0]} {args[2]}: {done.stderr.strip()}")
            outputs.append(done.stdout)
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, required=True)
    parser.add_argument("--project", type=Path, default=Path())
    args = parser.parse_args()
    for output in snapshot(args.shared.resolve(), args.project.resolve()):
        sys.stdout.write(output)


if __name__ == "__main__":
    main()
