"""Compiled templates are kept between runs, and a damaged or stale entry is compiled again;
an entry is code, so one this installation did not sign, or one another user owns or can
write, is never loaded (issue 32)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import jinja2
import pytest

from generator.emit.template_cache import TemplateCache

KEY = bytes(range(32))


def _env(folder: Path, templates: Path, key: bytes = KEY) -> jinja2.Environment:
    if folder.parent.is_dir():  # a cache folder is made private by the run state
        folder.mkdir(mode=0o700, exist_ok=True)
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        bytecode_cache=TemplateCache(folder, key),
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


def _forge(cache: Path, templates: Path, name: str, code: str, prefix: bytes = b"") -> None:
    """An entry for ``name`` carrying ``code``: what another user (or a repository) could
    write, since the file name and the checksum derive from the public template."""
    tc = TemplateCache(cache, KEY)
    filename = str(templates / name)
    bucket = jinja2.bccache.Bucket(
        jinja2.Environment(),
        tc.get_cache_key(name, filename),
        tc.get_source_checksum((templates / name).read_text(encoding="utf-8")),
    )
    bucket.code = compile(code, filename, "exec")
    path = cache / f"{bucket.key}.cache"
    path.write_bytes(prefix + bucket.bytecode_to_string())
    path.chmod(0o600)


def test_a_forged_entry_never_runs(tmp_path: Path) -> None:
    templates, cache = tmp_path / "t", tmp_path / "cache"
    templates.mkdir()
    (templates / "a.jinja").write_text("safe {{ n }}", encoding="utf-8")
    cache.mkdir(mode=0o700)
    ran = tmp_path / "ran"
    evil = f"open({str(ran)!r}, 'w').write('owned')"
    _forge(cache, templates, "a.jinja", evil)  # unsigned, as today's format
    assert _env(cache, templates).get_template("a.jinja").render(n=1) == "safe 1"
    _forge(cache, templates, "a.jinja", evil, prefix=bytes(32))  # a checksum it cannot make
    assert _env(cache, templates).get_template("a.jinja").render(n=2) == "safe 2"
    assert not ran.exists()


def test_an_entry_of_another_installation_or_user_is_compiled_again(tmp_path: Path) -> None:
    templates, cache = tmp_path / "t", tmp_path / "cache"
    templates.mkdir()
    (templates / "a.jinja").write_text("v {{ n }}", encoding="utf-8")
    assert _env(cache, templates).get_template("a.jinja").render(n=1) == "v 1"
    loaded: list[bool] = []
    original = TemplateCache.load_bytecode

    def spy(self: TemplateCache, bucket: jinja2.bccache.Bucket) -> None:
        original(self, bucket)
        loaded.append(bucket.code is not None)

    TemplateCache.load_bytecode = spy  # type: ignore[method-assign]
    try:
        _env(cache, templates, key=bytes(32)).get_template("a.jinja")  # another key
        entry = next(p for p in cache.iterdir() if p.suffix == ".cache")
        entry.chmod(0o666)  # writable by others: refused even though signed by us
        _env(cache, templates).get_template("a.jinja")
        entry.chmod(0o600)
        _env(cache, templates).get_template("a.jinja")  # ours again: loaded
    finally:
        TemplateCache.load_bytecode = original  # type: ignore[method-assign]
    assert loaded == [False, False, True]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to a second user")
def test_an_entry_another_user_owns_is_never_loaded(tmp_path: Path) -> None:
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no second user (nobody) on this machine")
    templates, cache = tmp_path / "t", tmp_path / "cache"
    templates.mkdir()
    (templates / "a.jinja").write_text("v {{ n }}", encoding="utf-8")
    _env(cache, templates).get_template("a.jinja")  # a correctly signed entry
    entry = next(p for p in cache.iterdir() if p.suffix == ".cache")
    os.chown(entry, nobody.pw_uid, nobody.pw_gid)  # as if another user had written it
    loaded: list[bool] = []
    original = TemplateCache.load_bytecode

    def spy(self: TemplateCache, bucket: jinja2.bccache.Bucket) -> None:
        original(self, bucket)
        loaded.append(bucket.code is not None)

    TemplateCache.load_bytecode = spy  # type: ignore[method-assign]
    try:
        assert _env(cache, templates).get_template("a.jinja").render(n=5) == "v 5"
    finally:
        TemplateCache.load_bytecode = original  # type: ignore[method-assign]
    assert loaded == [False]
