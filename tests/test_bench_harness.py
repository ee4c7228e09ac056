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


def test_time_per_operation_comes_from_one_rotation_of_our_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The per-operation ratios are taken from our runs alone, every input once a round: each
    command runs again (not its block's times), and an input without platform 07 gives none."""
    import sys

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import harness
    import run

    def sleeper(seconds: float) -> Any:
        code = f"import time; time.sleep({seconds})"
        return harness.Cmd("cube-codegen", [sys.executable, "-c", code], runs=[])

    block = sleeper(0.0)
    block.runs = [harness.Run(99.0, 0, 0)]  # a time from the per-input block: not used
    ours = {
        "platform 07": (block, 2),
        "payments (built, 4 MB)": (sleeper(0.2), 2),
        "spec/ (4 families)": (sleeper(5.0), 1),  # not an input of the per-operation rows
    }
    report = harness.Report()
    per_op = run.per_operation(report, ours, rounds=3)
    assert set(per_op) == {"platform 07", "payments (built, 4 MB)"}
    base, base_ratio = per_op["platform 07"]
    payments, payments_ratio = per_op["payments (built, 4 MB)"]
    assert base < 0.2  # measured again, not the block's 99 s
    assert payments > base + 0.05
    assert base_ratio == 1.0
    assert payments_ratio > 1.5  # a 0.2 s sleep against a bare interpreter's start, per operation
    assert "Time per operation" in report.sections[-1]
    assert "median of the rounds' ratios" in report.sections[-1]
    assert run.per_operation(harness.Report(), {"Box": (sleeper(0.0), 1)}, rounds=1) == {}
