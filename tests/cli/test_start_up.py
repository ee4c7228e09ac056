"""What a generation loads is what its inputs need (issue 35: a run's fixed cost): a JSON
document, or a YAML one kept parsed, never loads the YAML parser; a run without overlays never
loads the overlay model; the command never looks for pydantic plugins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.document.test_parsed_cache import big_document
from tests.helpers import json_body, openapi_document, own_project, run_cli, schema_ref

IMPORT_TIME = {"PYTHONPROFILEIMPORTTIME": "1"}
NEVER = {"yaml", "generator.document.yaml_text", "importlib.metadata", "email"}


def imported(proc: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules a command imported, from ``-X importtime``'s lines on stderr."""
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("import time:")]
    return {ln.rsplit("|", 1)[-1].strip() for ln in lines}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder (its run state stays in it), holding a small JSON document."""
    own_project(tmp_path)
    pet = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    ok = {"200": {"description": "ok", "content": json_body(schema_ref("Pet"))}}
    param = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
    item = {"parameters": [param], "get": {"operationId": "getPet", "responses": ok}}
    paths: dict[str, Any] = {"/pets/{id}": item}
    doc = openapi_document(paths, schemas={"Pet": pet})
    (tmp_path / "api.json").write_text(json.dumps(doc), encoding="utf-8")
    return tmp_path


def generate(project: Path, doc: str, out: str, env: dict[str, str] | None = None) -> set[str]:
    args = ["generate", "--spec", doc, "--package", "lean", "--out", out, "--quiet"]
    proc = run_cli(*args, cwd=project, env={**IMPORT_TIME, **(env or {})})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (project / out / "lean" / "models.py").is_file()
    found = imported(proc)
    assert {"pydantic", "jinja2", "generator.pipeline"} <= found  # the run was seen whole
    return found


def test_a_json_document_loads_neither_the_yaml_parser_nor_the_overlay_model(
    project: Path,
) -> None:
    found = generate(project, "api.json", "out")
    assert not found & {*NEVER, "generator.overlay.model"}, found & NEVER


def test_a_yaml_document_kept_parsed_is_read_without_the_parser(project: Path) -> None:
    (project / "big.yaml").write_text(big_document(), encoding="utf-8")
    first = generate(project, "big.yaml", "one")
    assert "yaml" in first  # parsed, then kept
    again = generate(project, "big.yaml", "two")
    assert not again & NEVER, again & NEVER
    one, two = project / "one", project / "two"
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    assert all((one / f).read_bytes() == (two / f).read_bytes() for f in files)


PLUGIN = """\
from pathlib import Path

Path(__file__).with_name("loaded").write_text("pydantic loaded the plugin\\n")


class _Plugin:
    def new_schema_validator(self, *args, **kwargs):
        return None, None, None


plugin = _Plugin()
"""


def test_the_command_loads_no_pydantic_plugin(project: Path, tmp_path: Path) -> None:
    """A pydantic plugin installed beside the generator is not loaded by the command (a
    library caller's pydantic still loads it, as the control run shows)."""
    site = tmp_path / "site"
    dist = site / "spy_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: spy-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pydantic]\nspy = spy_plugin:plugin\n")
    (site / "spy_plugin.py").write_text(PLUGIN, encoding="utf-8")
    env = {"PYTHONPATH": str(site)}
    generate(project, "api.json", "out", env)
    assert not (site / "loaded").exists()
    control = "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int\n"
    proc = subprocess.run(
        [sys.executable, "-c", control],
        cwd=project,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (site / "loaded").exists()
