"""Rendering and release helpers: colour only when asked, changelog placement, version arithmetic."""

from __future__ import annotations

import pytest

from generator.diagnostics import CodegenError
from generator.drift.engine import DriftReport
from generator.drift.model import Change
from generator.drift.report import render_markdown, render_text
from generator.release.versioning import bump_config_text, bump_kind, next_version, prepend_section

BREAKING = Change("operation-removed", "breaking", "GET /a", "/paths/~1a/get", "operation removed")
INFO = Change("operation-added", "info", "GET /b", "/paths/~1b/get", "operation added")
DOC_WIDE = Change("server-added", "info", None, "/servers/1", "server https://x added")


def test_text_colour_only_when_asked() -> None:
    report = DriftReport((BREAKING, INFO))
    plain = render_text(report)
    coloured = render_text(report, colour=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31mBREAKING" in coloured and "\x1b[36mINFO" in coloured
    assert plain.splitlines()[0] == "BREAKING GET /a: operation removed [operation-removed]"


def test_document_wide_changes_are_labelled() -> None:
    assert "(document): server https://x added" in render_text(DriftReport((DOC_WIDE,)))
    assert "| *document* |" in render_markdown(DriftReport((DOC_WIDE,)))


def test_markdown_without_changes() -> None:
    assert render_markdown(DriftReport(())) == "## API drift\n\nNo API changes.\n"


@pytest.mark.parametrize(
    ("changes", "kind"), [((), None), ((INFO,), "minor"), ((INFO, BREAKING), "major")]
)
def test_bump_kind(changes: tuple[Change, ...], kind: str | None) -> None:
    assert bump_kind(DriftReport(changes)) == kind


@pytest.mark.parametrize(
    ("version", "kind", "expected"),
    [
        ("1.2.3", "major", "2.0.0"),
        ("1.2.3", "minor", "1.3.0"),
        ("0.9.9", "minor", "0.10.0"),
        ("1.2.3", None, "1.2.3"),
        ("0.4.1", "major", "1.0.0"),  # a break on 0.x goes to 1.0
        ("2.0.0rc1", "major", "2.0.0"),  # the pre-release's own release holds the break
        ("2.0.0rc1", "minor", "2.0.0"),
        ("1.2.1rc1", "major", "2.0.0"),
        ("1.3.0.dev2", "minor", "1.3.0"),
        ("1.3.0.dev2", "patch", "1.3.0"),
        ("1.2.3.post1", "patch", "1.2.4"),  # a post-release counts as its release
        ("1.2.3.post1", "major", "2.0.0"),
        ("1.2", "minor", "1.3.0"),
    ],
)
def test_next_version(version: str, kind: str | None, expected: str) -> None:
    assert next_version(version, kind) == expected


def test_bump_keeps_comments_crlf_and_other_versions() -> None:
    text = (
        "package:\r\n  # the version\r\n  version: '2.0.1' # keep\r\ntools:\r\n  version: 2.0.1\r\n"
    )
    edit = bump_config_text(text, "c.yaml", "minor")
    assert edit.text == text.replace("version: '2.0.1' # keep", "version: '2.1.0' # keep")


@pytest.mark.parametrize(
    "text",
    ["package:\n  version: 1.2\n", "package: {}\n", "- a list\n", "package:\n  version: v1.2.3\n"],
)
def test_bump_refuses_what_it_cannot_edit(text: str) -> None:
    with pytest.raises(CodegenError) as caught:
        bump_config_text(text, "c.yaml", "major")
    assert caught.value.first.pointer == "/package/version"


def test_prepend_section_placement() -> None:
    section = "## 2.0.0 (2026-01-01)\n\n- change\n"
    assert prepend_section("", section) == "# Changelog\n\n" + section
    assert prepend_section("# Log\n\n## 1.0.0\n", section) == "# Log\n\n" + section + "\n## 1.0.0\n"
    assert prepend_section("## 1.0.0\n", section) == section + "\n## 1.0.0\n"


def test_public_api_is_pinned() -> None:
    import generator.document.fetch
    import generator.drift

    assert sorted(generator.drift.__all__) == sorted(
        [
            "LEVELS",
            "RULES",
            "Change",
            "ChangeLevel",
            "DriftReport",
            "Rule",
            "check_document",
            "compare",
        ]
    )
    assert sorted(generator.document.fetch.__all__) == sorted(
        [
            "BASE_URL_ENV", "DEFAULT_OUT", "TOKEN_ENV", "FetchError", "FetchedSpec", "SnapshotResult",
            "fetch_live", "fetch_spec", "fetch_to_file", "openapi_problem", "redact", "retry_delay",
            "snapshot_text", "spec_url", "ssl_context", "write_snapshot",
        ]
    )  # fmt: skip
    for module in (generator.drift, generator.document.fetch):
        for name in module.__all__:
            assert hasattr(module, name), name


def test_a_pre_release_version_line_is_bumped_in_place() -> None:
    text = "package:\n  name: p\n  version: 2.0.0rc1  # next\n"
    edit = bump_config_text(text, "c.yaml", "major")
    assert (edit.old, edit.new) == ("2.0.0rc1", "2.0.0")
    assert edit.text == "package:\n  name: p\n  version: 2.0.0  # next\n"


def test_a_version_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="not a version"):
        next_version("one.two", "minor")
