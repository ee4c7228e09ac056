"""Every example of the package README runs, unchanged, against a trustme HTTPS server on
127.0.0.1: the credential and server come from the environment, as the examples say."""

from __future__ import annotations

import os
import re
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
from runtime_servers import API_KEY, Exchange, LocalServer

from tests.helpers import PACKAGE_ROOT

README = PACKAGE_ROOT / "README.md"
EXAMPLE = re.compile(r"<!-- example -->\n```python\n(.*?)```", re.DOTALL)
EXAMPLES = EXAMPLE.findall(README.read_text(encoding="utf-8"))
CALL = re.compile(r"client\.(\w+)\.(\w+)\(\)")


def _page_body() -> dict[str, Any]:
    """A two-item last page in the shape of the operation the examples list."""
    from cube_client import PlatformClient

    attr, method = CALL.search("".join(EXAMPLES)).groups()  # type: ignore[union-attr]
    client = PlatformClient(api_key="k", base_url="https://x.example")
    module = sys.modules[type(getattr(client, attr)).__module__]
    spec = vars(module)[f"_{method.upper()}_PAGES"]
    body: dict[str, Any] = {}
    node = body
    for key in spec.items[:-1]:
        node = node.setdefault(key, {})
    node[spec.items[-1]] = [{"id": "i1", "name": "one"}, {"id": "i2", "name": "two"}]
    if spec.total:
        node = body
        for key in spec.total[:-1]:
            node = node.setdefault(key, {})
        node[spec.total[-1]] = 2
    return body


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalServer, Path]]:
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    server = LocalServer(ssl_context=context).start()
    body = _page_body()

    @server.route("GET", "*")
    def reply(ex: Exchange) -> None:
        if ex.seen.headers.get("authorization") != f"Bearer {API_KEY}":
            ex.error(401, "invalid token")
        else:
            ex.json(200, body)

    folder = tmp_path_factory.mktemp("readme")
    ca.cert_pem.write_to_path(str(folder / "corp-ca.pem"))
    try:
        yield server, folder
    finally:
        server.stop()


def _run(
    code: str, server: LocalServer, folder: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    environ = {
        **{k: v for k, v in os.environ.items() if k != "CUBE_LOG"},
        "PYTHONPATH": str(PACKAGE_ROOT),
        "CUBE_API_KEY": API_KEY,
        "CUBE_BASE_URL": server.url,
        "SSL_CERT_FILE": str(folder / "corp-ca.pem"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        cwd=folder,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_readme_has_the_examples() -> None:
    text = README.read_text(encoding="utf-8")
    for heading in (
        "## Timeouts and defaults",
        "## Extra query, headers and body",
        "## Custom CA or proxy",
        "## HTTP library: httpx2",
        "## Error handling",
        "## Logging",
        "## Async pagination",
    ):
        assert heading in text
    assert "## Telling the maintainers what the service sends" in text
    assert len(EXAMPLES) == 9


def test_recording_example_writes_shapes_and_no_values(tls: tuple[LocalServer, Path]) -> None:
    """The page the server answers lacks fields the document requires: the example records
    those differences, and neither the item values nor the credential."""
    server, folder = tls
    (code,) = [e for e in EXAMPLES if "record_shapes=" in e]
    proc = _run(code, server, folder)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = (folder / "shapes" / "shapes.jsonl").read_text(encoding="utf-8")
    assert '"kind": "required-missing"' in text
    for value in ("i1", "one", "two", API_KEY):
        assert value not in text


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_runs(tls: tuple[LocalServer, Path], index: int) -> None:
    server, folder = tls
    before = len(server.seen())
    proc = _run(EXAMPLES[index], server, folder)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(server.seen()) > before  # it reached the server
    assert API_KEY not in proc.stdout + proc.stderr


def test_error_example_reports_a_bad_credential(tls: tuple[LocalServer, Path]) -> None:
    server, folder = tls
    (code,) = [e for e in EXAMPLES if "except AuthenticationError" in e]
    proc = _run(code, server, folder, CUBE_API_KEY="wrong-key")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "check the credential: 401 invalid token" in proc.stdout


def test_logging_example_and_switch_log_requests_without_credentials(
    tls: tuple[LocalServer, Path],
) -> None:
    server, folder = tls
    (code,) = [e for e in EXAMPLES if "logging.basicConfig" in e]
    for env in ({}, {"CUBE_LOG": "debug"}):
        proc = _run(
            code if not env else code.replace("logging.getLogger", "# "), server, folder, **env
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "Request GET" in proc.stderr and "-> 200" in proc.stderr
        assert "[redacted]" in proc.stderr and API_KEY not in proc.stderr


def test_async_pagination_example_walks_items(tls: tuple[LocalServer, Path]) -> None:
    server, folder = tls
    (code,) = [e for e in EXAMPLES if "async for" in e]
    proc = _run(code, server, folder)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("i1") == 1 and "2 False" in proc.stdout
