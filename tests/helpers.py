"""Helpers shared by tests: run the CLI in a subprocess, build a client over a mock transport."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
PACKAGE_ROOT = GENERATED / "cube_client"
CLI = [sys.executable, "-m", "generator"]


def run_cli(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def ensure_generated_importable() -> None:
    """Make ``import cube_client`` resolve to the committed generated package."""
    path = os.environ.get("CUBE_CODEGEN_PACKAGE_ROOT", str(PACKAGE_ROOT))
    if path not in sys.path:
        sys.path.insert(0, path)
