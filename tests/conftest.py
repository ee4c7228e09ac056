"""Shared test plumbing: where the third-party test inputs live, and how to skip without them."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import pytest

# The pipeline hands the IR its stub renderer (the derived names): tests that build an IR alone
# get it too.
import generator.pipeline  # noqa: F401
from generator import beside

ROOT = Path(__file__).resolve().parent.parent
SHARED_ENV = "CUBE_CODEGEN_SHARED"
# what the pytest-xdist workers sent (the contract coverage each one swept), on the controller
_SENT = pytest.StashKey[list[dict[str, Any]]]()
# Runs outside any project keep their run state in the per-user cache: the suite's own one,
# inside the checkout (git-ignored), never the tester's home.
os.environ["XDG_CACHE_HOME"] = str(ROOT / ".cache" / "test-user-cache")
# Generations run inside a test process do their helper child's work themselves, as where no
# child can be forked (generator.beside: the value is the same either way): forking a test
# process's large heap costs more CPU than the work it shares (18 small packages: 5.3 CPU s
# forked, 1.2 in-process), and the suite's workers already keep both cores busy. Only this
# process is concerned: every command line a test runs (fresh, or forked from tests.cli_zygote)
# still forks its helpers, and tests/cli/test_work_beside.py tests the forking itself.
# CUBE_TESTS_FORK=1 lets test processes fork too (to compare, or to rule this out).
FORK_ENV = "CUBE_TESTS_FORK"
if not os.environ.get(FORK_ENV):
    beside.can_fork = lambda: False


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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files holding a ``slow`` test first, each file's tests in their own order: ``make
    test`` hands out whole files in this order (``--dist loadfile --no-loadscope-reorder``), so
    the long ones start at once and the many short ones fill the gaps at the end, instead of a
    corpus or kill test starting last on one worker while the other waits."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    first = {path: i for i, path in enumerate(dict.fromkeys(item.path for item in items))}
    items.sort(key=lambda item: (item.path not in slow, first[item.path]))


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (every test item, the imported modules) lives the whole session:
    frozen, the collector stops walking it on every full collection the tests trigger (about
    6% of the in-process tests' CPU time, measured over the overlay, IR and package tests)."""
    gc.collect()
    gc.freeze()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a pytest-xdist worker: send the contract coverage it recorded to the controller,
    which collects nothing, so the contract tests' own summary hook never runs there. On the
    controller: drop the compiled modules of temporary folders pytest has removed
    (:func:`tests.kept_trees.prune_gone_bytecode`)."""
    output = getattr(session.config, "workeroutput", None)
    if output is None:  # the controller, or a run without workers
        from tests.kept_trees import prune_gone_bytecode

        prune_gone_bytecode()
        return
    from tests.contract.contract_coverage import COVERAGE_KEY, WORKER_KEY

    coverage = session.config.stash.get(COVERAGE_KEY, None)
    if coverage is not None and coverage.total:
        output[WORKER_KEY] = coverage.to_data()


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's, on the controller: a worker finished
def pytest_testnodedown(node: Any, error: object) -> None:
    from tests.contract.contract_coverage import WORKER_KEY

    data = getattr(node, "workeroutput", {}).get(WORKER_KEY)
    if data:
        node.config.stash.setdefault(_SENT, []).append(data)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The contract coverage lines the workers sent, merged: ``make test`` runs on workers."""
    sent = config.stash.get(_SENT, None)
    if not sent:
        return
    from tests.contract.contract_coverage import Coverage

    coverage = Coverage()
    for data in sent:
        coverage.merge(data)
    terminalreporter.ensure_newline()
    for line in coverage.lines():
        terminalreporter.write_line(line)
