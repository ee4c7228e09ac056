"""Which files of an output folder are the generated tree (standard library only: the no-op
check lists the tree before anything heavy is imported)."""

from __future__ import annotations

from generator import OUTPUT_MARKER

# Caches that linters and test runners leave inside the tree; never part of the output.
TOOL_CACHES = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


# What building or installing a distribution leaves beside its sources (``pip install
# ./generated/NAME`` builds in place): ``NAME/build/``, ``NAME/dist/``, ``*.egg-info``.
BUILD_OUTPUTS = frozenset({"build", "dist"})


def is_tool_artifact(parts: tuple[str, ...]) -> bool:
    if parts == (OUTPUT_MARKER,):
        return True  # ours, but not part of the generated package
    if len(parts) > 2 and parts[1] in BUILD_OUTPUTS:
        return True
    # asked of every file of the tree on each no-op run: no generator, no call per part
    return not TOOL_CACHES.isdisjoint(parts) or ".egg-info\0" in "\0".join(parts) + "\0"
