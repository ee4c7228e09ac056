"""``overlay apply`` / ``overlay check``: exit codes, atomic output, formats, the drift report."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from generator.cli.overlay import overlay

SPEC = """\
openapi: 3.1.0
info:
  title: Platform
  version: 1.0.0
paths:
  /pets:
    get:
      summary: List pets
      tags: [pets]
  /items:
    get:
      summary: List items
"""


def write_overlay(path: Path, *actions: dict[str, Any], version: str = "1.1.0") -> Path:
    doc = {"overlay": version, "info": {"title": "t", "version": "1"}, "actions": list(actions)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "spec" / "platform-api.yaml"
    path.parent.mkdir()
    path.write_text(SPEC, encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(overlay, [str(a) for a in args])


def assert_exit(result: Result, code: int) -> None:
    assert result.exit_code == code, (result.stdout, result.stderr)
    # Failures are reported, never raised: no traceback behind the exit code.
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.stderr


def files_in(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


# -------------------------------------------------------------------------------------- apply


def test_apply_writes_yaml_in_block_style_keeping_key_order(spec: Path, tmp_path: Path) -> None:
    ov = write_overlay(
        tmp_path / "a.overlay.yaml",
        {"target": "$.info", "update": {"description": "Pets", "x-logo": {"url": "u"}}},
        {"target": "$.paths.*.get.tags", "update": "all"},
    )
    out = tmp_path / "out" / "api.yaml"
    out.parent.mkdir()
    result = invoke("apply", spec, ov, "--out", out)
    assert_exit(result, 0)
    text = out.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert list(data) == ["openapi", "info", "paths"]
    assert list(data["info"]) == ["title", "version", "description", "x-logo"]
    assert data["paths"]["/pets"]["get"]["tags"] == ["pets", "all"]
    assert "tags" not in data["paths"]["/items"]["get"]
    assert "{" not in text and "[" not in text  # block style throughout
    assert files_in(out.parent) == {"api.yaml"}  # no temp file left behind


@pytest.mark.parametrize("name", ["api.json", "API.JSON"])
def test_apply_writes_json_by_extension(spec: Path, tmp_path: Path, name: str) -> None:
    ov = write_overlay(tmp_path / "a.overlay.yaml", {"target": "$.info.title", "update": "T"})
    out = tmp_path / name
    assert_exit(invoke("apply", spec, ov, "--out", out), 0)
    text = out.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["info"]["title"] == "T"
    assert text.startswith('{\n  "openapi": "3.1.0",\n  "info": {\n    "title"')
    assert list(data) == ["openapi", "info", "paths"]


def test_apply_several_overlays_in_order(spec: Path, tmp_path: Path) -> None:
    first = write_overlay(tmp_path / "1.overlay.yaml", {"target": "$.info", "update": {"x-n": 1}})
    second = write_overlay(tmp_path / "2.overlay.yaml", {"target": "$.info['x-n']", "update": 2})
    out = tmp_path / "api.yml"
    assert_exit(invoke("apply", spec, first, second, "--out", out), 0)
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["info"]["x-n"] == 2


def test_apply_replaces_an_existing_output_and_keeps_its_mode(spec: Path, tmp_path: Path) -> None:
    ov = write_overlay(tmp_path / "a.overlay.yaml", {"target": "$.info.title", "update": "New"})
    out = tmp_path / "api.yaml"
    out.write_text("old: true\n", encoding="utf-8")
    out.chmod(0o640)
    assert_exit(invoke("apply", spec, ov, "--out", out), 0)
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["info"]["title"] == "New"
    assert out.stat().st_mode & 0o777 == 0o640


@pytest.fixture
def previous_output(tmp_path: Path) -> Path:
    out = tmp_path / "out" / "api.yaml"
    out.parent.mkdir()
    out.write_text("previous: output\n", encoding="utf-8")
    os.utime(out, (1_000_000, 1_000_000))
    return out


def assert_untouched(out: Path) -> None:
    assert out.read_text(encoding="utf-8") == "previous: output\n"
    assert out.stat().st_mtime == 1_000_000
    assert files_in(out.parent) == {out.name}


def test_apply_exits_1_and_writes_nothing_when_an_action_matches_nothing(
    spec: Path, tmp_path: Path, previous_output: Path
) -> None:
    ov = write_overlay(
        tmp_path / "a.overlay.yaml",
        {"target": "$.info", "update": {"x-a": 1}},
        {"target": "$.paths['/gone'].get", "update": {"x-b": 1}, "description": "gone op"},
    )
    result = invoke("apply", spec, ov, "--out", previous_output)
    assert_exit(result, 1)
    assert_untouched(previous_output)
    assert f"{ov}#/actions/1/target" in result.stderr
    assert "gone op" in result.stderr and "[overlay-action-unmatched]" in result.stderr
    assert result.stdout == ""


def test_apply_fresh_output_is_not_created_on_failure(spec: Path, tmp_path: Path) -> None:
    ov = write_overlay(tmp_path / "a.overlay.yaml", {"target": "$.nothing", "remove": True})
    out = tmp_path / "new.yaml"
    assert_exit(invoke("apply", spec, ov, "--out", out), 1)
    assert not out.exists()


def test_apply_optional_unmatched_and_redundant_actions_still_write(
    spec: Path, tmp_path: Path
) -> None:
    ov = write_overlay(
        tmp_path / "a.overlay.yaml",
        {"target": "$.servers", "remove": True, "x-cube-optional": True},
        {"target": "$.info.title", "update": "Platform"},
    )
    out = tmp_path / "api.yaml"
    result = invoke("apply", spec, ov, "--out", out)
    assert_exit(result, 0)
    assert out.exists()
    assert "warning" in result.stderr and "[overlay-action-redundant]" in result.stderr


HEAD = "overlay: 1.1.0\ninfo: {title: t, version: '1'}\n"


@pytest.mark.parametrize(
    ("overlay_text", "expected"),
    [
        ("overlay: 1.1.0\ninfo: {title: t}\nactions: [{target: $}]\n", "#/info: error: 'version'"),
        (HEAD + "actions:\n  - {target: '$.a-b'}\n", "#/actions/0/target: error: action #0"),
        (HEAD + "actions:\n  - {target: $.info, update: x}\n", "#/actions/0/update: error:"),
        ("overlay: [\n", "malformed YAML"),
        (json.dumps({**yaml.safe_load(HEAD + "actions: [{target: $}]"), "a\nb": 1}), "'a\\x0ab'"),
    ],
)
def test_apply_exits_2_with_one_line_on_invalid_overlay(
    spec: Path, tmp_path: Path, previous_output: Path, overlay_text: str, expected: str
) -> None:
    ov = tmp_path / "bad.overlay.yaml"
    ov.write_text(overlay_text, encoding="utf-8")
    result = invoke("apply", spec, ov, "--out", previous_output)
    assert_exit(result, 2)
    assert_untouched(previous_output)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"cube-codegen: {ov}")
    assert expected in result.stderr


def test_apply_exits_2_on_missing_spec_and_bad_output_name(tmp_path: Path, spec: Path) -> None:
    ov = write_overlay(tmp_path / "a.overlay.yaml", {"target": "$.info.title", "update": "T"})
    result = invoke("apply", tmp_path / "nope.yaml", ov, "--out", tmp_path / "o.yaml")
    assert_exit(result, 2)
    assert "nope.yaml" in result.stderr and "[file-not-found]" in result.stderr

    result = invoke("apply", spec, ov, "--out", tmp_path / "o.txt")
    assert_exit(result, 2)
    assert "o.txt" in result.stderr and ".json, .yaml or .yml" in result.stderr
    assert not (tmp_path / "o.txt").exists()

    result = invoke("apply", spec, ov, "--out", tmp_path / "no-such-dir" / "o.yaml")
    assert_exit(result, 2)
    assert "cannot write" in result.stderr


# -------------------------------------------------------------------------------------- check


@pytest.fixture
def project(spec: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory laid out like the repository: spec/ and spec/overlays/."""
    root = spec.parent.parent
    monkeypatch.chdir(root)
    return root


