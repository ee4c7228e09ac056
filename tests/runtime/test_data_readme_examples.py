"""What the package README's data examples print, run unchanged against a loopback HTTPS server
answering as a Cube deployment does (Continue wait twice, then the result; the result shapes; a
build job that runs, then completes). test_readme_examples runs and type-checks every block
(these on its ``cube-data`` server); this module checks their output."""

from __future__ import annotations

import os
import re
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
from cube_data_server import BASE, CubeDataServer
from runtime_servers import LocalServer

from tests.helpers import PACKAGE_ROOT

README = PACKAGE_ROOT / "README.md"
EXAMPLES = re.findall(
    r"<!-- example: server=cube-data -->\n```python\n(.*?)```",
    README.read_text(encoding="utf-8"),
    re.DOTALL,
)


@pytest.fixture(scope="module")
def cube(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CubeDataServer, Path]]:
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    server = LocalServer(ssl_context=context).start()
    folder = tmp_path_factory.mktemp("data-readme")
    ca.cert_pem.write_to_path(str(folder / "ca.pem"))
    try:
        yield CubeDataServer(server), folder
    finally:
        server.stop()


def test_the_data_section_has_its_examples() -> None:
    assert len(EXAMPLES) == 3


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_runs(cube: tuple[CubeDataServer, Path], index: int) -> None:
    data, folder = cube
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CUBE_")},
        "PYTHONPATH": str(PACKAGE_ROOT),
        "CUBE_DATA_API_URL": data.server.url + BASE,
        "CUBE_DATA_API_TOKEN": "jwt-token",
        "SSL_CERT_FILE": str(folder / "ca.pem"),
    }
    done = subprocess.run(
        [sys.executable, "-c", EXAMPLES[index]],
        cwd=folder, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    seen = data.server.seen()
    assert seen and all(s.headers.get("authorization") == "jwt-token" for s in seen)
    if index == 0:
        assert out.count("still running:") == 2 and "weekly-report-1\n" in out
        assert "shipped 6\n" in out and "pending 8\n" in out  # counts typed as int
    elif index == 1:
        assert "MissingExtraError" not in out and ("pip install" in out or "int64" in out)
    else:
        assert "orders__count" in out and "['orders_view']" in out
        assert "done 2\n" in out and "HEALTH HEALTH" in out
