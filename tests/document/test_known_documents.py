"""A large document whose bytes an earlier run found clean (parsed without error, every
reference local and resolving, no overlay between) is read plainly after: no duplicate-key hook,
no bounds walk, no reference walk, the same package. A changed byte, an overlay, a dangling
reference or an entry this installation did not sign: everything is checked again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.diagnostics import CodegenError
from generator.document import known_documents, loader, parsed_cache
from generator.document.refs import Resolver
from generator.pipeline import generate, single_document_config
from tests.helpers import openapi_document, operation, own_project, refuse_calls, schema_ref


@pytest.fixture(autouse=True)
def run_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project of its own: its run state is ``.cache/cube-codegen`` under ``tmp_path``."""
    state = own_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    return state / known_documents.FOLDER


def big_document(title: str = "Big", target: str = "Thing") -> dict[str, Any]:
    """Over the size worth an entry: many operations answering one schema by reference."""
    paths = {
        f"/things{i}": {"get": operation(f"getThing{i}", schema_ref(target))} for i in range(400)
    }
    schemas = {"Thing": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    return openapi_document(paths, schemas=schemas, title=title)


def write(folder: Path, doc: dict[str, Any], name: str = "doc.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert path.stat().st_size >= parsed_cache.MIN_BYTES
    return path


def files_of(spec: Path, overlays: tuple[Path, ...] = ()) -> dict[str, str]:
    return generate(
        single_document_config(spec, overlays, "known_client", spec.parent / "out")
    ).files


def refuse_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_calls(
        monkeypatch,
        "checked again",
        (loader, "_unique_object"),
        (loader, "_json_within_bounds"),
        (Resolver, "check_self_contained"),
    )


def test_known_bytes_are_read_plainly_and_give_the_same_package(
    tmp_path: Path, run_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write(tmp_path, big_document())
    first = files_of(spec)
    assert len(list(run_state.glob("*.json"))) == 1
    with monkeypatch.context() as patch:
        refuse_checks(patch)
        assert files_of(spec) == first  # no check ran, the same files
    spec.write_text(json.dumps(big_document("Changed")), encoding="utf-8")
    walks: list[str] = []
    real = Resolver.check_self_contained

    def counted(self: Resolver) -> bool:
        walks.append(self.file)
        return real(self)

    monkeypatch.setattr(Resolver, "check_self_contained", counted)
    files_of(spec)  # one byte changed: checked, then known as well
    assert walks == [str(spec)]
    assert len(list(run_state.glob("*.json"))) == 2


def test_a_dangling_reference_is_never_known(tmp_path: Path, run_state: Path) -> None:
    spec = write(tmp_path, big_document(target="Missing"))
    for _ in range(2):  # refused the same way each time
        with pytest.raises(CodegenError, match="names nothing"):
            files_of(spec)
    assert list(run_state.glob("*.json")) == []


def test_a_duplicate_key_is_refused_every_time(tmp_path: Path, run_state: Path) -> None:
    spec = write(tmp_path, big_document())
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text.replace('{"openapi"', '{"openapi": "3.0.0", "openapi"', 1))
    for _ in range(2):
        with pytest.raises(CodegenError, match="duplicate"):
            files_of(spec)
    assert list(run_state.glob("*.json")) == []


def test_a_document_read_with_overlays_is_not_recorded(tmp_path: Path, run_state: Path) -> None:
    spec = write(tmp_path, big_document())
    overlay = tmp_path / "title.overlay.yaml"
    overlay.write_text(
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\n"
        "actions:\n  - target: $.info\n    update: {title: Overlaid}\n",
        encoding="utf-8",
    )
    files_of(spec, (overlay,))
    assert list(run_state.glob("*.json")) == []


def test_an_entry_not_signed_here_is_not_trusted(
    tmp_path: Path, run_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write(tmp_path, big_document())
    files_of(spec)
    [entry] = run_state.glob("*.json")
    data = entry.read_bytes()
    entry.write_bytes(bytes(32) + data[32:])  # the same entry, another signature
    found = known_documents.read(spec)
    assert not found.known and found.name == entry.stem


def test_a_small_document_has_no_entry(tmp_path: Path, run_state: Path) -> None:
    spec = tmp_path / "small.json"
    spec.write_text(json.dumps(openapi_document({"/a": {"get": operation("a")}})))
    found = known_documents.read(spec)
    assert found.name is None and not found.known
    known_documents.remember(found)
    assert list(run_state.glob("*.json")) == []
