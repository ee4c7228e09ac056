"""Shared test plumbing: where the third-party test inputs live, and how to skip without them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_ENV = "CUBE_CODEGEN_SHARED"
# Runs outside any project keep their run state in the per-user cache: the suite's own one,
# inside the checkout (git-ignored), never the tester's home.
os.environ["XDG_CACHE_HOME"] = str(ROOT / ".cache" / "test-user-cache")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--shared",
        default=os.environ.get(SHARED_ENV, ""),
        help=f"path to the shared test inputs folder (or set {SHARED_ENV})",
    )


@pytest.fixture(scope="session")
def shared_dir(request: pytest.FixtureRequest) -> Path:
    """The shared inputs folder (specs/, overlay-conformance/); skips when not given."""
    value = str(request.config.getoption("--shared") or "")
    if not value:
        pytest.skip(f"shared test inputs not given: pass --shared=PATH or set {SHARED_ENV}")
    path = Path(value).resolve()
    if not path.is_dir():
        pytest.skip(f"shared test inputs folder {path} does not exist")
    return path
