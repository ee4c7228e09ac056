"""Overlay health through the adapter: a fake engine for the contract, then the real one."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from generator.cli.drift import drift
from generator.drift.overlay_health import check_overlays

DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/items": {"get": {"summary": "List items", "responses": {"200": {"description": "ok"}}}}
    },
}


@dataclass(frozen=True)
class FakeOutcome:
    overlay_file: str
    index: int
    description: str
    target: str
    status: str
    matches: int


def fake_engine(monkeypatch: pytest.MonkeyPatch, statuses: list[str], calls: list[Any]) -> None:
    module = types.ModuleType("generator.overlay")

    def load_overlay(path: str) -> str:
        return path

    def apply_overlays(
        document: Any, overlays: list[str], *, document_file: str = "", strict: bool = True
    ) -> Any:
        calls.append((document, overlays, document_file, strict))
        outcomes = tuple(
            FakeOutcome(overlays[0], i, f"action {i}", f"$.paths['/x{i}']", status, 0)
            for i, status in enumerate(statuses)
        )
        return types.SimpleNamespace(document=document, outcomes=outcomes)

    module.load_overlay = load_overlay  # type: ignore[attr-defined]
    module.apply_overlays = apply_overlays  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "generator.overlay", module)


@pytest.fixture
def overlay_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "overlays"
    folder.mkdir()
    (folder / "b.overlay.yaml").write_text("overlay: 1.0.0\n", encoding="utf-8")
    (folder / "a.overlay.yaml").write_text("overlay: 1.0.0\n", encoding="utf-8")
    (folder / "notes.yaml").write_text("not an overlay\n", encoding="utf-8")
    return folder


def test_unmatched_and_redundant_actions_are_reported(
    monkeypatch: pytest.MonkeyPatch, overlay_dir: Path
) -> None:
    calls: list[Any] = []
    fake_engine(monkeypatch, ["matched", "unmatched", "redundant", "absent-allowed"], calls)
    health = check_overlays(DOC, overlay_dir, document_file="new.yaml")
    assert health.checked
    [(document, overlays, document_file, strict)] = calls
    assert document is DOC and document_file == "new.yaml" and strict is False
    assert [Path(p).name for p in overlays] == ["a.overlay.yaml", "b.overlay.yaml"]
    assert [(f.index, f.status) for f in health.findings] == [(1, "unmatched"), (2, "redundant")]
    assert health.status_counts == {
        "matched": 1,
        "unmatched": 1,
        "redundant": 1,
        "absent-allowed": 1,
    }


def test_missing_engine_degrades_to_a_note(
    monkeypatch: pytest.MonkeyPatch, overlay_dir: Path
) -> None:
    monkeypatch.setitem(sys.modules, "generator.overlay", None)  # makes the import fail
    health = check_overlays(DOC, overlay_dir)
    assert not health.checked
    assert "overlay engine not available" in health.note


def test_engine_failure_degrades_to_a_note(
    monkeypatch: pytest.MonkeyPatch, overlay_dir: Path
) -> None:
    module = types.ModuleType("generator.overlay")

    def explode(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("bad overlay")

    module.load_overlay = explode  # type: ignore[attr-defined]
    module.apply_overlays = explode  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "generator.overlay", module)
    health = check_overlays(DOC, overlay_dir)
    assert not health.checked and "bad overlay" in health.note


def test_no_overlays_folder(tmp_path: Path) -> None:
    health = check_overlays(DOC, tmp_path / "missing")
    assert not health.checked and "no overlays" in health.note


def _docs(tmp_path: Path) -> tuple[str, str]:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(DOC), encoding="utf-8")
    new.write_text(json.dumps(DOC), encoding="utf-8")
    return str(old), str(new)


def test_json_report_has_an_overlays_section(
    monkeypatch: pytest.MonkeyPatch, overlay_dir: Path, tmp_path: Path
) -> None:
    fake_engine(monkeypatch, ["unmatched"], [])
    old, new = _docs(tmp_path)
    result = CliRunner().invoke(
        drift, [old, new, "--format", "json", "--overlays", str(overlay_dir)]
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["changes"] == []
    problems = data["overlays"]["problems"]
    assert [(Path(p["overlay"]).name, p["status"], p["target"]) for p in problems] == [
        ("a.overlay.yaml", "unmatched", "$.paths['/x0']")
    ]


def test_text_and_markdown_mention_overlay_problems(
    monkeypatch: pytest.MonkeyPatch, overlay_dir: Path, tmp_path: Path
) -> None:
    fake_engine(monkeypatch, ["redundant"], [])
    old, new = _docs(tmp_path)
    text = CliRunner().invoke(drift, [old, new, "--overlays", str(overlay_dir)]).stdout
    assert "a.overlay.yaml action 0 redundant" in text
    markdown = (
        CliRunner()
        .invoke(drift, [old, new, "--format", "markdown", "--overlays", str(overlay_dir)])
        .stdout
    )
    assert "### Overlay health" in markdown and "| redundant |" in markdown


def test_json_omits_overlays_when_not_checked(tmp_path: Path) -> None:
    old, new = _docs(tmp_path)
    result = CliRunner().invoke(
        drift, [old, new, "--format", "json", "--overlays", str(tmp_path / "none")]
    )
    assert list(json.loads(result.stdout)) == ["changes"]


def test_with_the_real_overlay_engine(tmp_path: Path) -> None:
    """The project's own engine (no fake): it always ships with the generator, so nothing here
    may skip."""
    folder = tmp_path / "overlays"
    folder.mkdir()
    (folder / "x.overlay.yaml").write_text(
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n"
        "  - target: $.paths['/gone'].get\n    update: {summary: Gone}\n"
        "  - target: $.paths['/items'].get\n    update: {summary: List items}\n"
        "  - target: $.paths['/items'].get\n    update: {description: Lists items.}\n",
        encoding="utf-8",
    )
    health = check_overlays(DOC, folder)
    assert health.checked, health.note
    assert [(f.index, f.status) for f in health.findings] == [(0, "unmatched"), (1, "redundant")]
