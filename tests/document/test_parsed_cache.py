"""A large YAML document is parsed once and read back from the run state after: the same data
as a fresh parse, a changed document parsed again, an entry this installation did not sign (or
one that is damaged) never used, and a document that fails to parse never kept."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator import runstate
from generator.diagnostics import CodegenError
from generator.document import loader, parsed_cache
from tests.helpers import own_project, refuse_calls


@pytest.fixture(autouse=True)
def run_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project of its own: its run state is ``.cache/cube-codegen`` under ``tmp_path``."""
    state = own_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    return state / parsed_cache.FOLDER


def big_document(title: str = "Big") -> str:
    """YAML over the size worth keeping: aliases, dates kept as text, numbers, unicode."""
    paths = "".join(
        f"  /item{i}:\n    get:\n      operationId: get{i}\n      summary: 'Item {i} ✓'\n"
        f"      x-since: 2024-01-{i % 28 + 1:02d}\n      x-limits: &l{i} [1, 2.5, -0.0, true, ~]\n"
        f"      x-copy: *l{i}\n      responses: {{'200': {{description: ok}}}}\n"
        for i in range(600)
    )
    return f"openapi: 3.1.0\ninfo: {{title: {title}, version: '1'}}\npaths:\n{paths}"


def write(folder: Path, text: str) -> Path:
    path = folder / "doc.yaml"
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size >= parsed_cache.MIN_BYTES
    return path


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.json")) if cache.is_dir() else []


def no_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_calls(monkeypatch, "parsed again", (yaml, "compose"), (yaml, "load"))


def test_a_document_is_parsed_once_and_read_back_the_same(
    tmp_path: Path, run_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, big_document())
    fresh = loader.parse_bytes(path.read_bytes(), str(path))
    assert entries(run_state) == []
    assert loader.load_document(path) == fresh
    assert len(entries(run_state)) == 1
    with monkeypatch.context() as patched:
        no_yaml(patched)
        again = loader.load_document(path)
    assert again == fresh and list(again) == list(fresh)  # same data, same key order
    assert again["paths"]["/item3"]["get"]["x-since"] == "2024-01-04"
    assert again["paths"]["/item3"]["get"]["x-copy"] == [1, 2.5, -0.0, True, None]


def test_a_changed_document_is_parsed_again(tmp_path: Path, run_state: Path) -> None:
    path = write(tmp_path, big_document("One"))
    assert loader.load_document(path)["info"]["title"] == "One"
    write(tmp_path, big_document("Two"))
    assert loader.load_document(path)["info"]["title"] == "Two"
    assert len(entries(run_state)) == 2


@pytest.mark.parametrize("damage", ["forged", "flipped", "truncated"])
def test_an_entry_not_signed_here_is_never_used(
    tmp_path: Path, run_state: Path, damage: str
) -> None:
    path = write(tmp_path, big_document())
    fresh = loader.load_document(path)
    [entry] = entries(run_state)
    data = entry.read_bytes()
    planted = {**fresh, "info": {"title": "Planted", "version": "1"}}
    payload = json.dumps(planted).encode()
    entry.write_bytes(
        {
            "forged": bytes(32) + payload,  # a checksum made without this installation's key
            "flipped": data[:-2] + bytes([data[-2] ^ 1]) + data[-1:],
            "truncated": data[:20],
        }[damage]
    )
    assert loader.load_document(path) == fresh
    assert entry.read_bytes() == data  # parsed again and kept again


def test_a_document_that_fails_is_never_kept(tmp_path: Path, run_state: Path) -> None:
    path = write(tmp_path, big_document() + "  /dup:\n    get: {}\n  /dup:\n    get: {}\n")
    with pytest.raises(CodegenError) as failed:
        loader.load_document(path)
    assert failed.value.diagnostics[0].id == "duplicate-key"
    assert entries(run_state) == []


def test_small_and_json_documents_are_not_kept(tmp_path: Path, run_state: Path) -> None:
    small = tmp_path / "small.yaml"
    small.write_text("openapi: 3.1.0\n", encoding="utf-8")
    assert loader.load_document(small) == {"openapi": "3.1.0"}
    as_json = tmp_path / "big.json"
    data = loader.parse_bytes(big_document().encode(), "big.yaml")
    as_json.write_text(json.dumps(data), encoding="utf-8")
    assert loader.load_document(as_json)["info"]["title"] == "Big"
    assert entries(run_state) == []


def test_least_recently_used_entries_beyond_the_limit_are_removed(
    tmp_path: Path, run_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parsed_cache, "KEEP", 2)
    path = write(tmp_path, big_document("A"))
    loader.load_document(path)
    first = entries(run_state)
    for title in ("B", "C"):
        write(tmp_path, big_document(title))
        loader.load_document(path)
    kept = entries(run_state)
    assert len(kept) == 2 and not set(first) & set(kept)


def test_an_entry_another_run_pruned_meanwhile_is_no_error(
    tmp_path: Path, run_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs sharing the run state prune it at once: an entry listed here and removed by the
    other run before it is dated here is skipped, and the oldest left still goes."""
    monkeypatch.setattr(parsed_cache, "KEEP", 2)
    path = write(tmp_path, big_document("A"))
    for title in ("A", "B"):
        write(tmp_path, big_document(title))
        loader.load_document(path)
    listed = entries(run_state)
    real_scandir, victim, gone = os.scandir, sorted(listed)[0], []

    def listing_then_gone(folder: Any) -> Any:
        with real_scandir(folder) as listing:
            found = list(listing)
        if victim.exists():  # the other run's prune, between this listing and its dates
            victim.unlink()
            gone.append(victim)
        return contextlib.nullcontext(iter(found))

    monkeypatch.setattr(parsed_cache.os, "scandir", listing_then_gone)
    write(tmp_path, big_document("C"))
    assert loader.load_document(path)["info"]["title"] == "C"
    kept = entries(run_state)
    assert gone == [victim] and len(kept) == 2 and victim not in kept


def test_a_run_state_of_another_user_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*parts: str, start: Path | None = None) -> Path:
        raise runstate.RunStateRefused(tmp_path, "is another user's")

    monkeypatch.setattr(runstate, "folder", refused)
    path = write(tmp_path, big_document())
    assert loader.load_document(path)["info"]["title"] == "Big"
    assert loader.load_document(path)["info"]["title"] == "Big"