def test_check_reports_every_action_and_exits_1_on_unmatched(project: Path) -> None:
    overlays = project / "spec" / "overlays"
    write_overlay(
        overlays / "b-late.overlay.yaml",
        {"target": "$.paths['/gone']", "remove": True, "description": "drop gone"},
    )
    write_overlay(
        overlays / "a-early.overlay.yaml",
        {"target": "$.info", "update": {"x-a": 1}, "description": "mark"},
        {"target": "$.info.title", "update": "Platform", "description": "same title"},
        {"target": "$.servers", "remove": True, "x-cube-optional": True},
    )
    write_overlay(overlays / "ignored.yaml", {"target": "$.nothing", "remove": True})
    result = invoke("check")
    assert_exit(result, 1)
    lines = result.stdout.splitlines()
    early, late = "spec/overlays/a-early.overlay.yaml", "spec/overlays/b-late.overlay.yaml"
    assert lines[:4] == [
        f"matched  {early}#0  $.info  mark",
        f"redundant  {early}#1  $.info.title  same title",
        f"absent  {early}#2  $.servers",
        f"unmatched  {late}#0  $.paths['/gone']  drop gone",
    ]
    assert len(lines) == 5
    summary = lines[4]
    for part in (
        "4 action(s)",
        "2 overlay(s)",
        "1 matched",
        "1 redundant",
        "1 unmatched",
        "1 absent",
    ):
        assert part in summary


def test_check_exits_0_without_unmatched_actions(project: Path) -> None:
    ov = write_overlay(
        project / "elsewhere.overlay.yaml",
        {"target": "$.info.title", "update": "Platform"},
        {"target": "$.servers", "remove": True, "x-cube-optional": True},
    )
    result = invoke("check", "--spec", project / "spec" / "platform-api.yaml", ov)
    assert_exit(result, 0)
    assert [line.split()[0] for line in result.stdout.splitlines()[:2]] == ["redundant", "absent"]


def test_check_json_format(project: Path) -> None:
    ov = write_overlay(
        project / "x.overlay.yaml",
        {"target": "$.paths.*.get", "update": {"x-n": 1}, "description": "all gets"},
        {"target": "$.webhooks", "remove": True},
    )
    result = invoke("check", "--format", "json", ov)
    assert_exit(result, 1)
    report = json.loads(result.stdout)
    assert report == {
        "actions": [
            {
                "overlay": str(ov),
                "index": 0,
                "target": "$.paths.*.get",
                "description": "all gets",
                "status": "matched",
                "matches": 2,
            },
            {
                "overlay": str(ov),
                "index": 1,
                "target": "$.webhooks",
                "description": "",
                "status": "unmatched",
                "matches": 0,
            },
        ]
    }


def test_check_without_overlays_says_so(project: Path) -> None:
    result = invoke("check")
    assert_exit(result, 0)
    assert "no overlays" in result.stdout and "*.overlay.yaml" in result.stdout


def test_check_exits_2_on_invalid_overlay(project: Path) -> None:
    ov = project / "spec" / "overlays" / "bad.overlay.yaml"
    ov.parent.mkdir()
    ov.write_text(
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions: [{target: $, copy: $.a}]\n"
    )
    result = invoke("check")
    assert_exit(result, 2)
    assert result.stderr.startswith(
        "cube-codegen: spec/overlays/bad.overlay.yaml#/actions/0/copy: error:"
    )
    assert result.stdout == ""
