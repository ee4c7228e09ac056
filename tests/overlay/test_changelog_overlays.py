"""The overlays that follow the service's published changelog past the snapshot's document.

(a) Coverage: ``overlay check --changelog`` lists each entry after the document's release with the
    actions covering it; the parser and the matching are tested on small made-up changelogs too.
(b) Removals: what the changelog removed is neither in the overlaid document nor in the SDK.
(c) Retirement: on a document that already has what the overlays add (published 07 plus the
    changelog's additions, worded differently), those actions are redundant and their files are
    named as deletable by ``overlay check``, by overlay health (fetch, drift, update) and in the
    update summary.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from generator.cli.overlay import overlay as overlay_cli
from generator.document.config import load_config
from generator.document.loader import load_document
from generator.drift.overlay_health import check_overlays
from generator.drift.report import render_markdown, render_text
from generator.overlay import apply_overlays, load_overlay
from generator.overlay.coverage import (
    action_releases,
    coverage,
    document_release,
    parse_changelog,
    read_overlays,
)
from generator.overlay.retire import PROSE, contains, has_structure, is_addition
from tests.helpers import PACKAGE_ROOT, ROOT

SPEC = ROOT / "spec"
SNAPSHOT = SPEC / "platform-api.yaml"
OVERLAY_DIR = SPEC / "overlays"
CHANGELOG_OVERLAYS = sorted(
    p for p in OVERLAY_DIR.glob("*.overlay.yaml") if "# changelog v" in p.read_text("utf-8")
)
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def _changelog(shared: Path) -> Path:
    file = shared / "specs" / "cube" / "changelog.mdx"
    if not file.is_file():
        pytest.skip(f"{file} is not in the shared inputs")
    return file


def _platform_overlays() -> list[Path]:
    config = load_config(SPEC / "cube-codegen.yaml")
    (platform,) = [f for f in config.families if f.name == "platform"]
    return [config.path(o) for o in platform.overlays]


def _operations(doc: dict[str, Any]) -> dict[str, tuple[str, str]]:
    found = {}
    for path, item in (doc.get("paths") or {}).items():
        for method in METHODS:
            op = item.get(method) if isinstance(item, dict) else None
            if isinstance(op, dict):
                found[op.get("operationId") or f"{method} {path}"] = (method, path)
    return found


# --------------------------------------------------------------------------------------------
# (a) coverage

MINI = """
<Update label="2026-02-01" description="v1.2.0" tags={["Added"]}>
  ### Added

  - `GET /api/v1/widgets` lists widgets. New schemas: `WidgetList`, `Widget`.
  - `colour` on `Widget`.

  ### Removed

  - removed the `GET /api/v1/gadgets` operation and the `Gadget` schema.
</Update>

<Update label="2026-01-01" description="v1.1.0" tags={["Added"]}>
  ### Added

  - New public REST endpoint `POST /api/v1/things`. New schema: `Thing`.
</Update>
"""

MINI_OVERLAY = """overlay: 1.0.0
info: {title: t, version: '1'}
actions:
  # changelog v1.2.0
  - target: $.paths
    description: adds the widget list
    update:
      /api/v1/widgets:
        get:
          operationId: listWidgets
          responses: {'200': {description: ok}}
  - target: $.components.schemas  # changelog v1.0.0
    description: unrelated
    update:
      Other: {type: object}
