"""Names the templates bind are derived from a rendered stub family, never listed by hand
(issue 32): a server variable named ``strict`` or ``resolve_base_url``, a schema named
``Unknown`` and parameters named like a method's own arguments or locals all give a package that
imports, constructs, sends and passes its own tests; every rename is reported once, as
information naming the document's name and the Python name, with one suffix rule."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from generator.ir import bound_names as bn
from tests.helpers import generate_with_report, run_package_tests

PACKAGE = "bnpkg"


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": "ok", "content": {"application/json": {"schema": schema}}}


def _document() -> dict[str, Any]:
    ref = {"$ref": "#/components/schemas/Unknown"}
    query = [
        {"name": n, "in": "query", "schema": {"type": "string"}}
        for n in ("timeout", "timeout_", "cast_", "call")
    ]
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [
            {
                "url": "https://{strict}.{resolve_base_url}.example/{url}",
                "variables": {v: {"default": v[0]} for v in ("strict", "resolve_base_url", "url")},
            }
        ],
        "paths": {
            "/t/{cast}": {
                "get": {
                    "operationId": "getT",
                    "parameters": [
                        {
                            "name": "cast",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                        *query,
                    ],
                    "responses": {"200": _ok(ref)},
                }
            },
            "/foo": {
                "post": {
                    "operationId": "makeFoo",
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"foo": {"$ref": "#/components/schemas/Foo"}},
                                }
                            }
                        }
                    },
                    "responses": {"200": _ok(ref)},
                }
            },
        },
        "components": {
            "schemas": {
                "Unknown": {"type": "object", "properties": {"schema": {"type": "string"}}},
                "Foo": {"type": "object", "properties": {"a": {"type": "string"}}},
                "FooParam": {"type": "object", "properties": {"b": {"type": "string"}}},
            }
        },
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("bound") / "dist"
    _, report = generate_with_report(_document(), out, PACKAGE)
    return out, report


def test_the_names_are_read_from_the_rendered_stub() -> None:
    names = bn.bound_names()
    assert {"strict", "resolve_base_url", "base_url", "auth_scheme", "timeout"} <= names.client
    assert {"timeout", "extra_headers", "body", "self"} <= names.arguments
    assert {"cast", "call", "submitted", "job", "isinstance", "frozenset", "dict"} <= names.body
    # what only a call waiting under a request id adds, apart from every method's arguments
    assert names.waiting == {"request_id", "wait_timeout", "on_progress"}
    assert not names.waiting & names.arguments
    assert "Unknown" in names.module
    assert not any("zz" in n.lower() for s in (names.client, names.body, names.module) for n in s)


def test_the_names_are_derived_once_per_generator_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    bn._cached.cache_clear()
    rendered: list[int] = []
    real = bn._read_stub
    monkeypatch.setattr(bn, "_read_stub", lambda: rendered.append(1) or real())
    try:
        first = bn.bound_names()
        bn._cached.cache_clear()
        again = bn.bound_names()  # a new process: read back from the run state
    finally:
        bn._cached.cache_clear()
    assert rendered == [1]
    assert first.as_json() == again.as_json()
    kept = list((tmp_path / "xdg" / "cube-codegen" / "names").iterdir())
    assert len(kept) == 1 and json.loads(kept[0].read_text())["client"] == sorted(first.client)


def test_server_variables_named_like_the_constructors_names_work(
    generated: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, _ = generated
    monkeypatch.syspath_prepend(str(out))
    client_module = importlib.import_module(f"{PACKAGE}._client")  # a SyntaxError before
    client = client_module.BnpkgClient(strict_2="s", resolve_base_url_2="r", url_2="u")
    assert str(client.base_url).rstrip("/") == "https://s.r.example/u"
    client.close()


def test_every_rename_is_reported_with_one_suffix_rule(
    generated: tuple[Path, dict[str, Any]],
) -> None:
    _, report = generated
    said = {(d["id"], d["message"]) for d in report["renamed"]}
    for var in ("strict", "resolve_base_url", "url"):
        assert (
            "server-variable-renamed",
            f"server variable {var!r} is the client argument {var}_2",
        ) in said
    for wire, python in (("cast", "cast_"), ("timeout", "timeout_2"), ("timeout_", "timeout_3"),
                         ("cast_", "cast_2"), ("call", "call_")):  # fmt: skip
        assert any(
            i == "parameter-renamed" and f"{wire!r} is the argument {python} of" in m
            for i, m in said
        ), (wire, said)
    assert (
        "property-renamed",
        "property 'schema' of UnknownModel is the attribute schema_",
    ) in said
    assert any(i == "input-class-renamed" and "FooParam2" in m for i, m in said), said
    assert any(i == "schema-renamed" and "'Unknown'" in m for i, m in said), said
    assert all(not d["message"].count("__") for d in report["renamed"])


def test_the_package_passes_its_own_tests(generated: tuple[Path, dict[str, Any]]) -> None:
    out, _ = generated
    run_package_tests(out)
