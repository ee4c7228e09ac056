"""A problem an overlay action caused names the action, in the overlay file, not the document."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import openapi_document, operation, run_cli, schema_ref

DOCUMENT = openapi_document(
    {"/things": {"get": operation("listThings", schema_ref("Thing"))}},
    schemas={"Thing": {"type": "object", "properties": {"name": {"type": "string"}}}},
)

OVERLAY = """\
overlay: 1.0.0
info: {title: Codes, version: 1.0.0}
actions:
  - target: $.components.schemas.Thing.properties
    description: The code field.
    update:
      code: {type: string, pattern: '(unclosed'}
"""


def test_an_error_in_what_an_overlay_wrote_names_the_action(tmp_path: Path) -> None:
    (tmp_path / "api.json").write_text(json.dumps(DOCUMENT))
    (tmp_path / "codes.overlay.yaml").write_text(OVERLAY)
    args = ["generate", "--spec", "api.json", "--overlay", "codes.overlay.yaml"]
    proc = run_cli(*args, "--out", "out", "--package", "things", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    line = proc.stderr
    assert "codes.overlay.yaml#/actions/0/update: error:" in line, line
    assert "#/components/schemas/Thing/properties/code, which this action wrote" in line
    assert "[pattern-invalid]" in line


def test_an_error_in_the_document_itself_still_names_the_document(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(DOCUMENT))
    doc["components"]["schemas"]["Thing"]["properties"]["name"]["pattern"] = "(unclosed"
    (tmp_path / "api.json").write_text(json.dumps(doc))
    (tmp_path / "codes.overlay.yaml").write_text(OVERLAY.replace("'(unclosed'", "'^[a-z]+$'"))
    args = ["generate", "--spec", "api.json", "--overlay", "codes.overlay.yaml"]
    proc = run_cli(*args, "--out", "out", "--package", "things", cwd=tmp_path)
    assert proc.returncode == 2
    assert "api.json#/components/schemas/Thing/properties/name: error:" in proc.stderr
    assert "codes.overlay.yaml" not in proc.stderr


def test_a_long_message_is_shortened_before_the_documents_pointer() -> None:
    """A message made long by a deep folder's path keeps, whole, the note that names the
    document's pointer: the line's limit cuts the message, not the note."""
    from generator.diagnostics import MAX_MESSAGE, Diagnostic
    from generator.overlay.attribution import attribute
    from generator.overlay.model import Provenance

    ptr = "/paths/~1a/get/responses/200/content/application~1json/schema/$ref"
    long = "$ref ../x leaves the folder /" + "deep/" * 80 + "spec; refused"
    found = Diagnostic("path-outside-tree", "error", "api.json", ptr, long)
    wrote = Provenance("/paths", "o.yaml", "/actions/0")
    (moved,) = attribute([found], "api.json", [wrote])
    line = str(moved)
    assert moved.file == "o.yaml" and moved.pointer == "/actions/0"
    assert f"(the document's #{ptr}, which this action wrote) [path-outside-tree]" in line
    assert len(moved.message) <= MAX_MESSAGE and "…" in moved.message
