"""Names that differ from the document's are reported: a collision or a reserved word is a
warning (and in the report), an exact name keeps its name, and every such line names the schema
or operation by its pointer."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import model_source, run_cli

DOC = """\
openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    get:
      operationId: do-it
      tags: [x]
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {$ref: '#/components/schemas/FooBar'}}}
  /b:
    get: {operationId: do_it, tags: [x], responses: {'204': {description: ok}}}
  /c:
    get: {operationId: import, tags: [x], responses: {'204': {description: ok}}}
  /d:
    get: {operationId: getThing, tags: [x], responses: {'204': {description: ok}}}
components:
  schemas:
    foo-bar: {type: object, properties: {from_hyphen: {type: string}}}
    foo_bar: {type: object, properties: {from_underscore: {type: string}}}
    FooBar: {type: object, properties: {from_exact: {type: string}}}
    foo.bar: {type: object, properties: {from_dot: {type: string}}}
    Field: {type: object, properties: {x: {type: string}}}
    Plain: {type: object, properties: {x: {type: string}}}
"""


def _run(tmp_path: Path) -> tuple[str, dict[str, object], Path]:
    (tmp_path / "api.yaml").write_text(DOC)
    out = tmp_path / "out"
    report = tmp_path / "report.json"
    proc = run_cli(
        "generate", "--spec", str(tmp_path / "api.yaml"), "--out", str(out), "--package", "p",
        "--report", str(report),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stderr, json.loads(report.read_text()), out


def _class_body(models: str, name: str) -> str:
    return models.split(f"class {name}(", 1)[1].split("\nclass ", 1)[0]


def test_exact_schema_name_is_kept_and_the_others_are_warned(tmp_path: Path) -> None:
    stderr, report, out = _run(tmp_path)
    models = model_source(out / "p")
    assert "from_exact" in _class_body(models, "FooBar")  # the schema called FooBar
    for name, cls in (("foo-bar", "FooBar2"), ("foo_bar", "FooBar3"), ("foo.bar", "FooBar4")):
        line = next(x for x in stderr.splitlines() if f"/components/schemas/{name}:" in x)
        assert f"warning: schema '{name}' is generated as class {cls}" in line, line
        assert "`FooBar` is taken by 'FooBar'" in line and "[schema-renamed]" in line
    assert "schema 'Field' is generated as class FieldModel" in stderr
    assert "'Plain'" not in stderr  # unchanged names say nothing
    renamed = {(d["pointer"], d["level"]) for d in report["renamed"]}  # type: ignore[union-attr]
    assert ("/components/schemas/foo-bar", "warning") in renamed
    assert ("/components/schemas/Field", "warning") in renamed


def test_operation_renames_are_warned_and_exact_names_kept(tmp_path: Path) -> None:
    stderr, report, out = _run(tmp_path)
    resource = (out / "p" / "resources" / "x.py").read_text()
    # do_it keeps its name although do-it comes first in the document
    assert "def do_it(" in resource and "def do_it_2(" in resource
    assert '"/b"' in resource.split("def do_it(", 1)[1].split("def ", 1)[0]
    assert '"/a"' in resource.split("def do_it_2(", 1)[1].split("def ", 1)[0]
    line = next(x for x in stderr.splitlines() if "/paths/~1a/get/operationId" in x)
    assert "operationId 'do-it' is generated as method do_it_2" in line
    assert "[operation-renamed]" in line
    assert "operationId 'import' is generated as method import_" in stderr
    assert "getThing" not in stderr  # camelCase to snake_case is the convention, not a rename
    ids = [d["id"] for d in report["renamed"]]  # type: ignore[union-attr]
    assert ids.count("operation-renamed") == 2


TAGGED = """\
openapi: 3.1.0
info: {title: t, version: '1'}
tags: [{name: close}, {name: Widgets}]
paths:
  /a:
    get: {operationId: listA, tags: [close], responses: {'204': {description: ok}}}
  /b:
    get: {operationId: listB, tags: [Widgets], responses: {'204': {description: ok}}}
"""


def test_tag_renames_are_warned_like_the_others(tmp_path: Path) -> None:
    """A tag named like a client member (``close``) cannot be ``client.close``: the resource
    attribute that code must use is reported, with the tag's pointer."""
    (tmp_path / "api.yaml").write_text(TAGGED)
    report = tmp_path / "report.json"
    proc = run_cli(
        "generate", "--spec", str(tmp_path / "api.yaml"), "--out", str(tmp_path / "out"),
        "--package", "p", "--report", str(report),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if "[tag-renamed]" in x)
    assert "#/tags/0:" in line and "tag 'close' is generated as resource client.close_" in line
    assert "warning" in line
    assert "Widgets" not in proc.stderr  # Widgets → widgets is the convention, not a rename
    renamed = {(d["id"], d["pointer"]) for d in json.loads(report.read_text())["renamed"]}
    assert ("tag-renamed", "/tags/0") in renamed
