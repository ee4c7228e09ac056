"""Whatever a document names stays inert text in Markdown (issue 32): ``drift --format
markdown``, the update's pull-request summary and its failure summary. A backtick in a property
name once closed its code span, and the rest became a live link, an image and a mention."""

from __future__ import annotations

import re
from typing import Any

import pytest
from markdown_it import MarkdownIt

from generator.diagnostics import error, markdown_line
from generator.drift.engine import compare
from generator.drift.report import changelog_lines, render_markdown
from generator.release.update import failure_markdown

HOSTILE = "a` [x](https://evil.example) ![i](https://evil.example/i.png) @admin <b>hi</b> `b"


def _doc(extra: bool) -> dict[str, Any]:
    props: dict[str, Any] = {"id": {"type": "string"}}
    if extra:
        props[HOSTILE] = {"type": "string"}
    schema = {"type": "object", "required": ["id"], "properties": props}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {f"/t`{HOSTILE}": {"get": {"operationId": "getT", "responses": {"200": ok}}}},
    }


def _inert(markdown: str) -> None:
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<a " not in html and "<img" not in html and "<b>" not in html, html
    text = re.sub(r"<code>.*?</code>", "", html)  # GitHub makes nothing live in a code span
    for live in ("@admin", "https://evil", "www.evil"):
        assert live not in text, html  # a mention, an autolink
    assert "evil.example" in html  # still said, as text


@pytest.mark.parametrize("removed", [True, False])
def test_drift_markdown_keeps_hostile_names_inert(removed: bool) -> None:
    report = compare(_doc(removed), _doc(not removed))
    assert report.changes
    _inert(render_markdown(report))
    _inert("\n".join(changelog_lines(report.changes)))


def test_a_failed_update_summary_keeps_hostile_names_inert() -> None:
    diagnostic = error("bad", "spec/api.yaml", f"/components/schemas/{HOSTILE}", HOSTILE).first
    _inert(failure_markdown("https://tenant.example", [diagnostic]))


def test_markdown_line_escapes_each_opening() -> None:
    assert markdown_line("`a` *b* _c_ [d] <e> !f #g |h ~i &j") == (
        "\\`a\\` \\*b\\* \\_c\\_ \\[d\\] \\<e\\> \\!f \\#g \\|h \\~i \\&j"
    )
    assert markdown_line("@me https://x www.y") == "@\u2060me https:/\u2060/x www\u2060.y"
