"""A one-line change in a document or an overlay rewrites only the generated files it reaches."""

from __future__ import annotations

import difflib
from pathlib import Path

from generator.document.loader import dump_yaml
from generator.emit.writer import read_tree
from tests.helpers import run_cli
from tests.release.project import document, write_project

VERSION_MODULE = "widget_client/widget_client/_version.py"


def _generate(config: Path, out: Path) -> dict[str, bytes]:
    proc = run_cli("generate", "--config", str(config), "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    return read_tree(out)


def _changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    return {rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)}


def _one_line_edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    edited = text.replace(old, new)
    changed = [
        line
        for line in difflib.unified_diff(text.splitlines(), edited.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert len(changed) == 2  # exactly one line out, one line in
    path.write_text(edited, encoding="utf-8")


def test_one_line_overlay_change_touches_only_the_files_it_reaches(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    before = _generate(config, tmp_path / "gen")
    _one_line_edit(
        config.parent / "overlays" / "notes.overlay.yaml",
        "Lists gadgets in creation order.",
        "Lists gadgets, oldest first.",
    )
    after = _generate(config, tmp_path / "gen")
    # the resource module holding the operation, and the hash's one home
    assert _changed(before, after) == {
        "widget_client/widget_client/api/resources/gadgets.py",
        VERSION_MODULE,
    }
    old_hash = [ln for ln in before[VERSION_MODULE].decode().splitlines() if "SPEC_HASH" in ln]
    new_hash = [ln for ln in after[VERSION_MODULE].decode().splitlines() if "SPEC_HASH" in ln]
    assert old_hash != new_hash
    # every other file, headers included, is byte for byte the same
    headers = {rel: data.decode().splitlines()[0] for rel, data in after.items()}
    assert len(set(headers.values()) - {""}) <= 2  # one header line, in '#' and '<!--' forms


def test_one_line_document_change_touches_only_the_files_it_reaches(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    before = _generate(config, tmp_path / "gen")
    doc = document()
    doc["components"]["schemas"]["Gadget"]["properties"]["label"]["maxLength"] = 40
    text = dump_yaml(doc)
    assert len(text.splitlines()) == len(dump_yaml(document()).splitlines()) + 1
    (config.parent / "api.yaml").write_text(text, encoding="utf-8")
    after = _generate(config, tmp_path / "gen")
    # one class's constraint changed: its own module and nothing else but the version module
    # (the family's stub declares names, types and defaults; a constraint is a run-time rule)
    assert _changed(before, after) == {
        "widget_client/widget_client/api/_classes/gadget.py",
        VERSION_MODULE,
    }
    # a type a checker reads reaches the stub as well (and the generated tests' samples)
    doc["components"]["schemas"]["Gadget"]["properties"]["label"]["type"] = "integer"
    (config.parent / "api.yaml").write_text(dump_yaml(doc), encoding="utf-8")
    retyped = _changed(after, _generate(config, tmp_path / "gen"))
    assert "widget_client/widget_client/api/models.pyi" in retyped
    assert "widget_client/widget_client/api/_classes/gadget.py" in retyped
