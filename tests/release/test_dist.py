"""``make dist`` builds and checks the generated package; the release is published to a real
package index on loopback (pypiserver), installed by version into a fresh virtual environment,
and the installed client calls a loopback HTTPS server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
import yaml

from tests.helpers import ROOT
from tests.release.servers import ca_file, serving

BIN = Path(sys.executable).parent
TOKEN = "dist-token-77"


def _version() -> str:
    config = yaml.safe_load((ROOT / "spec" / "cube-codegen.yaml").read_text())
    return str(config["package"]["version"])


def _run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        **kwargs,  # type: ignore[call-overload]
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def index(tmp_path: Path) -> Iterator[str]:
    """A pypiserver on 127.0.0.1 taking anonymous uploads into an empty folder."""
    packages = tmp_path / "index"
    packages.mkdir()
    port = _free_port()
    proc = subprocess.Popen(
        [
            str(BIN / "pypi-server"),
            "run",
            "-i",
            "127.0.0.1",
            "-p",
            str(port),
            "-a",
            ".",
            "-P",
            ".",
            "--disable-fallback",
            str(packages),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{url}/simple/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("pypiserver did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# The package installed by version into a venv of its own: a check make test-heavy runs (see the
# README's test section); make test still builds and checks the distribution through the release
# job's steps (tests/release/test_workflow.py).
@pytest.mark.heavy
def test_dist_publish_install_and_call(tmp_path: Path, index: str) -> None:
    dist = tmp_path / "dist"
    made = _run("make", "--no-print-directory", "-C", str(ROOT), "dist", f"DIST={dist}")
    assert made.returncode == 0, made.stdout + made.stderr
    version = _version()
    built = sorted(p.name for p in dist.iterdir() if not p.name.startswith("."))
    assert built == [f"cube_client-{version}-py3-none-any.whl", f"cube_client-{version}.tar.gz"]
    assert made.stdout.count("PASSED") == 2  # twine check --strict, both files
    assert not list((ROOT / "generated").rglob("*.egg-info"))

    upload = _run(
        "make",
        "--no-print-directory",
        "-C",
        str(ROOT),
        "publish",
        f"DIST={dist}",
        f"PUBLISH_URL={index}",
        env={**os.environ, "TWINE_USERNAME": "ci", "TWINE_PASSWORD": "unused"},
    )
    assert upload.returncode == 0, upload.stdout + upload.stderr
    listing = urllib.request.urlopen(f"{index}/simple/cube-client/", timeout=5).read().decode()
    assert f"cube_client-{version}-py3-none-any.whl" in listing

    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", "--without-pip", str(venv)).returncode == 0
    python = venv / "bin" / "python"
    report = tmp_path / "report.json"
    install = _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "--quiet",
        "--index-url",
        f"{index}/simple/",
        "--report",
        str(report),
        f"cube-client=={version}",
    )
    assert install.returncode == 0, install.stderr
    installed = {
        item["metadata"]["name"]: item["download_info"]["url"]
        for item in json.loads(report.read_text())["install"]
    }
    assert installed["cube-client"] == f"{index}/packages/cube_client-{version}-py3-none-any.whl"
    # httpx2 carries the HTTP and the event streams: neither httpx nor httpx-sse comes along
    assert "httpx2" in installed and not {"httpx", "httpx-sse"} & installed.keys(), installed

    ca = trustme.CA()
    script = f"""
import ssl, httpx2, cube_client
from cube_client import PlatformClient
assert cube_client.__version__ == {version!r}, cube_client.__version__
assert "site-packages" in cube_client.__file__
context = ssl.create_default_context(cafile={str(ca_file(ca, tmp_path))!r})
with httpx2.Client(verify=context) as http:
    client = PlatformClient(api_key={TOKEN!r}, base_url=BASE_URL, http_client=http)
    print(client.regions.with_raw_response.list_regions().status_code)
"""
    with serving(
        {"items": [], "pageInfo": {"hasNextPage": False, "hasPreviousPage": False}}, ca
    ) as server:
        call = _run(
            str(python),
            "-c",
            script.replace("BASE_URL", repr(server.url)),
            cwd=tmp_path,
            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        )
    assert call.returncode == 0, call.stderr
    assert call.stdout.strip() == "200"
    assert server.requests == [("GET", "/api/v1/regions", f"Bearer {TOKEN}")]
    _check_installed_metadata(python, tmp_path)


def _check_installed_metadata(python: Path, cwd: Path) -> None:
    """The installed distribution says what the configuration says: license, authors, URLs,
    classifiers, and the changelog after the README in its long description."""
    config = yaml.safe_load((ROOT / "spec" / "cube-codegen.yaml").read_text())["package"]
    script = (
        "import importlib.metadata as m, json\n"
        "md = m.metadata('cube-client')\n"
        "files = [str(f) for f in m.files('cube-client') or []]\n"
        "print(json.dumps({'license': md['License-Expression'], 'author': md['Author'],\n"
        "  'urls': md.get_all('Project-URL'), 'classifiers': md.get_all('Classifier'),\n"
        "  'body': md.get_payload(), 'files': files}))\n"
    )
    proc = _run(str(python), "-c", script, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    meta = json.loads(proc.stdout)
    assert meta["license"] == config["license"]
    assert meta["author"] == config["authors"][0]["name"]
    assert meta["urls"] == [f"{k}, {v}" for k, v in sorted(config["urls"].items())]
    assert "Typing :: Typed" in meta["classifiers"]
    changelog = (ROOT / "spec" / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.split("\n", 1)[1].strip() in meta["body"]
    assert "## Timeouts and defaults" in meta["body"]  # the README comes first
    assert any(f.endswith("licenses/LICENSE") for f in meta["files"]), meta["files"]
