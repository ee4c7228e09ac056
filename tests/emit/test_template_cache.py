"""Compiled templates are kept between runs, and a damaged or stale entry is compiled again."""

from __future__ import annotations

from pathlib import Path

import jinja2

from generator.emit.template_cache import TemplateCache


def _env(folder: Path, templates: Path) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        bytecode_cache=TemplateCache(folder),
        autoescape=False,
    )


def test_a_compiled_template_is_stored_and_read_back(tmp_path: Path) -> None:
    templates, cache = tmp_path / "t", tmp_path / "cache"
    templates.mkdir()
    (templates / "a.jinja").write_text("hello {{ name }}", encoding="utf-8")
    assert _env(cache, templates).get_template("a.jinja").render(name="x") == "hello x"
    stored = list(cache.iterdir())
    assert len(stored) == 1 and stored[0].suffix == ".cache"
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]

    loaded: list[bool] = []
    original = TemplateCache.load_bytecode

    def spy(self: TemplateCache, bucket: jinja2.bccache.Bucket) -> None:
        original(self, bucket)
        loaded.append(bucket.code is not None)

    TemplateCache.load_bytecode = spy  # type: ignore[method-assign]
    try:
        assert _env(cache, templates).get_template("a.jinja").render(name="y") == "hello y"
    finally:
        TemplateCache.load_bytecode = original  # type: ignore[method-assign]
    assert loaded == [True]


def test_an_edited_template_or_a_damaged_entry_is_compiled_again(tmp_path: Path) -> None:
    templates, cache = tmp_path / "t", tmp_path / "cache"
    templates.mkdir()
    source = templates / "a.jinja"
    source.write_text("one {{ n }}", encoding="utf-8")
    assert _env(cache, templates).get_template("a.jinja").render(n=1) == "one 1"
    source.write_text("two {{ n }}", encoding="utf-8")
    assert _env(cache, templates).get_template("a.jinja").render(n=2) == "two 2"
    entry = next(cache.iterdir())
    entry.write_bytes(entry.read_bytes()[:40])  # cut short, as a full disk might leave it
    assert _env(cache, templates).get_template("a.jinja").render(n=3) == "two 3"


def test_a_cache_folder_that_cannot_be_written_is_ignored(tmp_path: Path) -> None:
    templates = tmp_path / "t"
    templates.mkdir()
    (templates / "a.jinja").write_text("ok", encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert _env(blocker / "cache", templates).get_template("a.jinja").render() == "ok"
