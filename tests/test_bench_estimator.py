"""The ratio rows of ``make bench`` pair the two runs of each round, which ran back to back: a
slow spell of the machine that slows both runs of a round moves their ratio less than it
moves the ratio of the sides' medians."""

from __future__ import annotations

import statistics
from collections.abc import Callable

import pytest

from tests.helpers import ROOT


@pytest.fixture
def paired(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[float], list[float]], float]:
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    from harness import paired

    return paired


def test_a_slow_spell_over_both_sides_leaves_the_paired_ratio(
    paired: Callable[[list[float], list[float]], float],
) -> None:
    raw = [1.0, 1.0, 1.0, 1.0, 1.0]
    ours = [1.3, 1.3, 1.3, 1.2, 1.4]  # 1.3x, give or take a block
    for slow in (1, 2):  # the machine at half speed for two rounds: both blocks of each
        raw[slow] *= 2
        ours[slow] *= 2
    assert paired(ours, raw) == pytest.approx(1.3)
    # each side's median is now the third fastest of its blocks, from different rounds
    assert statistics.median(ours) / statistics.median(raw) == pytest.approx(1.4)


def test_rounds_are_paired_in_order_and_must_match(
    paired: Callable[[list[float], list[float]], float],
) -> None:
    assert paired([2.0, 9.0, 3.0], [1.0, 3.0, 2.0]) == 2.0  # ratios 2, 3 and 1.5
    with pytest.raises(ValueError):
        paired([1.0, 2.0], [1.0])
