"""Bad input: exit 2, one line naming file and JSON pointer, no traceback, output untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.emit.writer import MARKER, MARKER_TEXT
from tests.helpers import run_cli

CONFIG = """\
package: {name: demo_client, distribution: demo-client}
families:
  - {name: api, document: api.yaml, module: api, client: Demo}
"""

CASES = {
    "malformed-yaml": ("openapi: 3.1.0\npaths: {\n  /a: [\n", "", "malformed YAML at line"),
    "not-openapi": ("title: hello\nitems: [1, 2]\n", "#/openapi", "not an OpenAPI document"),
    "top-level-list": ("- 1\n- 2\n", "", "top level is not a mapping"),
    "swagger-2": (
        "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n",
        "#/swagger",
        "Swagger 2.0 is not supported",
    ),
    "dangling-ref": (
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      responses:\n        '200':\n          description: ok\n          content:\n"
        "            application/json:\n              schema: {$ref: '#/components/schemas/Missing'}\n",
        "#/paths/~1a/get/responses/200/content/application~1json/schema/$ref",
        "names nothing",
    ),
    "wrong-type": (
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: 7\n",
        "#/paths/~1a/get/responses",
        "OpenAPI object model",
    ),
    "missing-paths": (
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n",
        "#/paths",
        "`paths` must be",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_document_exits_2_with_one_line_and_leaves_output(tmp_path: Path, case: str) -> None:
    text, ptr, message = CASES[case]
    (tmp_path / "api.yaml").write_text(text)
    (tmp_path / "cube-codegen.yaml").write_text(CONFIG)
    out = tmp_path / "generated"
    out.mkdir()
    (out / MARKER).write_text(MARKER_TEXT)  # an earlier output of ours
    (out / "keep.txt").write_text("previous output")
    proc = run_cli("generate", "--config", str(tmp_path / "cube-codegen.yaml"), "--out", str(out))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert str(tmp_path / "api.yaml") + ptr in lines[0]
    assert message in lines[0]
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "keep.txt"]
    assert (out / "keep.txt").read_text() == "previous output"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".generated.")]


def test_missing_config_is_exit_2(tmp_path: Path) -> None:
    proc = run_cli(
        "generate", "--config", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "o")
    )
    assert proc.returncode == 2
    assert "nope.yaml: error: no such file" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_invalid_config_names_the_key(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("package: {name: Bad-Name, distribution: x}\nfamilies: []\n")
    proc = run_cli("generate", "--config", str(tmp_path / "c.yaml"))
    assert proc.returncode == 2
    assert "c.yaml#/package/name" in proc.stderr


def test_unwritable_output_is_one_line_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proc = run_cli("generate", "--out", str(blocker / "generated"))
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "[os-error]" in proc.stderr


def test_server_variable_named_like_a_client_argument_still_compiles(tmp_path: Path) -> None:
    doc = (
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"
        "servers: [{url: 'https://{api_key}.{timeout}.example.com', "
        "variables: {api_key: {default: a}, timeout: {default: b}}}]\n"
        "security: [{k: []}]\n"
        "components: {securitySchemes: {k: {type: http, scheme: bearer}}}\n"
        "paths: {/a: {get: {operationId: getA, responses: {'204': {description: ok}}}}}\n"
    )
    (tmp_path / "api.yaml").write_text(doc)
    out = tmp_path / "pkg"
    proc = run_cli(
        "generate", "--spec", str(tmp_path / "api.yaml"), "--out", str(out), "--package", "vars"
    )
    assert proc.returncode == 0, proc.stderr
    source = (out / "vars" / "_client.py").read_text()
    compile(source, "_client.py", "exec")  # a duplicate argument would be a SyntaxError
    assert "api_key_2" in source or "api_key_" in source