"""


def test_changelog_is_parsed_into_releases_and_entries() -> None:
    releases = parse_changelog(MINI)
    assert [r.version for r in releases] == ["1.2.0", "1.1.0"]
    added, colour, removed = releases[0].entries
    assert (added.kind, added.number, colour.number, removed.kind) == ("Added", 1, 2, "Removed")
    assert added.paths == ("/api/v1/widgets",) and added.new_schemas == ("WidgetList", "Widget")
    assert "colour" in colour.names and "Gadget" in removed.names


def test_document_release_is_the_newest_whose_additions_are_all_there() -> None:
    releases = parse_changelog(MINI)
    doc: dict[str, Any] = {
        "paths": {"/api/v1/things": {}},
        "components": {"schemas": {"Thing": {}}},
    }
    assert document_release(doc, releases) == "1.1.0"
    doc["paths"]["/api/v1/widgets"] = {}
    doc["components"]["schemas"].update(WidgetList={}, Widget={})
    assert document_release(doc, releases) == "1.2.0"
    assert document_release({"paths": {}}, releases) is None


def test_action_comments_name_releases_before_or_inside_an_action() -> None:
    assert action_releases(MINI_OVERLAY) == {0: {"1.2.0"}, 1: {"1.0.0"}}


def test_coverage_lists_covered_and_uncovered_entries(tmp_path: Path) -> None:
    file = tmp_path / "w.overlay.yaml"
    file.write_text(MINI_OVERLAY, encoding="utf-8")
    doc = {"paths": {"/api/v1/things": {}}, "components": {"schemas": {"Thing": {}}}}
    report = coverage(MINI, doc, read_overlays([file], load_overlay))
    assert report.since == "1.1.0"
    rows = {e.label: actions for e, actions in report.rows}
    assert rows == {
        "v1.2.0 Added #1": (f"{file}#0",),
        "v1.2.0 Added #2": (),
        "v1.2.0 Removed #1": (),
    }
    assert report.lines()[-1] == "3 entries: 1 covered, 2 not covered"
    # Given explicitly, the release wins over inference; nothing after the newest is empty.
    assert coverage(MINI, doc, [], since="v1.2.0").rows == ()


def test_every_changelog_overlay_action_names_its_release(shared_dir: Path) -> None:
    releases = {r.version for r in parse_changelog(_changelog(shared_dir).read_text("utf-8"))}
    assert CHANGELOG_OVERLAYS
    for path in CHANGELOG_OVERLAYS:
        named = action_releases(path.read_text("utf-8"))
        actions = load_overlay(path).actions
        assert set(named) == {a.index for a in actions}, path.name
        for index, found in named.items():
            assert found, f"{path.name}#{index} names no changelog release"
            assert found <= releases, f"{path.name}#{index}: {found - releases} not in changelog"


def test_overlay_check_reports_coverage_of_the_published_changelog(shared_dir: Path) -> None:
    changelog = _changelog(shared_dir)
    text = changelog.read_text("utf-8")
    document = load_document(SNAPSHOT)
    since = document_release(document, parse_changelog(text))
    assert since is not None
    paths = [str(p) for p in _platform_overlays()]
    args = ["check", "--spec", str(SNAPSHOT), "--changelog", str(changelog), "--format", "json"]
    run = CliRunner().invoke(overlay_cli, [*args, *paths])
    assert run.exit_code == 0, run.output
    report = json.loads(run.stdout)["changelog"]
    assert report["since"] == since
    newer = [
        e
        for r in parse_changelog(text)
        if tuple(map(int, r.version.split("."))) > tuple(map(int, since.split(".")))
        for e in r.entries
    ]
    assert len(report["entries"]) == len(newer) > 0
    assert report["covered"] + report["uncovered"] == len(newer)
    by_label = {e["entry"]: e["actions"] for e in report["entries"]}
    # Every entry that adds endpoints is covered, by an action adding one of its paths.
    for entry in newer:
        if entry.kind == "Added" and entry.paths and "…" not in entry.paths[0]:
            assert by_label[entry.label], f"{entry.label} is not covered"
    # The text form says the same, with the figures on its last line.
    run = CliRunner().invoke(overlay_cli, [*args[:-2], *paths])
    assert run.exit_code == 0, run.output
    last = run.stdout.strip().splitlines()[-1]
    assert last == (
        f"{len(newer)} entries: {report['covered']} covered, {report['uncovered']} not covered"
    )
    assert f"changelog entries after v{since}" in run.stdout


# --------------------------------------------------------------------------------------------
# (b) removals


_METHOD_PATH = re.compile(r"`(GET|PUT|POST|DELETE|PATCH) (/[^`]+)`")
_CONTROLLER = re.compile(r"`?\w+PublicController\.(\w+)`?")
_PASCAL = re.compile(r"[A-Z][A-Za-z0-9]+")
_FIELD = re.compile(r"([A-Z][A-Za-z0-9]+)\.([a-z]\w*)")
_FIELD_FROM = re.compile(r"`(\w+)` field from [^`(]*\(`([A-Z]\w+)`\)")


class Removed:
    """What the changelog removed and did not bring back in a later release: operation ids,
    (method, path) pairs, schema names and (schema, field) pairs."""

    def __init__(self, text: str) -> None:
        self.operations: set[str] = set()
        self.endpoints: set[tuple[str, str]] = set()
        self.schemas: set[str] = set()
        self.fields: set[tuple[str, str]] = set()
        for release in reversed(parse_changelog(text)):  # oldest first: a re-add cancels it
            for entry in release.entries:
                if entry.kind in ("Removed", "Added"):
                    self._entry(entry.kind == "Removed", entry.text)

    def _entry(self, removed: bool, text: str) -> None:
        endpoints = {(m.lower(), p) for m, p in _METHOD_PATH.findall(text)}
        operations = set(_CONTROLLER.findall(text))
        codes = re.findall(r"`([^`]+)`", text)
        fields = {m.groups() for c in codes if (m := _FIELD.fullmatch(c))}
        fields |= {(owner, name) for name, owner in _FIELD_FROM.findall(text)}
        # Schema names: PascalCase names in a sentence that speaks of schemas, apart from the
        # schemas a removed field belonged to (they stay, without the field).
        schemas = {
            c
            for sentence in re.split(r"(?<=[.;])\s+", text)
            if "schema" in sentence
            for c in re.findall(r"`([^`]+)`", sentence)
            if _PASCAL.fullmatch(c)
        } - {name for name, _ in fields}
        for mine, found in (
            (self.endpoints, endpoints),
            (self.operations, operations),
            (self.schemas, schemas),
            (self.fields, fields),
        ):
            if removed:
                mine.update(found)
            else:
                mine.difference_update(found)


def test_removed_operations_and_schemas_stay_removed(shared_dir: Path) -> None:
    gone = Removed(_changelog(shared_dir).read_text("utf-8"))
    # What the changelog says it removed (and never re-added): the check has something to find.
    assert "getMyActiveAgentRegion" in gone.operations
    assert {"ActiveAgentRegion", "UserAttributeDTOType", "JiraSite"} <= gone.schemas
    assert ("get", "/api/v1/embed-tenants/{embedTenantName}/user-attributes") in gone.endpoints
    assert {("Agent", "integrations"), ("GenerateSession", "ephemeralTtlSeconds")} <= gone.fields
    assert "updatePublishedDashboardAiWidgetThread" not in gone.operations  # re-added in 0.6.0
    config = load_config(SPEC / "cube-codegen.yaml")
    (platform,) = [f for f in config.families if f.name == "platform"]
    result = apply_overlays(
        load_document(SNAPSHOT), [load_overlay(p) for p in _platform_overlays()], strict=True
    )
    doc = result.document
    ops = _operations(doc)
    schemas = doc["components"]["schemas"]
    assert not gone.operations & set(ops), gone.operations & set(ops)
    assert not gone.endpoints & set(ops.values()), gone.endpoints & set(ops.values())
    assert not gone.schemas & set(schemas), gone.schemas & set(schemas)
    for name, field in gone.fields:
        assert field not in (schemas.get(name, {}).get("properties") or {}), f"{name}.{field}"
    # The SDK: neither a method nor a model of that name.
    package = PACKAGE_ROOT / "cube_client" / platform.module
    source = "\n".join(p.read_text("utf-8") for p in package.rglob("*.py"))
    for name in gone.schemas:
        assert not re.search(rf"^class {name}\b", source, re.M), name
    for name in gone.operations:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        assert not re.search(rf"def {snake}\(", source), name


# --------------------------------------------------------------------------------------------
# (c) retirement


def _reworded(node: Any) -> Any:
    """``node`` with every piece of prose replaced, as the service would word it itself."""
    if isinstance(node, dict):
        return {
            k: ("worded by the service" if k in PROSE and isinstance(v, str) else _reworded(v))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_reworded(v) for v in node]
    return node


def _newer_than_07(shared: Path) -> dict[str, Any]:
    """Published 07 plus what the changelog overlays add, worded differently: the document the
    service would publish once it documents those releases."""
    file = shared / "specs" / "cube" / "platform-api.07_3320af8370b0.yaml"
    if not file.is_file():
        pytest.skip(f"{file} is not in the shared inputs")
    published = load_document(file)
    changelog_overlays = [load_overlay(p) for p in CHANGELOG_OVERLAYS]
    added = apply_overlays(copy.deepcopy(published), changelog_overlays, strict=True).document
    newer = copy.deepcopy(published)
    # New operations and schemas, and the fields, responses, enum values and rules the changelog
    # added to existing ones; everything the other overlays state stays out.
    for path, item in added["paths"].items():
        newer["paths"][path] = _reworded(item)
    for name, schema in added["components"]["schemas"].items():
        newer["components"]["schemas"][name] = _reworded(schema)
    newer["components"].setdefault("parameters", {}).update(added["components"]["parameters"])
    newer["components"].setdefault("responses", {}).update(added["components"]["responses"])
    return newer


def test_retire_helpers() -> None:
    assert is_addition("$.paths") and is_addition("$.components.schemas[?@.x].properties")
    assert not is_addition("$.components.schemas[?@.x && @.y]")
    assert not has_structure({"description": "words", "properties": {}})
    assert has_structure({"properties": {"a": {"type": "string"}}})
    node = {"type": "object", "description": "theirs", "enum": ["a", "b"]}
    assert contains(node, {"type": "object", "description": "ours", "enum": ["b"]})
    assert not contains(node, {"enum": ["c"]})


def test_additions_the_newer_document_has_are_redundant_and_named(
    shared_dir: Path, tmp_path: Path
) -> None:
    newer = _newer_than_07(shared_dir)
    paths = [p for p in _platform_overlays() if p in CHANGELOG_OVERLAYS]
    result = apply_overlays(copy.deepcopy(newer), [load_overlay(p) for p in paths], strict=True)
    statuses = {(o.overlay_file, o.index): o.status for o in result.outcomes}
    assert set(statuses.values()) == {"redundant"}, statuses
    # Redundant additions are not applied: the newer document's own wording stays.
    assert result.document == newer
    assert result.diagnostics
    for d in result.diagnostics:  # each names its overlay file and says to delete the action
        assert (
            f"delete the action from {d.file}" in d.message
            or f"delete it from {d.file}" in d.message
        )

    # overlay check: every file is named as deletable.
    spec = tmp_path / "newer.json"
    spec.write_text(json.dumps(newer), encoding="utf-8")
    run = CliRunner().invoke(overlay_cli, ["check", "--spec", str(spec), *map(str, paths)])
    assert run.exit_code == 0, run.output
    for path in paths:
        line = f"{path}: every action is redundant on {spec}; the overlay can be deleted"
        assert line in run.stdout, run.stdout

    run = CliRunner().invoke(
        overlay_cli, ["check", "--spec", str(spec), "--format", "json", *map(str, paths)]
    )
    assert run.exit_code == 0, run.output
    assert sorted(json.loads(run.stdout)["retirable"]) == sorted(map(str, paths))

    # Overlay health, as fetch, drift and update report it.
    health = check_overlays(newer, _platform_overlays(), document_file=str(spec))
    assert health.checked
    assert sorted(health.retirable) == sorted(str(p) for p in paths)
    text = render_text_health(health)
    for path in paths:
        assert f"overlay {path}: every action is redundant; the file can be deleted" in text
    redundant = [f for f in health.findings if f.status == "redundant"]
    assert redundant and all("delete" in str(f) for f in redundant)


def render_text_health(health: Any) -> str:
    from generator.drift.engine import compare

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}
    report = compare(doc, doc)
    text = render_text(report, health)
    markdown = render_markdown(report, health)
    for file in health.retirable:
        assert f"`{file}`" in markdown and "can be deleted" in markdown
    return text


def _overlay(actions: list[dict[str, Any]]) -> Any:
    from generator.overlay import parse_overlay

    doc = {"overlay": "1.0.0", "info": {"title": "t", "version": "1"}, "actions": actions}
    return parse_overlay(doc, "spec/overlays/t.overlay.yaml")


def test_engine_leaves_an_addition_the_document_words_differently_unapplied() -> None:
    doc = {
        "paths": {"/a": {"get": {"operationId": "getA", "description": "theirs", "responses": {}}}},
        "components": {"schemas": {"P": {"properties": {"actions": {"enum": ["x", "y"]}}}}},
    }
    add_op = {"/a": {"get": {"operationId": "getA", "description": "ours", "responses": {}}}}
    actions = [
        {"target": "$.paths", "update": add_op},
        {"target": "$.components.schemas.P.properties.actions.enum", "update": ["y"]},
        {"target": "$.paths['/a'].get", "update": {"description": "ours"}},  # an annotation
        {"target": "$.paths", "update": {"/b": {"get": {"responses": {}}}}},  # a real addition
    ]
    result = apply_overlays(copy.deepcopy(doc), [_overlay(actions)])
    assert [o.status for o in result.outcomes] == ["redundant", "redundant", "matched", "matched"]
    assert result.document["components"]["schemas"]["P"]["properties"]["actions"]["enum"] == [
        "x",
        "y",
    ]
    assert result.document["paths"]["/a"]["get"]["description"] == "ours"  # the annotation ran
    assert "/b" in result.document["paths"]
    redundant = [d for d in result.diagnostics if d.id == "overlay-action-redundant"]
    assert len(redundant) == 2
    assert all(
        "delete the action from spec/overlays/t.overlay.yaml" in d.message for d in redundant
    )


def test_fetch_names_a_retirable_overlay(capsys: pytest.CaptureFixture[str]) -> None:
    from generator.cli.fetch import _report_health
    from generator.drift.overlay_health import OverlayFinding, OverlayHealth

    finding = OverlayFinding("spec/overlays/t.overlay.yaml", 0, "$.paths", "redundant")
    health = OverlayHealth(
        True,
        "",
        ("spec/overlays/t.overlay.yaml",),
        (finding,),
        {"redundant": 1},
        (finding.overlay,),
    )
    _report_health(health)
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "overlay spec/overlays/t.overlay.yaml action 0 redundant: $.paths; the document already "
        "has it: delete the action from spec/overlays/t.overlay.yaml",
        "overlay spec/overlays/t.overlay.yaml: every action is redundant; the file can be deleted",
    ]
