"""``cube-codegen fetch`` against a real HTTPS server on 127.0.0.1 with a trustme certificate.

Every failure must exit 2 with one line on stderr, leave the previous snapshot byte for byte, and
never print the token.
"""

from __future__ import annotations

import json
import ssl
import sys
import threading
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import trustme
import yaml
from click.testing import CliRunner, Result

from generator.cli.fetch import fetch
from generator.document.loader import dump_yaml

TOKEN = "tok-Sup3rSecret-4242"
OLD_SNAPSHOT = b"openapi: 3.1.0\ninfo: {title: old, version: '0'}\npaths: {}\n# old snapshot\n"

SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Cube Platform API", "version": "1.0.0"},
    "servers": [
        {"url": "https://{tenant}.cubecloud.dev", "variables": {"tenant": {"default": "t"}}}
    ],
    "paths": {
        "/api/v1/deployments": {
            "get": {"operationId": "listDeployments", "responses": {"200": {"description": "ok"}}}
        },
        "/api/v1/deployments/{deploymentId}": {
            "get": {
                "operationId": "getDeployment",
                "parameters": [
                    {
                        "name": "deploymentId",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer"},
                    }
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
    "components": {"schemas": {"Zeta": {"type": "string"}, "Alpha": {"type": "integer"}}},
}


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    wait: bool = False
    """Hold the reply until the test ends (the client's timeout must fire first)."""
    truncate: bool = False
    """Announce more bytes than are sent, then close the connection."""


def json_reply(doc: Any = SPEC) -> Reply:
    return Reply(body=json.dumps(doc).encode(), headers={"Content-Type": "application/json"})


def yaml_reply(doc: Any = SPEC) -> Reply:
    text = yaml.safe_dump(doc, sort_keys=False)
    return Reply(body=text.encode(), headers={"Content-Type": "application/yaml"})


class SpecServer:
    """Serves ``replies`` in order (the last one repeats) and records each request."""

    def __init__(self, cert: trustme.LeafCert | None) -> None:
        self.replies: list[Reply] = [json_reply()]
        self.requests: list[tuple[str, str]] = []
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append((self.path, self.headers.get("Authorization", "")))
                index = min(len(server.requests), len(server.replies)) - 1
                reply = server.replies[index]
                if reply.wait:
                    server.stop.wait(30)
                    return
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                length = len(reply.body) + (1000 if reply.truncate else 0)
                self.send_header("Content-Length", str(length))
                self.end_headers()
                self.wfile.write(reply.body)
                self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        class Server(ThreadingHTTPServer):
            daemon_threads = False
            block_on_close = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                del request, client_address  # a client that gave up; nothing to report

        self.httpd = Server(("127.0.0.1", 0), Handler)
        if cert is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            cert.configure_cert(context)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        scheme = "https" if cert is not None else "http"
        self.base_url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def ca_file(ca: trustme.CA, tmp_path: Path) -> Path:
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path


@pytest.fixture
def server(ca: trustme.CA) -> Iterator[SpecServer]:
    srv = SpecServer(ca.issue_cert("127.0.0.1"))
    yield srv
    srv.close()


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "spec" / "platform-api.yaml"
    path.parent.mkdir()
    path.write_bytes(OLD_SNAPSHOT)
    return path


def run_fetch(
    server_url: str, out: Path, ca_file: Path | None, *extra: str, **env: str | None
) -> Result:
    args = [
        "--base-url",
        server_url,
        "--out",
        str(out),
        "--overlays",
        str(out.parent / "no-overlays"),
        "--config",
        str(out.parent / "no-config.yaml"),  # outside a project: prose kept, --out as given
    ]
    if ca_file is not None:
        args += ["--ca-bundle", str(ca_file)]
    environment: dict[str, str | None] = {
        "CUBE_API_KEY": TOKEN,
        "CUBE_BASE_URL": None,
        "SSL_CERT_FILE": None,
        "CUBE_CODEGEN_ALLOW_INSECURE_LOOPBACK": None,
    }
    environment.update(env)
    return CliRunner().invoke(fetch, [*args, *extra], env=environment, catch_exceptions=False)


def assert_failed(result: Result, snapshot: Path, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0]
    assert TOKEN not in result.output
    assert snapshot.read_bytes() == OLD_SNAPSHOT
    assert sorted(p.name for p in snapshot.parent.iterdir()) == [snapshot.name]  # no temp files


def test_json_body_is_written_as_normalised_yaml(
    server: SpecServer, ca_file: Path, snapshot: Path
) -> None:
    result = run_fetch(server.base_url, snapshot, ca_file)
    assert result.exit_code == 0, result.output
    assert snapshot.read_text(encoding="utf-8") == dump_yaml(SPEC)
    loaded = yaml.safe_load(snapshot.read_text(encoding="utf-8"))
    assert loaded == SPEC
    assert list(loaded["components"]["schemas"]) == ["Zeta", "Alpha"]  # served order, not sorted
    assert server.requests == [("/api/v1/spec", f"Bearer {TOKEN}")]
    assert "wrote" in result.stdout and "2 operations" in result.stdout
    assert TOKEN not in result.output


def test_yaml_and_json_bodies_give_identical_snapshots(
    server: SpecServer, ca_file: Path, snapshot: Path, tmp_path: Path
) -> None:
    server.replies = [yaml_reply()]
    assert run_fetch(server.base_url, snapshot, ca_file).exit_code == 0
    from_yaml = snapshot.read_bytes()
    second = run_fetch(server.base_url, snapshot, ca_file)
    assert second.exit_code == 0
    assert "unchanged" in second.stdout
    assert snapshot.read_bytes() == from_yaml
    server.replies = [json_reply()]
    other = tmp_path / "spec" / "from-json.yaml"
    assert run_fetch(server.base_url, other, ca_file).exit_code == 0
    assert other.read_bytes() == from_yaml


def test_unauthorised(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    server.replies = [Reply(status=401, body=b'{"error": "bad token"}')]
    assert_failed(run_fetch(server.base_url, snapshot, ca_file), snapshot, "401")


def test_forbidden(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    server.replies = [Reply(status=403)]
    assert_failed(run_fetch(server.base_url, snapshot, ca_file), snapshot, "403")


def test_not_found(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    server.replies = [Reply(status=404)]
    assert_failed(run_fetch(server.base_url, snapshot, ca_file), snapshot, "404", "/api/v1/spec")
    assert len(server.requests) == 1  # 404 is not retried


def test_503_then_success_is_retried(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    server.replies = [Reply(status=503, headers={"Retry-After": "0"}), json_reply()]
    result = run_fetch(server.base_url, snapshot, ca_file)
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 2
    assert snapshot.read_text(encoding="utf-8") == dump_yaml(SPEC)


def test_429_is_retried(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    server.replies = [Reply(status=429, headers={"Retry-After": "0"}), json_reply()]
    assert run_fetch(server.base_url, snapshot, ca_file).exit_code == 0
    assert len(server.requests) == 2


def test_persistent_5xx_gives_up_after_bounded_retries(
    server: SpecServer, ca_file: Path, snapshot: Path
) -> None:
    server.replies = [Reply(status=502, headers={"Retry-After": "0"})]
    assert_failed(run_fetch(server.base_url, snapshot, ca_file), snapshot, "HTTP 502", "4 attempts")
    assert len(server.requests) == 4


def test_a_retry_after_beyond_the_timeout_fails_at_once(
    server: SpecServer, ca_file: Path, snapshot: Path
) -> None:
    """``--timeout 5`` bounds the wait too: a 503 asking for 25 s is reported, not waited for."""
    server.replies = [Reply(status=503, headers={"Retry-After": "25"}), json_reply()]
    started = time.monotonic()
    result = run_fetch(server.base_url, snapshot, ca_file, "--timeout", "5")
    assert_failed(result, snapshot, "HTTP 503", "retry after 25 s")
    assert len(server.requests) == 1
    assert time.monotonic() - started < 25  # never slept the 25 s it was asked to


def test_slow_server_times_out(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    server.replies = [Reply(wait=True)]
    result = run_fetch(server.base_url, snapshot, ca_file, "--timeout", "0.5")
    assert_failed(result, snapshot, "timed out")


def test_truncated_body(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    full = json.dumps(SPEC).encode()
    server.replies = [Reply(body=full[: len(full) // 2], truncate=True)]
    assert_failed(run_fetch(server.base_url, snapshot, ca_file), snapshot, "truncated")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b'{"openapi": "3.1.0", "info": {', "malformed JSON"),
        (b'{"hello": "world"}', "not an OpenAPI 3 document"),
        (
            b"swagger: '2.0'\ninfo: {title: x, version: '1'}\npaths: {}\n",
            "not an OpenAPI 3 document",
        ),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
    ],
)
def test_invalid_bodies(
    server: SpecServer, ca_file: Path, snapshot: Path, body: bytes, needle: str
) -> None:
    server.replies = [Reply(body=body)]
    assert_failed(run_fetch(server.base_url, snapshot, ca_file), snapshot, needle)


def test_untrusted_certificate_is_refused(server: SpecServer, snapshot: Path) -> None:
    result = run_fetch(server.base_url, snapshot, None)
    assert_failed(result, snapshot, "cannot connect", "not trusted", "--ca-bundle", "SSL_CERT_FILE")
    assert server.requests == []


def test_ssl_cert_file_is_honoured(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    result = run_fetch(server.base_url, snapshot, None, SSL_CERT_FILE=str(ca_file))
    assert result.exit_code == 0, result.output


def test_missing_token(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    result = run_fetch(server.base_url, snapshot, ca_file, CUBE_API_KEY=None)
    assert_failed(result, snapshot, "no token")
    assert server.requests == []


def test_token_from_option(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    result = run_fetch(
        server.base_url, snapshot, ca_file, "--token", "other-Token-77", CUBE_API_KEY=None
    )
    assert result.exit_code == 0
    assert server.requests == [("/api/v1/spec", "Bearer other-Token-77")]
    assert "other-Token-77" not in result.output


def test_plain_http_is_refused(snapshot: Path) -> None:
    plain = SpecServer(None)
    try:
        result = run_fetch(plain.base_url, snapshot, None)
        assert_failed(result, snapshot, "refusing plain http")
        assert plain.requests == []
    finally:
        plain.close()


def test_plain_http_loopback_needs_the_opt_in_and_127_0_0_1(snapshot: Path) -> None:
    plain = SpecServer(None)
    try:
        port = plain.base_url.rsplit(":", 1)[1]
        named = run_fetch(
            f"http://localhost:{port}", snapshot, None, CUBE_CODEGEN_ALLOW_INSECURE_LOOPBACK="1"
        )
        assert_failed(named, snapshot, "refusing plain http")
        result = run_fetch(plain.base_url, snapshot, None, CUBE_CODEGEN_ALLOW_INSECURE_LOOPBACK="1")
        assert result.exit_code == 0, result.output
        assert plain.requests == [("/api/v1/spec", f"Bearer {TOKEN}")]
    finally:
        plain.close()


def test_base_url_path_is_kept(server: SpecServer, ca_file: Path, snapshot: Path) -> None:
    result = run_fetch(server.base_url + "/tenant-a/", snapshot, ca_file)
    assert result.exit_code == 0
    assert server.requests[0][0] == "/tenant-a/api/v1/spec"


def _fake_engine(monkeypatch: pytest.MonkeyPatch, seen: list[Any]) -> None:
    """An overlay engine whose one action matches nothing in any document."""
    module = types.ModuleType("generator.overlay")

    def load_overlay(path: str) -> str:
        return path

    def apply_overlays(document: Any, overlays: list[str], **kwargs: Any) -> Any:
        seen.append(document)
        outcome = types.SimpleNamespace(
            overlay_file=overlays[0],
            index=0,
            target="$.paths['/api/v1/gone'].get",
            status="unmatched",
            description="",
        )
        return types.SimpleNamespace(outcomes=(outcome,))

    module.load_overlay = load_overlay  # type: ignore[attr-defined]
    module.apply_overlays = apply_overlays  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "generator.overlay", module)


def _overlay_folder(snapshot: Path, target: str = "$.paths['/api/v1/gone'].get") -> Path:
    folder = snapshot.parent / "overlays"
    folder.mkdir()
    (folder / "names.overlay.yaml").write_text(
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n"
        f'  - target: "{target}"\n    update: {{summary: Gone}}\n',
        encoding="utf-8",
    )
    return folder


def _fetch_args(server: SpecServer, ca_file: Path, snapshot: Path, folder: Path) -> list[str]:
    args = ["--base-url", server.base_url, "--out", str(snapshot), "--ca-bundle", str(ca_file)]
    return [*args, "--config", str(snapshot.parent / "no-config.yaml"), "--overlays", str(folder)]


def test_unmatched_overlays_after_a_fetch_exit_1_and_write_nothing(
    server: SpecServer, ca_file: Path, snapshot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _overlay_folder(snapshot)
    seen: list[Any] = []
    _fake_engine(monkeypatch, seen)
    args = _fetch_args(server, ca_file, snapshot, folder)
    result = CliRunner().invoke(fetch, args, env={"CUBE_API_KEY": TOKEN})
    assert result.exit_code == 1, result.output
    assert seen == [SPEC]
    assert "names.overlay.yaml action 0 unmatched: $.paths['/api/v1/gone'].get" in result.stdout
    assert "not written" in result.stdout and "--accept-unmatched" in result.stderr
    assert snapshot.read_bytes() == OLD_SNAPSHOT
    assert sorted(p.name for p in snapshot.parent.iterdir()) == sorted([snapshot.name, "overlays"])


def test_accept_unmatched_writes_the_snapshot(
    server: SpecServer, ca_file: Path, snapshot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _overlay_folder(snapshot)
    _fake_engine(monkeypatch, [])
    args = [*_fetch_args(server, ca_file, snapshot, folder), "--accept-unmatched"]
    result = CliRunner().invoke(fetch, args, env={"CUBE_API_KEY": TOKEN})
    assert result.exit_code == 0, result.output
    assert "written (--accept-unmatched)" in result.stdout
    assert snapshot.read_text(encoding="utf-8") == dump_yaml(SPEC)


def test_unmatched_overlays_with_the_real_engine(
    server: SpecServer, ca_file: Path, snapshot: Path
) -> None:
    """The project's overlay engine, an action on a path the fetched document does not have."""
    folder = _overlay_folder(snapshot)
    args = _fetch_args(server, ca_file, snapshot, folder)
    result = CliRunner().invoke(fetch, args, env={"CUBE_API_KEY": TOKEN})
    assert result.exit_code == 1, result.output
    assert "unmatched" in result.stdout
    assert snapshot.read_bytes() == OLD_SNAPSHOT
    # an overlay that still matches lets the snapshot through
    (folder / "names.overlay.yaml").unlink()
    folder.rmdir()
    folder = _overlay_folder(snapshot, "$.info")
    result = CliRunner().invoke(fetch, args, env={"CUBE_API_KEY": TOKEN})
    assert result.exit_code == 0, result.output
    assert "apply cleanly" in result.stdout
    assert snapshot.read_text(encoding="utf-8") == dump_yaml(SPEC)


def test_overlay_engine_missing_is_a_note_not_a_failure(
    server: SpecServer, ca_file: Path, snapshot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = snapshot.parent / "overlays"
    folder.mkdir()
    (folder / "a.overlay.yaml").write_text("overlay: 1.0.0\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "generator.overlay", None)
    args = ["--base-url", server.base_url, "--out", str(snapshot), "--ca-bundle", str(ca_file)]
    args += ["--config", str(snapshot.parent / "no-config.yaml")]
    result = CliRunner().invoke(
        fetch, [*args, "--overlays", str(folder)], env={"CUBE_API_KEY": TOKEN}
    )
    assert result.exit_code == 0
    assert "overlays: not checked (overlay engine not available" in result.stdout
    assert snapshot.read_text(encoding="utf-8") == dump_yaml(SPEC)


PROSE_SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "T", "version": "1", "description": "Words of the service's authors."},
    "tags": [{"name": "Things", "description": "More of their words."}],
    "paths": {
        "/things": {
            "get": {
                "operationId": "listThings",
                "summary": "List things",
                "x-mint": {"content": "A page of their documentation."},
                "parameters": [
                    {"name": "q", "in": "query", "description": "Their words.", "example": "x"}
                ],
                "responses": {
                    "200": {
                        "description": "Their words about the answer.",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/Thing"},
                                "examples": {"one": {"value": {"description": "sample"}}},
                            }
                        },
                    }
                },
            }
        }
    },
    "components": {
        "schemas": {
            "Thing": {
                "type": "object",
                "description": "Their words about a thing.",
                "required": ["description"],
                "properties": {  # a property *named* description is structure and stays
                    "description": {"type": "string", "description": "Their words."},
                    "kind": {"enum": ["a", "b"], "default": "a"},
                },
            }
        }
    },
}


def _walk_keys(node: Any) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            found.append((key, value))
            found += _walk_keys(value)
    elif isinstance(node, list):
        for value in node:
            found += _walk_keys(value)
    return found


def test_structure_only_keeps_structure_and_drops_prose(
    server: SpecServer, ca_file: Path, snapshot: Path
) -> None:
    server.replies = [json_reply(PROSE_SPEC)]
    result = run_fetch(server.base_url, snapshot, ca_file, "--structure-only")
    assert result.exit_code == 0, result.output
    assert "structure only" in result.stdout
    written = yaml.safe_load(snapshot.read_text(encoding="utf-8"))
    text = snapshot.read_text(encoding="utf-8")
    assert "words" not in text.lower() and "documentation" not in text and "sample" not in text
    thing = written["components"]["schemas"]["Thing"]
    assert thing["required"] == ["description"]
    assert thing["properties"]["description"] == {"type": "string"}
    assert thing["properties"]["kind"] == {"enum": ["a", "b"], "default": "a"}
    op = written["paths"]["/things"]["get"]
    assert op["operationId"] == "listThings" and op["parameters"] == [{"name": "q", "in": "query"}]
    assert op["responses"]["200"]["description"] == ""  # required by OpenAPI, so kept empty
    assert not [k for k, _ in _walk_keys(written) if str(k).startswith("x-")]


def test_project_config_chooses_the_family_snapshot_and_prose_rule(
    server: SpecServer, ca_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / "spec").mkdir(parents=True)
    (project / "spec" / "cube-codegen.yaml").write_text(
        "package: {name: p, distribution: p}\n"
        "snapshot: {structure_only: true}\n"
        "families:\n"
        "  - {name: first, document: first.yaml, module: first, client: First}\n"
        "  - {name: second, document: second.yaml, module: second, client: Second}\n",
        encoding="utf-8",
    )
    server.replies = [json_reply(PROSE_SPEC)]
    config = str(project / "spec" / "cube-codegen.yaml")
    args = ["--base-url", server.base_url, "--ca-bundle", str(ca_file), "--config", config]
    result = CliRunner().invoke(
        fetch, [*args, "--family", "second"], env={"CUBE_API_KEY": TOKEN, "CUBE_BASE_URL": None}
    )
    assert result.exit_code == 0, result.output
    written = project / "spec" / "second.yaml"
    assert written.is_file() and not (project / "spec" / "first.yaml").exists()
    assert "words" not in written.read_text(encoding="utf-8").lower()
    assert "overlays: none configured for this family" in result.stdout
    result = CliRunner().invoke(fetch, [*args, "--family", "third"], env={"CUBE_API_KEY": TOKEN})
    assert result.exit_code == 2
    assert "no family 'third' (known: first, second)" in result.stderr


def test_document_url_needs_no_token_and_sends_none(
    server: SpecServer, ca_file: Path, snapshot: Path
) -> None:
    args = ["--url", server.base_url + "/docs/api.json", "--out", str(snapshot)]
    args += ["--ca-bundle", str(ca_file), "--config", str(snapshot.parent / "no-config.yaml")]
    args += ["--overlays", str(snapshot.parent / "no-overlays")]
    result = CliRunner().invoke(fetch, args, env={"CUBE_API_KEY": None, "CUBE_BASE_URL": None})
    assert result.exit_code == 0, result.output
    assert server.requests == [("/docs/api.json", "")]  # the path as given, no Authorization
    result = CliRunner().invoke(
        fetch, [*args, "--base-url", server.base_url], env={"CUBE_API_KEY": TOKEN}
    )
    assert result.exit_code == 2
    assert "exactly one of --base-url" in result.stderr


def test_environment_token_reaches_only_the_tenant_host(
    server: SpecServer, ca: trustme.CA, ca_file: Path, snapshot: Path
) -> None:
    """``$CUBE_API_KEY`` is the tenant's: sent to its base URL, never to another host named with
    ``--url`` (a second loopback host here), unless ``--token`` is given for that fetch."""
    other = SpecServer(ca.issue_cert("127.0.0.1"))
    try:
        args = ["--ca-bundle", str(ca_file), "--config", str(snapshot.parent / "no-config.yaml")]
        args += ["--overlays", str(snapshot.parent / "no-overlays"), "--out", str(snapshot)]
        env = {"CUBE_API_KEY": TOKEN, "CUBE_BASE_URL": None}
        tenant = CliRunner().invoke(fetch, [*args, "--base-url", server.base_url], env=env)
        assert tenant.exit_code == 0, tenant.output
        assert server.requests == [("/api/v1/spec", f"Bearer {TOKEN}")]
        third = CliRunner().invoke(fetch, [*args, "--url", other.base_url + "/doc.json"], env=env)
        assert third.exit_code == 0, third.output
        assert other.requests == [("/doc.json", "")]
        assert "not to a --url host" in third.stderr
        given = CliRunner().invoke(
            fetch, [*args, "--url", other.base_url + "/doc.json", "--token", "explicit"], env=env
        )
        assert given.exit_code == 0, given.output
        assert other.requests[-1] == ("/doc.json", "Bearer explicit")
    finally:
        other.close()
