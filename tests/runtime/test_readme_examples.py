"""The READMEs are code: every ```python block of the project README and of the generated
package's README is type-checked with ``mypy --strict`` (one run over all blocks) and run, as
written, against a trustme HTTPS server on 127.0.0.1.

How a block is run (the convention for anyone adding an example)
    Nothing to do for a block that calls the operations below: each block is found on its own
    (any ```python fence) and runs in a process of its own (forked from a server that imported
    httpx2 and pydantic once, tests/cli_zygote.py; a fresh interpreter with
    ``CUBE_TESTS_FRESH_CLI=1``) whose environment points every client at the loopback server,
    as the README tells users to: ``CUBE_BASE_URL`` (platform, SCIM),
    ``CUBE_DATA_API_URL``, ``CUBE_AI_URL`` (the agent's full address), the credentials
    ``CUBE_API_KEY``, ``CUBE_SCIM_TOKEN``, ``CUBE_DATA_API_TOKEN``, ``CUBE_AGENT_API_KEY``, and
    ``SSL_CERT_FILE`` (the test CA, also written to ``corp-ca.pem`` in the working folder). A
    block must exit 0, reach the server and print no credential; a ``ResponseValidationWarning``
    (any UserWarning) fails it, so the answers must match the document.
    The server answers the operations in :data:`ROUTES` (method, path pattern, answer); a block
    calling another operation gets a 404: add a route. A block that needs a server of its own
    says so on the line before its fence with ``<!-- example: server=NAME -->``, NAME a key of
    :data:`SERVERS` (a function adding routes to a fresh server); ``<!-- example -->`` alone is
    the default server; ``server=cube-data`` is a server answering as a Cube deployment does
    (Continue wait, the three result shapes, build jobs).
    Never rewrite a block in the test: change the README instead.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import ssl
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trustme
from cube_data_server import CubeDataServer
from runtime_servers import API_KEY, Exchange, LocalServer

from tests import cli_zygote_client
from tests.helpers import PACKAGE_ROOT, ROOT, check_user_code

READMES = {"README.md": ROOT / "README.md", "package-README.md": PACKAGE_ROOT / "README.md"}
FENCE = re.compile(
    r"(?:<!-- example(?:: *(?P<opts>[^>]*?))? *-->\n)?```python\n(?P<code>.*?)```", re.DOTALL
)
AGENT_PATH = "/api/v1/public/acme/agents/42"


@dataclass(frozen=True)
class Block:
    name: str  # readme name and line, e.g. package-README.md:45
    code: str
    server: str

    @property
    def module(self) -> str:
        return re.sub(r"\W", "_", self.name).lower()


def _blocks_in(name: str, text: str) -> list[Block]:
    """Every ```python fence of one README, named by its first line, with its server."""
    found = []
    for match in FENCE.finditer(text):
        opts = dict(
            part.split("=", 1) for part in (match.group("opts") or "").split() if "=" in part
        )
        line = text.count("\n", 0, match.start("code"))
        found.append(Block(f"{name}:{line}", match.group("code"), opts.get("server", "cube")))
    return found


BLOCKS = [
    block
    for name, path in READMES.items()
    for block in _blocks_in(name, path.read_text(encoding="utf-8"))
]

# --------------------------------------------------------------------------- the default server

PDF = b"%PDF-1.7\nexample\n%%EOF\n"


def _expires() -> str:
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=10)
    return later.isoformat(timespec="seconds").replace("+00:00", "Z")


def _json(body: Any, status: int = 200) -> Callable[[Exchange], None]:
    return lambda ex: ex.json(status, body() if callable(body) else body)


def _bytes(body: bytes, media: str) -> Callable[[Exchange], None]:
    return lambda ex: ex.send(200, body, {"Content-Type": media})


def _lines(*items: dict[str, Any]) -> Callable[[Exchange], None]:
    body = b"".join(json.dumps(item).encode() + b"\n" for item in items)
    return _bytes(body, "application/jsonl")


API_KEYS = [
    {
        "id": n,
        "name": f"key-{n}",
        "suffix": "x1",
        "createdAt": "2024-01-02",
        "updatedAt": "2024-01-03",
        "userId": 3,
    }
    for n in (1, 2)
]
DEPLOYMENT = {"id": 7, "name": "d", "creationStep": "ready", "deploymentUrl": "https://d.example"}

ROUTES: list[tuple[str, str, Callable[[Exchange], None]]] = [
    ("GET", r"/api/v1/api-keys/[^/]+", _json(API_KEYS[0])),
    ("GET", r"/api/v1/api-keys", _json({"items": API_KEYS, "pageInfo": {"hasNextPage": False}})),
    (
        "GET",
        r"/api/v1/deployments",
        _json({"items": [DEPLOYMENT], "pageInfo": {"hasNextPage": False}}),
    ),
    (
        "POST",
        r"/api/v1/deployments/\d+/dashboard-exports",
        _json(lambda: {"jobId": "job-1", "expiresAt": _expires()}, 201),
    ),
    ("GET", r"/api/v1/deployments/\d+/dashboard-exports/[^/]+", _json({"status": "completed"})),
    (
        "GET",
        r"/api/v1/deployments/\d+/dashboard-exports/[^/]+/download",
        _bytes(PDF, "application/pdf"),
    ),
    ("GET", r"/api/v1/audit-logs/export", _bytes(b"event,user\nlogin,a@b.example\n", "text/csv")),
    (
        "GET",
        r"/api/scim/v2/Users",
        _json(
            {
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
                "totalResults": 1,
                "startIndex": 1,
                "itemsPerPage": 1,
                "Resources": [{"id": "u1", "userName": "ada@example.com", "active": True}],
            }
        ),
    ),
    ("POST", r"/cubejs-api/v1/load", _json({"queryType": "regularQuery", "results": []})),
    ("POST", r"/cubejs-api/v1/cubesql", _lines({"schema": [{"name": "n"}]}, {"data": [[1]]})),
    ("POST", AGENT_PATH + r"/chat/abort", lambda ex: ex.send(204)),
    (
        "POST",
        AGENT_PATH + r"/chat/stream-chat-state",
        _lines(
            {"id": "m1", "role": "assistant", "content": "hi"}, {"id": "__usage__", "type": "usage"}
        ),
    ),
]


def _cube_routes(server: LocalServer) -> None:
    table = [(method, re.compile(path), answer) for method, path, answer in ROUTES]

    def dispatch(ex: Exchange) -> None:
        if not ex.seen.headers.get("authorization", "").split(" ")[-1].startswith(API_KEY):
            ex.error(401, "invalid token")
            return
        for method, path, answer in table:
            if method == ex.seen.method and path.fullmatch(ex.seen.path):
                answer(ex)
                return
        ex.error(404, f"no README route for {ex.seen.method} {ex.seen.path}")

    for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        server.route(method, "*")(dispatch)


SHAPES_SECRET = "k3y-name-n0t-for-records"


def _shapes_routes(server: LocalServer) -> None:
    """The API keys answered with a field the document does not list (kept quietly, recorded
    as a shape), its value and the names secret-like."""
    keys = [{**k, "name": SHAPES_SECRET, "rotatedBy": SHAPES_SECRET} for k in API_KEYS]
    server.route("GET", "/api/v1/api-keys")(
        _json({"items": keys, "pageInfo": {"hasNextPage": False}})
    )


def _cube_data_routes(server: LocalServer) -> None:
    """The data section's server: answers as a Cube deployment does (Continue wait, the result
    shapes, a build job), under the data API's default base path."""
    CubeDataServer(server)


SERVERS: dict[str, Callable[[LocalServer], None]] = {
    "cube": _cube_routes,
    "shapes": _shapes_routes,
    "cube-data": _cube_data_routes,
}

# --------------------------------------------------------------------------- running a block


@dataclass
class Site:
    servers: dict[str, LocalServer]
    folder: Path
    ca_file: Path


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    ca = trustme.CA()
    folder = tmp_path_factory.mktemp("readme")
    ca.cert_pem.write_to_path(str(folder / "corp-ca.pem"))
    servers = {}
    try:
        for name, add_routes in SERVERS.items():
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ca.issue_cert("127.0.0.1").configure_cert(context)
            servers[name] = LocalServer(ssl_context=context).start()
            add_routes(servers[name])
        yield Site(servers, folder, folder / "corp-ca.pem")
    finally:
        for server in servers.values():
            server.stop()


def _run(
    block: Block, site: Site, key: str = API_KEY, **env: str
) -> subprocess.CompletedProcess[str]:
    url = site.servers[block.server].url
    environ = {
        **{k: v for k, v in os.environ.items() if k != "CUBE_LOG"},
        "PYTHONPATH": str(PACKAGE_ROOT),
        "CUBE_BASE_URL": url,
        "CUBE_DATA_API_URL": url,
        "CUBE_AI_URL": url + AGENT_PATH,
        **dict.fromkeys(
            ("CUBE_API_KEY", "CUBE_SCIM_TOKEN", "CUBE_DATA_API_TOKEN", "CUBE_AGENT_API_KEY"),
            key,
        ),
        "SSL_CERT_FILE": str(site.ca_file),
        **env,
    }
    argv = [sys.executable, "-W", "error::UserWarning", "-c", block.code]
    flags = ("-W", "error::UserWarning")  # forked from a server started with these that
    forked = cli_zygote_client.run(  # imported httpx2 and pydantic once
        argv, [], site.folder, environ, 60, code=block.code, flags=flags, kind="python"
    )
    if forked is not None:
        return forked
    return subprocess.run(
        argv, check=False, cwd=site.folder, env=environ, capture_output=True, text=True, timeout=60
    )


def _only(text: str) -> Block:
    (block,) = [b for b in BLOCKS if text in b.code]
    return block


# --------------------------------------------------------------------------- the tests


def test_both_readmes_have_blocks() -> None:
    names = {b.name.split(":")[0] for b in BLOCKS}
    assert names == set(READMES)
    assert len(BLOCKS) >= 14
    assert all(b.server in SERVERS for b in BLOCKS), [b.name for b in BLOCKS]


def test_a_new_block_is_found_with_or_without_a_marker() -> None:
    text = (
        "Intro\n\n```python\nprint(1)\n```\n\n<!-- example -->\n```python\nprint(2)\n```\n"
        "<!-- example: server=other -->\n```python\nprint(3)\n```\n```sh\nls\n```\n"
    )
    found = _blocks_in("new.md", text)
    assert [(b.name, b.code, b.server) for b in found] == [
        ("new.md:3", "print(1)\n", "cube"),
        ("new.md:8", "print(2)\n", "cube"),
        ("new.md:12", "print(3)\n", "other"),
    ]


def test_every_block_passes_mypy_strict(tmp_path: Path) -> None:
    """One mypy run over every block, on a copy of the package's own cache (``make lint`` leaves
    it warm: about two seconds) or else the seeded one."""
    folder = tmp_path / "blocks"
    folder.mkdir()
    for block in BLOCKS:
        (folder / f"{block.module}.py").write_text(block.code, encoding="utf-8")
    proc = check_user_code(folder, tmp_path / "mypy-cache")
    names = {b.module: b.name for b in BLOCKS}
    report = re.sub(r"\S*/(\w+)\.py", lambda m: names.get(m.group(1), m.group(0)), proc.stdout)
    assert proc.returncode == 0, report[-4000:] + proc.stderr[-2000:]


Runs = dict[str, tuple[subprocess.CompletedProcess[str], list[str]]]


@pytest.fixture(scope="module")
def runs(site: Site) -> Runs:
    """Every block run once, four at a time, each with a credential of its own (``API_KEY``
    and a suffix) so that the server can tell which block sent what: by block name, the
    process and the paths of the requests it made. The tests of one block's output read its
    run here rather than start another interpreter."""

    def one(index: int) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        block = BLOCKS[index]
        key = f"{API_KEY}-block{index}"
        proc = _run(block, site, key)
        sent = [
            s.path
            for s in site.servers[block.server].seen()
            if s.headers.get("authorization", "").endswith(key)
        ]
        return proc, sent

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, range(len(BLOCKS))))
    return {b.name: r for b, r in zip(BLOCKS, results, strict=True)}


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs_as_written(runs: Runs, block: Block) -> None:
    proc, requests = runs[block.name]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert requests, "the block never reached the server"
    assert API_KEY not in proc.stdout + proc.stderr


def test_error_example_reports_a_bad_credential(site: Site) -> None:
    proc = _run(_only("except AuthenticationError"), site, CUBE_API_KEY="wrong-key")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "check the credential: 401 invalid token" in proc.stdout


def test_logging_example_and_switch_log_requests_without_credentials(site: Site) -> None:
    block = _only("logging.basicConfig")
    quiet = Block(block.name, block.code.replace("logging.getLogger", "# "), block.server)
    for code, env in ((block, {}), (quiet, {"CUBE_LOG": "debug"})):
        proc = _run(code, site, **env)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "Request GET" in proc.stderr and "-> 200" in proc.stderr
        assert "[redacted]" in proc.stderr and API_KEY not in proc.stderr


def test_limits_example_walks_items_within_its_limits(runs: Runs) -> None:
    proc, _ = runs[_only("Limits(").name]
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("'name'") == 2 and "paging stopped" not in proc.stdout


def test_async_pagination_example_walks_items(runs: Runs) -> None:
    proc, _ = runs[_only("async for item in").name]
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert out.count("key-1") == 1 and out.count("key-2") == 1 and "2 False" in out


def test_quick_starts_reach_every_operation_they_show(runs: Runs, site: Site) -> None:
    """The platform quick start submits a job, waits, downloads it and streams a CSV export;
    the chat one sends its abort and reads the stream to its final frame."""
    quick = [b for b in BLOCKS if "asyncio.run(main())" in b.code and "PlatformClient()" in b.code]
    assert quick
    proc, paths = runs[quick[0].name]
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (site.folder / "result.bin").read_bytes() == PDF
    assert (site.folder / "out.bin").read_bytes() == PDF
    assert "['login', 'a@b.example']" in proc.stdout
    assert any(p.endswith("/download") for p in paths), paths


def test_recording_block_writes_shapes_and_no_values(runs: Runs, site: Site) -> None:
    """The recording example against a server whose answers carry a field the document does not
    list: the shape is recorded, neither the values nor the credential."""
    (block,) = [b for b in BLOCKS if "record_shapes=" in b.code]
    assert block.server == "shapes"
    proc, requests = runs[block.name]
    assert proc.returncode == 0 and requests, proc.stderr[-2000:]
    text = (site.folder / "shapes" / "shapes.jsonl").read_text(encoding="utf-8")
    (line,) = [json.loads(x) for x in text.splitlines()]
    assert (line["kind"], line["pointer"], line["seen"]) == (
        "property-unknown",
        "/items/-/rotatedBy",
        {"type": "string"},
    )
    assert SHAPES_SECRET not in text and API_KEY not in text
