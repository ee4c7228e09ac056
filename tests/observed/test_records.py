"""Shape records are untrusted input: each bad line is one diagnostic naming the file, the line and
the field (exit 2 at the command line, no traceback); files are size-capped; a record never puts
a name anywhere but a quoted string (JSONPath targets) or a Python identifier made the way a
document's names are. In process: no project or server needed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.diagnostics import CodegenError
from generator.observed import records as rec
from generator.observed.learned import jsonpath, seen_schema
from generator.observed.records import read_observations
from generator.release.learn import add_overlay_line
from tests.helpers import run_cli


def record(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "format": "cube-client-shapes",
        "version": 1,
        "package": "cube-client",
        "package_version": "1.0.0",
        "operation": {"method": "GET", "path": "/widgets/{widgetId}"},
        "status": 200,
        "media_type": "application/json",
        "kind": "property-unknown",
        "pointer": "/colour",
        "documented": "not listed",
        "seen": {"type": "string"},
        "count": 2,
        "first": "2026-11-01T00:00:00Z",
        "last": "2026-11-02T00:00:00Z",
    }
    base.update(changes)
    return base


def _write(path: Path, *lines: Any) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_lines_that_say_the_same_are_merged(tmp_path: Path) -> None:
    _write(tmp_path / "a.jsonl", record(), record(count=3, last="2026-11-05T00:00:00Z"))
    _write(tmp_path / "b.jsonl", record(package_version="1.1.0", first="2026-10-01T00:00:00Z"))
    (one,) = read_observations([tmp_path])
    assert (one.count, one.first, one.last) == (7, "2026-10-01T00:00:00Z", "2026-11-05T00:00:00Z")
    assert one.versions == ("1.0.0", "1.1.0")


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (record(version=2), "version"),
        (record(format="other"), "format"),
        (record(secret="x"), "secret"),
        (
            record(kind="property-unknown", seen={"type": "string", "value": "hunter2"}),
            "seen/value",
        ),
        (record(seen={"type": "string", "format": "password"}), "seen/format"),
        (record(pointer="/a/" + "x" * 300), "pointer"),
        (record(pointer="/a\nb"), "pointer"),
        (record(operation={"method": "get ", "path": "/x"}), "operation/method"),
        (record(operation={"method": "GET", "path": "/x\u0000"}), "operation/path"),
        (record(status=42), "status"),
        (record(count=0), "count"),
        (record(first="yesterday"), "first"),
        ([1, 2], ""),
    ],
)
def test_a_bad_line_names_file_line_and_field(tmp_path: Path, bad: Any, field: str) -> None:
    path = _write(tmp_path / "r.jsonl", record(), bad)
    with pytest.raises(CodegenError) as caught:
        read_observations([path])
    found = caught.value.first
    assert found.id == "records-invalid" and found.file == str(path)
    assert found.pointer == "/2" + (f"/{field}" if field else "")


def test_the_file_size_cap_at_its_edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "r.jsonl", record())
    monkeypatch.setattr(rec, "MAX_FILE_BYTES", path.stat().st_size)
    assert len(read_observations([path])) == 1  # exactly the cap
    monkeypatch.setattr(rec, "MAX_FILE_BYTES", path.stat().st_size - 1)
    with pytest.raises(CodegenError, match="exceeds"):
        read_observations([path])


def test_a_link_or_a_device_is_refused(tmp_path: Path) -> None:
    target = _write(tmp_path / "real.jsonl", record())
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    with pytest.raises(CodegenError):
        read_observations([link])
    with pytest.raises(CodegenError, match="regular file"):
        read_observations(["/dev/null"])


def test_bad_records_exit_2_with_one_line(tmp_path: Path) -> None:
    _write(tmp_path / "r.jsonl", record(version=9))
    (tmp_path / "spec").mkdir()
    done = run_cli("learn", str(tmp_path / "r.jsonl"), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "r.jsonl#/1/version" in lines[0] and "Traceback" not in done.stderr


def test_names_become_quoted_targets_and_identifiers() -> None:
    """A hostile field name stays a quoted JSONPath string and a YAML key; in Python it is named
    as a document's property would be."""
    from generator.ir.naming import PythonIdentifier

    hostile = "x'] | $..*; __import__('os')"
    target = jsonpath(("components", "schemas", "W", "properties"))
    assert target == "$['components']['schemas']['W']['properties']"
    quoted = jsonpath(("a", hostile))
    assert quoted == "$['a']['x\\'] | $..*; __import__(\\'os\\')']"
    assert str(PythonIdentifier(hostile)).isidentifier()
    assert seen_schema([("string", "date-time"), ("null", None)]) == {
        "type": "string",
        "format": "date-time",
        "nullable": True,
    }
    assert seen_schema([("integer", None), ("number", None)]) == {"type": "number"}


CONFIG = """\
# comment kept
families:
  - name: api
    document: api.yaml
    overlays:
      - overlays/a.overlay.yaml
    module: api
  - name: other
    document: other.yaml
    module: other
"""


def test_the_learned_overlay_is_listed_under_its_family_only() -> None:
    text = add_overlay_line(CONFIG, "api", "overlays/api/learned.overlay.yaml")
    assert text is not None and text.startswith("# comment kept\n")
    assert "      - overlays/a.overlay.yaml\n      - overlays/api/learned.overlay.yaml\n" in text
    assert add_overlay_line(text, "api", "overlays/api/learned.overlay.yaml") == text
    other = add_overlay_line(CONFIG, "other", "overlays/other/learned.overlay.yaml")
    assert other is not None
    assert "    document: other.yaml\n    overlays:\n      - overlays/other/learned" in other
    assert add_overlay_line(CONFIG, "missing", "x") is None
