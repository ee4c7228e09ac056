"""Request encodings our own documents do not use: cookies, multipart uploads, form bodies.

A small document is generated into a temporary package and exercised in a subprocess over a
recording transport (request building only; real servers are the runtime tests' business).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import run_cli

DOC = {
    "openapi": "3.1.0",
    "info": {"title": "Encodings", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "paths": {
        "/items": {
            "get": {
                "operationId": "listItems",
                "parameters": [
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                    {"name": "csrf", "in": "cookie", "schema": {"type": "string"}},
                ],
                "responses": {"204": {"description": "ok"}},
            }
        },
        "/uploads": {
            "post": {
                "operationId": "upload",
                "requestBody": {
                    "required": True,
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "required": ["file"],
                                "properties": {
                                    "file": {"type": "string", "format": "binary"},
                                    "label": {"type": "string"},
                                },
                            }
                        }
                    },
                },
                "responses": {"204": {"description": "ok"}},
            }
        },
    },
}

SCRIPT = """
import json, httpx2
from enc import EncClient
seen = []
def handle(request):
    request.read()
    seen.append(request)
    return httpx2.Response(204)
client = EncClient(base_url="https://api.example.com", http_client=httpx2.Client(transport=httpx2.MockTransport(handle)))
client.default.list_items(session="S 1", csrf="C")
client.default.upload(file=b"\\x00PNG", label="logo")
print(json.dumps({
    "cookie": seen[0].headers.get_list("cookie"),
    "upload_type": seen[1].headers["content-type"].split(";")[0],
    "upload_has_file": b'name="file"' in seen[1].content and b"\\x00PNG" in seen[1].content,
    "upload_has_label": b'name="label"' in seen[1].content and b"logo" in seen[1].content,
}))
"""


def test_cookies_join_and_multipart_uploads_send_files(tmp_path: Path) -> None:
    spec = tmp_path / "doc.json"
    spec.write_text(json.dumps(DOC))
    out = tmp_path / "pkg"
    proc = run_cli(
        "generate", "--spec", str(spec), "--out", str(out), "--package", "enc", "--quiet"
    )
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=out, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["cookie"] == ["session=S%201; csrf=C"]
    assert result["upload_type"] == "multipart/form-data"
    assert result["upload_has_file"] and result["upload_has_label"]


def test_explode_false_query_arrays_are_comma_joined(tmp_path: Path) -> None:
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "Q", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/search": {
                "get": {
                    "operationId": "search",
                    "parameters": [
                        {"name": "ids", "in": "query", "explode": False,
                         "schema": {"type": "array", "items": {"type": "integer"}}},
                        {"name": "tags", "in": "query",
                         "schema": {"type": "array", "items": {"type": "string"}}},
                    ],
                    "responses": {"204": {"description": "ok"}},
                }
            }
        },
    }  # fmt: skip
    spec = tmp_path / "doc.json"
    spec.write_text(json.dumps(doc))
    out = tmp_path / "pkg"
    proc = run_cli("generate", "--spec", str(spec), "--out", str(out), "--package", "q", "--quiet")
    assert proc.returncode == 0, proc.stderr
    script = (
        "import httpx2\nfrom q import QClient\nseen = []\n"
        "def handle(r):\n    seen.append(r)\n    return httpx2.Response(204)\n"
        "c = QClient(base_url='https://api.example.com', "
        "http_client=httpx2.Client(transport=httpx2.MockTransport(handle)))\n"
        "c.default.search(ids=[1, 2, 3], tags=['a', 'b'])\n"
        "print(seen[0].url.query.decode())\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=out, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ids=1%2C2%2C3&tags=a&tags=b"
