"""Prism fixtures for the contract tests: one mock server per family and mode, always stopped.

Each family's document after overlays is written to a temporary file and served by Prism on
127.0.0.1 and a free port, once with static and once with dynamic (``-d``) responses: one Prism
process per mode serves every family selected in it (``prism_hub``), stopped (its whole process
group) at the end of the session. The session-scoped, parametrized ``prism`` fixture makes pytest
run every test of one family and mode against its server before the next.
``make test`` sweeps every family with static answers (the document's own examples: the same
every run); ``make test-heavy`` with dynamic ones too (json-schema-faker's).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from prism_contract_support import (
    ContractFamily,
    PrismServer,
    for_prism,
    load_families,
    start_prism,
    stop_prism,
)

from tests.contract.contract_coverage import COVERAGE_KEY, FAMILIES, MODES, Coverage

# the (family, mode) pairs the selected tests ask Prism for
SELECTED_KEY = pytest.StashKey[set[tuple[str, str]]]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[COVERAGE_KEY] = Coverage()


@pytest.hookimpl(trylast=True)  # after -k / -m deselection
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Note which family and mode will be swept, so that only those get a coverage line, and
    which will be served, so that only those documents are given to Prism."""
    coverage = config.stash[COVERAGE_KEY]
    selected = config.stash[SELECTED_KEY] = set()
    for item in items:
        callspec = getattr(item, "callspec", None)
        function = getattr(item, "function", None)
        if callspec is None or function is None or "prism" not in callspec.params:
            continue
        selected.add(tuple(callspec.params["prism"]))
        if "coverage" in inspect.signature(function).parameters:  # a sweep, which records it
            coverage.swept.add(tuple(callspec.params["prism"]))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The coverage lines, in the terminal summary so that `make test` shows them (a run
    without workers; with workers, ``tests/conftest.py`` has them sent and prints them)."""
    coverage = config.stash.get(COVERAGE_KEY, None)
    if coverage is None or not coverage.total:
        return
    terminalreporter.ensure_newline()
    for line in coverage.lines():
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def coverage(pytestconfig: pytest.Config) -> Coverage:
    return pytestconfig.stash[COVERAGE_KEY]


@pytest.fixture(scope="session")
def contract_families() -> dict[str, ContractFamily]:
    return load_families()


@pytest.fixture(scope="session")
def prism_hub(
    pytestconfig: pytest.Config,
    contract_families: dict[str, ContractFamily],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[str], dict[str, PrismServer]]]:
    """Per mode, started when a test first asks for it: one Prism process serving the document
    of every family selected in that mode, each on its own port (the CLI's start-up, about
    three CPU seconds, paid once per mode instead of once per family); all stopped at the end."""
    hubs: dict[str, dict[str, PrismServer]] = {}

    def hub(mode: str) -> dict[str, PrismServer]:
        if mode not in hubs:
            selected = pytestconfig.stash[SELECTED_KEY]
            names = [name for name in FAMILIES if (name, mode) in selected]
            folder = tmp_path_factory.mktemp(f"prism-{mode}")
            documents = [folder / f"{name}-api.json" for name in names]
            for name, document in zip(names, documents, strict=True):
                served = for_prism(contract_families[name].document)
                document.write_text(json.dumps(served, ensure_ascii=False), encoding="utf-8")
            log = folder / "prism.log"
            ports, process = start_prism(documents, mode, log)
            hubs[mode] = {
                name: PrismServer(contract_families[name], mode, port, process, log)
                for name, port in zip(names, ports, strict=True)
            }
        return hubs[mode]

    try:
        yield hub
    finally:
        for servers in hubs.values():
            stop_prism(next(iter(servers.values())).process)


@pytest.fixture(
    scope="session",
    params=[
        pytest.param(
            (fam, mode),
            id=f"{fam}-{mode}",
            marks=[pytest.mark.heavy] if mode == "dynamic" else [],
        )
        for fam in FAMILIES
        for mode in MODES
    ],
)
def prism(
    request: pytest.FixtureRequest,
    contract_families: dict[str, ContractFamily],
    coverage: Coverage,
    prism_hub: Callable[[str], dict[str, PrismServer]],
) -> PrismServer:
    name, mode = request.param
    family = contract_families[name]
    coverage.register((name, mode), {f"{c.resource_attr}.{c.op.py_name}" for c in family.cases})
    return prism_hub(mode)[name]
