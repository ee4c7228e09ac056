"""A generated test expects the path as the request carries it: the document's own path text
escaped as the HTTP library escapes it (``/naïve`` goes out as ``/na%C3%AFve``), placeholders
filled with their encoded values. The fuzzer found a package whose tests failed on a path
with a non-ASCII segment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from generator.emit.testcases import _sent_path
from tests.helpers import generate_package, run_package_tests


@pytest.mark.parametrize(
    "text",
    ["/naïve", "/x y", "/a[b]c^d|e", "/keep:@!$&'()*+,;=-._~", "/50%25off", "/曲/✓", '/q"<>`'],
)
def test_the_path_text_is_escaped_as_the_http_library_escapes_it(text: str) -> None:
    sent = httpx2.URL("http://h" + text + "/v").raw_path.decode("ascii")
    assert _sent_path(text + "/{id}", {"id": "v"}) == sent


def _doc() -> dict[str, Any]:
    def get(op_id: str) -> dict[str, Any]:
        return {
            "operationId": op_id,
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "responses": {"204": {"description": "done"}},
        }

    return {
        "openapi": "3.1.0",
        "info": {"title": "Paths", "version": "1"},
        "servers": [{"url": "https://api.test"}],
        "paths": {"/naïve/{id}": {"get": get("getNaive")}, "/a b/{id}/ç": {"get": get("getSpace")}},
    }


def test_generated_tests_of_non_ascii_paths_pass(tmp_path: Path) -> None:
    out = tmp_path / "paths_client"
    files = generate_package(_doc(), out, "paths_client")
    tests = "".join(text for name, text in files.items() if name.startswith("tests/test_"))
    assert '"/na%C3%AFve/id-1"' in tests and '"/a%20b/id-1/%C3%A7"' in tests
    proc = run_package_tests(out)
    assert " passed" in proc.stdout
