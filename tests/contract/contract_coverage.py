"""Contract coverage: per family and mode, every operation of the client and which sweeps passed
or failed it. Kept apart from Prism's support (no imports beyond the standard library) so the
pytest-xdist controller, which collects nothing, can merge what its workers swept and print it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

FAMILIES = ("platform", "scim", "data", "chat")
MODES = ("static", "dynamic")
# the key under which a worker sends its coverage to the controller (xdist's workeroutput)
WORKER_KEY = "cube_contract_coverage"

Key = tuple[str, str]


@dataclass
class Coverage:
    """Per family and mode: every operation of the client, and which runs passed or failed it."""

    total: dict[Key, set[str]] = field(default_factory=dict)
    passed: dict[Key, set[str]] = field(default_factory=dict)
    failed: dict[Key, set[str]] = field(default_factory=dict)
    swept: set[Key] = field(default_factory=set)  # selected by this run

    def register(self, key: Key, operations: set[str]) -> None:
        self.total.setdefault(key, set()).update(operations)

    def record(self, key: Key, operation: str, ok: bool) -> None:
        (self.passed if ok else self.failed).setdefault(key, set()).add(operation)

    def covered(self, key: Key) -> set[str]:
        return self.total.get(key, set()) & self.passed.get(key, set()) - self.failed.get(
            key, set()
        )

    def lines(self) -> list[str]:
        return [
            f"contract coverage: {len(self.covered((fam, mode)))}/{len(self.total[(fam, mode)])}"
            f" operations ({fam}, {mode})"
            for fam in FAMILIES
            for mode in MODES
            if (fam, mode) in self.total and (fam, mode) in self.swept
        ]

    def to_data(self) -> dict[str, Any]:
        """Plain JSON-able data, for a worker to send (execnet carries only builtin types)."""

        def table(sets: dict[Key, set[str]]) -> list[list[Any]]:
            return [[fam, mode, sorted(ops)] for (fam, mode), ops in sorted(sets.items())]

        return {
            "total": table(self.total),
            "passed": table(self.passed),
            "failed": table(self.failed),
            "swept": sorted([fam, mode] for fam, mode in self.swept),
        }

    def merge(self, data: dict[str, Any]) -> None:
        """Add what one worker swept."""
        for name in ("total", "passed", "failed"):
            target: dict[Key, set[str]] = getattr(self, name)
            for fam, mode, ops in data.get(name, []):
                target.setdefault((fam, mode), set()).update(ops)
        self.swept.update((fam, mode) for fam, mode in data.get("swept", []))


# where a run keeps its coverage (the contract conftest's fixture puts it there)
COVERAGE_KEY = pytest.StashKey[Coverage]()
