"""A run whose documents the OpenAPI object model found valid with nothing to work around
records that verdict, and the next run of the same documents builds without validating; a
document with a workaround, an invalid one, or an entry this installation did not sign is
validated every time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from generator import pipeline
from generator.diagnostics import CodegenError
from generator.document import valid_cache
from generator.ir import bound_names
from tests.cli.test_work_beside import _document
from tests.helpers import ROOT, own_project


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project of its own: its run state is ``.cache/cube-codegen`` under ``tmp_path``,
    holding the names the templates bind (deriving them would validate a stub package, and
    record its verdict, as if this test's run had)."""
    bound_names.keep_in(own_project(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CUBE_CODEGEN_NO_FORK", "1")  # validation here, where the spy sees it
    return tmp_path


def generate(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, str], int]:
    """The files of one run, and how many documents it validated."""
    calls: list[str] = []
    from generator.document.validate import validate as real

    def spy(doc: Any, file: str) -> Any:
        calls.append(file)
        return real(doc, file)

    with monkeypatch.context() as patched:
        patched.setattr(pipeline, "validate", spy)
        config = pipeline.single_document_config(path, (), "pairs", path.parent / "out")
        return pipeline.generate(config).files, len(calls)


def write(project: Path, items: object, title: object = "Pairs") -> Path:
    spec = project / "api.json"
    spec.write_text(json.dumps(_document(items, title)), encoding="utf-8")
    return spec


def entries(project: Path) -> list[Path]:
    return sorted((project / ".cache" / "cube-codegen" / valid_cache.FOLDER).glob("*.json"))


def test_a_valid_document_is_validated_once(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = write(project, {"type": "string"})
    first, validated = generate(spec, monkeypatch)
    assert validated == 1 and len(entries(project)) == 1
    again, validated = generate(spec, monkeypatch)
    assert validated == 0 and again == first
    write(project, {"type": "integer"})  # another document: validated again
    _, validated = generate(spec, monkeypatch)
    assert validated == 1 and len(entries(project)) == 2


def test_a_document_with_a_workaround_is_validated_every_time(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write(project, [{"type": "string"}, {"type": "integer"}])  # a 3.0-style tuple
    for _ in range(2):
        _, validated = generate(spec, monkeypatch)
        assert validated == 1
    assert entries(project) == []


def test_an_invalid_document_fails_every_time(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write(project, {"type": "string"}, title=5)
    for _ in range(2):
        with pytest.raises(CodegenError) as failed:
            generate(spec, monkeypatch)
        assert "/info/title" in str(failed.value)
    assert entries(project) == []


def test_an_entry_not_signed_here_is_not_believed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write(project, {"type": "string"})
    generate(spec, monkeypatch)
    [entry] = entries(project)
    entry.write_bytes(bytes(32) + b"true")  # the verdict, with a checksum made without the key
    _, validated = generate(spec, monkeypatch)
    assert validated == 1


def test_a_forked_run_records_the_child_verdict(project: Path) -> None:
    """In a fresh interpreter (a child is forked): the child's verdict is recorded."""
    spec = write(project, {"type": "string"})
    args = ["generate", "--spec", str(spec), "--package", "pairs", "--out", "out", "--quiet"]
    env = {k: v for k, v in os.environ.items() if k != "CUBE_CODEGEN_NO_FORK"}
    env["PYTHONPATH"] = str(ROOT)
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-m", "generator", *args],
            cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert len(entries(project)) == 1
