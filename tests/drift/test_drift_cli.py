"""``cube-codegen drift``: exit codes, the three formats, live input, changelog and version bump."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

import generator.document.fetch
from generator.cli.drift import drift
from tests.helpers import openapi_document, run_cli

OK = {"200": {"description": "ok"}}


def spec(paths: dict[str, Any]) -> dict[str, Any]:
    return openapi_document(paths)


BASE = spec(
    {
        "/items": {"get": {"responses": OK}},
        "/items/{id}": {
            "get": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": OK,
            }
        },
    }
)
ADDED = spec({**BASE["paths"], "/more": {"get": {"responses": OK}}})  # info only
DEPRECATED = spec(
    {**BASE["paths"], "/items": {"get": {"responses": OK, "deprecated": True}}}
)  # warning
REMOVED = spec({"/items": BASE["paths"]["/items"]})  # breaking


def write(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(doc), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return str(path)


def run(tmp_path: Path, *args: str) -> Result:
    return CliRunner().invoke(
        drift, [*args, "--overlays", str(tmp_path / "none")], catch_exceptions=False
    )


@pytest.mark.parametrize(
    ("new", "fail_on", "code"),
    [
        (BASE, "breaking", 0),
        (BASE, "info", 0),
        (ADDED, "breaking", 0),
        (ADDED, "warning", 0),
        (ADDED, "info", 1),
        (DEPRECATED, "breaking", 0),
        (DEPRECATED, "warning", 1),
        (REMOVED, "breaking", 1),
        (REMOVED, "info", 1),
    ],
)
def test_exit_codes(tmp_path: Path, new: Any, fail_on: str, code: int) -> None:
    old_file = write(tmp_path, "old.yaml", BASE)
    new_file = write(tmp_path, "new.json", new)
    result = run(tmp_path, old_file, new_file, "--fail-on", fail_on)
    assert result.exit_code == code, result.output


def test_default_fail_on_is_breaking(tmp_path: Path) -> None:
    old_file = write(tmp_path, "old.yaml", BASE)
    assert run(tmp_path, old_file, write(tmp_path, "a.yaml", DEPRECATED)).exit_code == 0
    assert run(tmp_path, old_file, write(tmp_path, "r.yaml", REMOVED)).exit_code == 1


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "no such file"),
        ("openapi: [unclosed\n", "malformed YAML"),
        ("swagger: '2.0'\npaths: {}\n", "Swagger 2.0"),
        ("- just\n- a list\n", "not an OpenAPI document"),
        (
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
            "      responses:\n        '200': {$ref: '#/components/responses/Nope'}\n",
            "names nothing",
        ),
    ],
)
def test_invalid_input_exits_2_with_one_line(
    tmp_path: Path, content: str | None, needle: str
) -> None:
    old_file = write(tmp_path, "old.yaml", BASE)
    bad = tmp_path / "bad.yaml"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    result = run(tmp_path, old_file, str(bad))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and str(bad) in lines[0]
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_dangling_ref_names_the_pointer(tmp_path: Path) -> None:
    doc = spec({"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Nope"}}}}})
    old_file = write(tmp_path, "old.yaml", spec({"/a": {"get": {"responses": OK}}}))
    result = run(tmp_path, old_file, write(tmp_path, "new.yaml", doc))
    assert result.exit_code == 2
    assert "#/paths/~1a/get/responses/200" in result.stderr


def _removed_json(tmp_path: Path, tag: str = "") -> Any:
    old, new = write(tmp_path, f"o{tag}.yaml", BASE), write(tmp_path, f"n{tag}.yaml", REMOVED)
    return json.loads(run(tmp_path, old, new, "--format", "json").stdout)


def test_json_format(tmp_path: Path) -> None:
    data = _removed_json(tmp_path)
    assert list(data) == ["changes"]
    assert data["changes"] == [
        {
            "id": "operation-removed",
            "level": "breaking",
            "operation": "GET /items/{id}",
            "pointer": "/paths/~1items~1{id}/get",
            "message": "operation removed",
            "fingerprint": data["changes"][0]["fingerprint"],
            "surface": {
                "kind": "method",
                "python": "client.default.get_items_id()",
                "resource": "default",
                "method": "get_items_id",
            },
            "still_type_checks": False,
            "lines": {"old": 13, "new": 6},  # the operation in OLD; its nearest ancestor in NEW
        }
    ]
    fingerprint = data["changes"][0]["fingerprint"]
    assert len(fingerprint) == 16 and int(fingerprint, 16) >= 0
    assert _removed_json(tmp_path, "2")["changes"][0]["fingerprint"] == fingerprint


def test_json_format_is_sorted_by_level(tmp_path: Path) -> None:
    new = spec(
        {
            "/items": {"get": {"responses": OK, "deprecated": True}},
            "/more": {"get": {"responses": OK}},
        }
    )
    result = run(
        tmp_path,
        write(tmp_path, "o.yaml", BASE),
        write(tmp_path, "n.yaml", new),
        "--format",
        "json",
    )
    levels = [c["level"] for c in json.loads(result.stdout)["changes"]]
    assert levels == ["breaking", "warning", "info"]


def test_markdown_format(tmp_path: Path) -> None:
    new = spec(
        {
            "/items": {"get": {"responses": OK, "deprecated": True}},
            "/more": {"get": {"responses": OK}},
        }
    )
    result = run(
        tmp_path,
        write(tmp_path, "o.yaml", BASE),
        write(tmp_path, "n.yaml", new),
        "--format",
        "markdown",
    )
    text = result.stdout
    assert text.startswith("## API drift\n")
    assert "**1 breaking, 1 warning, 1 info**" in text
    assert text.index("### Breaking (1)") < text.index("### Warnings (1)") < text.index("Info (1)")
    row = next(line for line in text.splitlines() if "operation removed" in line)
    assert row.startswith(
        "| `GET /items/{id}` | `client.default.get_items_id()` | **no** | operation removed | "
        "`operation-removed` `"
    )
    assert row.endswith("| 13 |")  # the removed operation's line in OLD
    assert "\x1b[" not in text


def test_markdown_escapes_table_breakers(tmp_path: Path) -> None:
    old = spec({"/a": {"get": {"operationId": "x|y", "responses": OK}}})
    new = spec({"/a": {"get": {"operationId": "z<b>", "responses": OK}}})
    result = run(
        tmp_path,
        write(tmp_path, "o.yaml", old),
        write(tmp_path, "n.yaml", new),
        "--format",
        "markdown",
    )
    row = next(line for line in result.stdout.splitlines() if "operationId" in line)
    assert row.count(" | ") == 5  # six cells, the pipe in the value escaped
    assert "x\\|y" in row and "z\\<b\\>" in row  # a tag kept inert by backslash escapes


def test_text_format(tmp_path: Path) -> None:
    result = run(tmp_path, write(tmp_path, "o.yaml", BASE), write(tmp_path, "n.yaml", REMOVED))
    lines = result.stdout.splitlines()
    assert lines[0] == "BREAKING GET /items/{id}: operation removed [operation-removed]"
    assert lines[1].startswith("         client.default.get_items_id(): no longer type-checks [")
    assert lines[2] == "1 breaking, 0 warning, 0 info"
    assert "\x1b[" not in result.stdout  # not a terminal: no colour


def _versioned(doc: dict[str, Any], version: str) -> dict[str, Any]:
    return {**doc, "info": {**doc["info"], "version": version}}


@pytest.mark.parametrize(
    ("old", "new", "extra", "code"),
    [
        ("1.4.0", "1.5.0", [], 1),  # breaking, minor bump only: refused
        ("1.4.0", "2.0.0", [], 0),  # major bump of info.version
        ("1.4.0", "1.4.0", ["--package-versions", "3.1.0", "4.0.0"], 0),  # package major
        ("1.4.0", "1.4.0", ["--package-versions", "3.1.0", "3.2.0"], 1),
    ],
)
def test_require_version_bump(
    tmp_path: Path, old: str, new: str, extra: list[str], code: int
) -> None:
    result = run(
        tmp_path,
        write(tmp_path, "o.yaml", _versioned(BASE, old)),
        write(tmp_path, "n.yaml", _versioned(REMOVED, new)),
        "--fail-on",
        "info",
        "--require-version-bump",
        *extra,
    )
    if code:
        assert result.exit_code == 1
        assert "without a major version bump" in result.stderr
        assert "[drift-version-bump-required]" in result.stderr
    else:
        assert "without a major version bump" not in result.stderr


def test_require_version_bump_ignores_non_breaking_changes(tmp_path: Path) -> None:
    new = spec({**BASE["paths"], "/more": {"get": {"responses": OK}}})
    result = run(
        tmp_path,
        write(tmp_path, "o.yaml", BASE),
        write(tmp_path, "n.yaml", new),
        "--require-version-bump",
    )
    assert result.exit_code == 0, result.stderr


def test_no_changes_text(tmp_path: Path) -> None:
    result = run(tmp_path, write(tmp_path, "o.yaml", BASE), write(tmp_path, "n.json", BASE))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "no API changes"


def test_live_side_uses_the_fetch_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generator.document.fetch, "fetch_live", lambda *a, **k: REMOVED)
    result = run(tmp_path, write(tmp_path, "o.yaml", BASE), "live", "--format", "json")
    assert result.exit_code == 1
    assert [c["id"] for c in json.loads(result.stdout)["changes"]] == ["operation-removed"]


def test_live_without_configuration_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CUBE_BASE_URL", raising=False)
    result = run(tmp_path, write(tmp_path, "o.yaml", BASE), "live")
    assert result.exit_code == 2
    assert "CUBE_BASE_URL" in result.stderr


# --- changelog and version bump -------------------------------------------------------------------

CONFIG = """# project configuration
package:
  name: cube_client   # the import name
  version: 1.4.2  # bumped by cube-codegen drift
  changelog: CHANGELOG.md
