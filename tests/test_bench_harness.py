"""The bench's runs start from a clean output path without a deletion just before them: the
last run's output is moved aside, whole, and removed with the bench's temporary folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import harness

    return harness


def test_the_last_output_is_set_aside_whole_not_deleted(harness: Any, tmp_path: Path) -> None:
    out = tmp_path / "work" / "ours"
    (out / "pkg").mkdir(parents=True)
    (out / "pkg" / "mod.py").write_text("VALUE = 1\n")
    before = harness.fresh_dir(out)
    before()
    assert not out.exists()
    kept = list((tmp_path / "work" / harness.TRASH).rglob("mod.py"))
    assert [p.read_text() for p in kept] == ["VALUE = 1\n"]
    (out / "pkg").mkdir(parents=True)  # the next run's output, set aside beside the first
    before()
    assert len(list((tmp_path / "work" / harness.TRASH).rglob("mod.py"))) == 1
    assert len(list((tmp_path / "work" / harness.TRASH).iterdir())) == 2
    before()  # nothing there: nothing to do
    assert len(list((tmp_path / "work" / harness.TRASH).iterdir())) == 2


def test_a_named_trash_keeps_the_folder_it_was_in_clean(harness: Any, tmp_path: Path) -> None:
    cache = tmp_path / "project" / "state" / "mypy"
    cache.mkdir(parents=True)
    trash = tmp_path / "trash"
    harness.set_aside(cache, trash)
    assert sorted(p.name for p in (tmp_path / "project" / "state").iterdir()) == []
    assert [p.name for p in trash.glob("*/*")] == ["mypy"]
