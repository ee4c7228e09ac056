"""The two large documents of :mod:`tests.breadth.big_documents` give clean packages: every
operation generated, ``ruff``, ``mypy --strict``, and an import that parses cyclic and
discriminated payloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.document.openapi_paths import operation_keys
from tests.breadth.big_documents import assistant_document, payments_document
from tests.helpers import check_clean, check_typed, generate_with_report, run_python


def _walk(node: Any) -> Any:
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        yield from _walk(child)


def test_the_documents_have_the_size_and_kind_they_stand_for() -> None:
    payments, assistant = payments_document(), assistant_document()
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
@pytest.mark.parametrize(("build", "package", "use"), BIG[:1])
def test_document_gives_a_clean_package_that_parses_its_payloads(
    build: Any, package: str, use: str, tmp_path: Path
) -> None:
    """Every operation generated, ruff clean, and an import that reads cyclic and discriminated
    payloads: the larger document in ``make test``; both, type-checked too, in CI's ``make
    test-heavy``, below (the package's ``mypy --strict``, over a thousand modules, is most of
    that check's time); ``make test`` type-checks the same templates on the project's package,
    the corpus sample and the fuzzer's packages."""
    run_python(use, _clean_package(build(), tmp_path / "dist", package))


@pytest.mark.heavy
@pytest.mark.parametrize(("build", "package", "use"), BIG)
def test_document_gives_a_typed_package(build: Any, package: str, use: str, tmp_path: Path) -> None:
    out = _clean_package(build(), tmp_path / "dist", package)
    check_typed(out, package, tmp_path / "mypy")
    run_python(use, out)