families:
  - name: platform
    version: 1.4.2
"""
CHANGELOG = "# Changelog\n\n## 1.4.2\n\n- Earlier release.\n"


def release_files(tmp_path: Path) -> tuple[Path, Path]:
    config, log = tmp_path / "cube-codegen.yaml", tmp_path / "CHANGELOG.md"
    config.write_text(CONFIG, encoding="utf-8")
    log.write_text(CHANGELOG, encoding="utf-8")
    return config, log


@pytest.mark.parametrize(
    ("new", "version"), [(REMOVED, "2.0.0"), (DEPRECATED, "1.5.0"), (ADDED, "1.5.0")]
)
def test_bump_and_changelog(tmp_path: Path, new: Any, version: str) -> None:
    config, log = release_files(tmp_path)
    old_file, new_file = write(tmp_path, "o.yaml", BASE), write(tmp_path, "n.yaml", new)
    result = run(
        tmp_path, old_file, new_file, "--changelog", str(log), "--bump-version", str(config)
    )
    assert result.exit_code == (1 if new is REMOVED else 0)
    expected = CONFIG.replace("  version: 1.4.2  # bumped", f"  version: {version}  # bumped")
    assert config.read_text(encoding="utf-8") == expected  # one line changed, nothing else
    text = log.read_text(encoding="utf-8")
    assert text.startswith(f"# Changelog\n\n## {version} (")
    assert text.endswith("## 1.4.2\n\n- Earlier release.\n")
    assert f"1.4.2 -> {version}" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_breaking_changes_are_listed_in_the_changelog(tmp_path: Path) -> None:
    config, log = release_files(tmp_path)
    old_file, new_file = write(tmp_path, "o.yaml", BASE), write(tmp_path, "n.yaml", REMOVED)
    run(tmp_path, old_file, new_file, "--changelog", str(log), "--bump-version", str(config))
    assert (
        "- **breaking** `GET /items/{id}`: operation removed (`operation-removed`)"
        in log.read_text()
    )


def test_no_changes_leaves_version_and_changelog(tmp_path: Path) -> None:
    config, log = release_files(tmp_path)
    old_file, new_file = write(tmp_path, "o.yaml", BASE), write(tmp_path, "n.yaml", BASE)
    result = run(
        tmp_path, old_file, new_file, "--changelog", str(log), "--bump-version", str(config)
    )
    assert result.exit_code == 0
    assert config.read_text() == CONFIG and log.read_text() == CHANGELOG


def test_flow_style_and_quoted_versions(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text('package: {name: x, version: "0.9.1"}\nother: 1\n', encoding="utf-8")
    old_file, new_file = write(tmp_path, "o.yaml", BASE), write(tmp_path, "n.yaml", ADDED)
    assert run(tmp_path, old_file, new_file, "--bump-version", str(config)).exit_code == 0
    assert config.read_text() == 'package: {name: x, version: "0.10.0"}\nother: 1\n'


def test_bad_config_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    config, log = release_files(tmp_path)
    config.write_text("package:\n  name: x\n", encoding="utf-8")
    old_file, new_file = write(tmp_path, "o.yaml", BASE), write(tmp_path, "n.yaml", REMOVED)
    result = run(
        tmp_path, old_file, new_file, "--changelog", str(log), "--bump-version", str(config)
    )
    assert result.exit_code == 2
    assert "package.version" in result.stderr
    assert log.read_text() == CHANGELOG


def test_default_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "cube-codegen.yaml").write_text(CONFIG, encoding="utf-8")
    old_file, new_file = write(tmp_path, "o.yaml", BASE), write(tmp_path, "n.yaml", ADDED)
    result = run(tmp_path, old_file, new_file, "--changelog", "--bump-version")
    assert result.exit_code == 0, result.output
    assert "version: 1.5.0  #" in (tmp_path / "spec" / "cube-codegen.yaml").read_text()
    assert (tmp_path / "spec" / "CHANGELOG.md").read_text().startswith("# Changelog\n\n## 1.5.0 (")


def test_a_cold_names_cache_gives_the_same_surface(tmp_path: Path) -> None:
    """A fresh process on a fresh machine (no run state, an empty per-user cache) derives the
    names the templates bind instead of losing the SDK surface of every finding."""
    old, new = write(tmp_path, "o.json", BASE), write(tmp_path, "n.json", REMOVED)
    env = {"XDG_CACHE_HOME": str(tmp_path / "empty-cache")}
    proc = run_cli("drift", old, new, "--format", "json", "--no-overlays", cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    [change] = json.loads(proc.stdout)["changes"]
    assert change["surface"]["python"] == "client.default.get_items_id()"
    assert change["lines"] == {"old": 1, "new": 1}  # one-line JSON: every pointer is on line 1


def test_comparing_in_a_child_gives_what_one_process_gives(tmp_path: Path) -> None:
    """The comparison runs on a second core while the surfaces are built: the report is the
    same, finding for finding, as when nothing may fork (and exit codes agree)."""
    old = write(tmp_path, "o.json", BASE)
    new = write(
        tmp_path, "n.json", {**DEPRECATED, "paths": {"/items": DEPRECATED["paths"]["/items"]}}
    )
    args = ("drift", old, new, "--format", "json", "--no-overlays")
    forked = run_cli(*args, cwd=tmp_path)
    alone = run_cli(*args, cwd=tmp_path, env={"CUBE_CODEGEN_NO_FORK": "1"})
    assert (forked.returncode, alone.returncode) == (1, 1), forked.stderr + alone.stderr
    assert forked.stdout == alone.stdout
    ids = sorted(c["id"] for c in json.loads(forked.stdout)["changes"])
    assert ids == ["operation-deprecated", "operation-removed"]
