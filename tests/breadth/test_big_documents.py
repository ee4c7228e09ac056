"""The two large documents of :mod:`tests.breadth.big_documents` give clean packages: every
operation generated, ``ruff``, ``mypy --strict``, and an import that parses cyclic and
discriminated payloads. The payments document is generated once here for ``make test``, its IR
built under the naming pass's guard (:mod:`tests.ir.naming_guard`): the package's checks and the
naming pass's check on the largest document read that one run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.document.openapi_paths import operation_keys
from generator.ir.types import Family
from generator.pipeline import report_json
from tests.breadth.big_documents import assistant_document, payments_document
from tests.helpers import (
    check_clean,
    check_typed,
    generate_result,
    generate_with_report,
    run_python,
)
from tests.ir.naming_guard import Passes, typing_only_in_the_pass


@dataclass
class Run:
    """One generation of a large document: the document, the package's folder, the run's
    report, the IR families built, and what the guarded naming pass did."""

    doc: dict[str, Any]
    out: Path
    report: dict[str, Any]
    families: list[Family]
    passes: Passes


@pytest.fixture(scope="module")
def payments_doc() -> dict[str, Any]:
    return payments_document()


@pytest.fixture(scope="module")
def payments_run(
    payments_doc: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """The payments document generated once (about 20 CPU seconds) for the tests below."""
    doc, out = payments_doc, tmp_path_factory.mktemp("payments") / "dist"
    with typing_only_in_the_pass() as passes:
        result = generate_result(doc, out, "payments_api")
    built = list(result.package.families)
    report = report_json(result)
    yield Run(doc, out, report, built, passes)


def _walk(node: Any) -> Any:
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        yield from _walk(child)


def test_the_documents_have_the_size_and_kind_they_stand_for(
    payments_doc: dict[str, Any],
) -> None:
    payments, assistant = payments_doc, assistant_document()
    assert 3.5e6 < len(json.dumps(payments)) < 4.5e6
    assert len(operation_keys(payments)) == 417
    assert len(payments["components"]["schemas"]) == 551
    forms = [
        n
        for n in _walk(payments)
        if isinstance(n, dict) and "application/x-www-form-urlencoded" in n
    ]
    assert len(forms) == 192  # 100 creates, 75 updates, 17 actions
    assert payments == payments_document()  # deterministic

    assert len(json.dumps(assistant)) > 2.5e6
    assert len(assistant["components"]["schemas"]) == 1400
    assert len(assistant["webhooks"]) == 60
    nodes = [n for n in _walk(assistant) if isinstance(n, dict)]
    assert sum("discriminator" in n for n in nodes) == 22
    assert sum("text/event-stream" in n for n in nodes) == 10
    assert sum("const" in n for n in nodes) > 300


def _clean_package(doc: dict[str, Any], out: Path, package: str) -> Path:
    _, report = generate_with_report(doc, out, package)
    return _assert_clean(doc, out, report)


def _assert_clean(doc: dict[str, Any], out: Path, report: dict[str, Any]) -> Path:
    assert report["skipped"] == []
    assert report["operations_generated"] == report["operations_total"] == len(operation_keys(doc))
    assert not [d for d in report["diagnostics"] if d["level"] == "error"]
    check_clean(out)
    return out


PAYMENTS_USE = (
    "from payments_api import PaymentsApiClient, models\n"
    "c = models.Customer.model_validate({'id': 'cus_1', 'object': 'customer', 'created': 1,\n"
    "    'livemode': False, 'metadata': None, 'dispute': {'id': 'dp_1', 'object': 'dispute',\n"
    "    'created': 2, 'livemode': True, 'metadata': {'a': 'b'}, 'event': 'ev_1'}})\n"
    "assert isinstance(c.dispute, models.Dispute) and c.dispute.event == 'ev_1'\n"
    "assert c.model_validate({**c.model_dump(), 'dispute': 'dp_2'}).dispute == 'dp_2'\n"
    "assert hasattr(PaymentsApiClient, '__enter__')\n"
)
ASSISTANT_USE = (
    "from assistant_api import AssistantApiClient, models\n"
    "e = models.StreamEvent.model_validate({'type': 'message.delta.2', 'sequence_number': 1,\n"
    "    'delta': 'hi'})\n"
    "assert isinstance(e.root, models.MessageDelta2Event) and e.root.delta == 'hi'\n"
    "assert hasattr(AssistantApiClient, '__enter__')\n"
)
BIG = [
    pytest.param(payments_document, "payments_api", PAYMENTS_USE, id="payments"),
    pytest.param(assistant_document, "assistant_api", ASSISTANT_USE, id="assistant"),
]


@pytest.mark.slow
def test_document_gives_a_clean_package_that_parses_its_payloads(payments_run: Run) -> None:
    """Every operation generated, ruff clean, and an import that reads cyclic and discriminated
    payloads: the larger document in ``make test``; both, type-checked too, in CI's ``make
    test-heavy``, below (the package's ``mypy --strict``, over a thousand modules, is most of
    that check's time); ``make test`` type-checks the same templates on the project's package,
    the corpus sample and the fuzzer's packages."""
    run = payments_run
    run_python(PAYMENTS_USE, _assert_clean(run.doc, run.out, run.report))


@pytest.mark.slow
def test_payments_builds_without_typing_after_the_naming_pass(payments_run: Run) -> None:
    """The builder types every schema in its one naming pass, before it builds the IR
    (``ir/naming_pass.py``; the other documents' checks are in tests/ir/test_naming_pass.py)."""
    (family,) = payments_run.families
    (ctx,) = payments_run.passes.contexts
    assert payments_run.passes.named == [sum(len(r.operations) for r in family.resources)]
    assert len(family.models) == len(ctx.catalog.models) > 100
    assert ctx.catalog.frozen


@pytest.mark.slow
def test_payments_classes_share_modules_with_the_classes_holding_them(payments_run: Run) -> None:
    """The hoisted classes (inline objects, form fields' options) live in the module of the
    outermost class holding them: 4,500 classes in 943 modules, the files the README counts."""
    (family,) = payments_run.families
    modules = {m.module for m in family.models}
    on_disk = list((payments_run.out / "payments_api" / "_classes").glob("*.py"))
    assert len(family.models) == 4500
    assert len(modules) == 943 == len(on_disk) - 1  # and the package's __init__.py
    assert sum(1 for p in payments_run.out.rglob("*") if p.is_file()) == 1007
    grouped = [m for m in family.models if m.module != _module_of_its_own(m.name)]
    assert len(grouped) == 4500 - 943


def _module_of_its_own(name: str) -> str:
    from generator.words import snake_case

    return snake_case(name)


@pytest.mark.heavy
@pytest.mark.parametrize(("build", "package", "use"), BIG)
def test_document_gives_a_typed_package(build: Any, package: str, use: str, tmp_path: Path) -> None:
    out = _clean_package(build(), tmp_path / "dist", package)
    check_typed(out, package, tmp_path / "mypy")
    run_python(use, out)
