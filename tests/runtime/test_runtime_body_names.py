"""Parameters the document names like what a method's body reads (``str``, ``dict``, ``cast``,
``call``) get a ``_`` suffix: kept, they would shadow the builtin or helper in the body, and
the method would neither type-check nor run. The wire names are sent as written."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runtime_servers import Exchange, LocalServer

from generator.ir.contracts import method_body_names
from tests.helpers import (
    check_clean_and_typed,
    imported_package,
    openapi_document,
    operation,
    parameter,
)

PACKAGE = "body_names_client"


def _document() -> dict[str, Any]:
    params = [
        parameter("str", "path"),
        parameter("dict", "query"),
        parameter("cast", "query", {"type": "integer"}),
        parameter("call", "header"),
        parameter("type", "query"),  # not read by a body: kept
    ]
    items = {"type": "array", "items": {"type": "object", "additionalProperties": True}}
    get = operation("listThings", items, parameters=params, tags=["things"])
    return openapi_document({"/things/{str}": {"get": get}}, title="Body names")


def test_the_reserved_names_are_what_bodies_read() -> None:
    names = method_body_names()
    assert {"str", "dict", "list", "cast", "call", "job", "_models", "strip_not_given"} <= names
    assert not {"type", "id", "format", "query", "annotations"} & names


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with imported_package(_document(), tmp_path_factory.mktemp("bn") / "dist", PACKAGE) as out:
        yield out


def test_renamed_parameters_send_the_wire_names(package: Path, server: LocalServer) -> None:
    @server.route("GET", "/things/a%20b")
    def _(ex: Exchange) -> None:
        ex.json(200, [{"echo": ex.seen.q("dict"), "n": ex.seen.q("cast")}])

    client_module = importlib.import_module(f"{PACKAGE}._client")
    with client_module.BodyNamesClientClient(base_url=server.url, allow_http_loopback=True) as c:
        got = c.things.list_things("a b", dict_="d", cast_=7, call_="c", type="t")
    assert got == [{"echo": "d", "n": "7"}]
    (seen,) = server.seen("GET")
    assert seen.q("dict") == "d" and seen.q("cast") == "7" and seen.q("type") == "t"
    assert seen.headers.get("call") == "c"


@pytest.mark.slow
def test_the_package_passes_mypy_strict(package: Path, tmp_path: Path) -> None:
    check_clean_and_typed(package, PACKAGE, tmp_path / "mypy")
