"""The runtime's public surface is the one list of names generated code may not take.

The generator reads it from the runtime's source (:mod:`generator.ir.contracts`); these tests pin it
(a change to the runtime's public names is a reviewed change), check the source reading against
the live classes, and prove a tag or operation named after any member is renamed, end to end.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runtime_servers import Exchange, LocalServer

from generator.ir.contracts import client_members, resource_members
from tests.helpers import check_clean_and_typed, imported_package

CLIENT_MEMBERS = {
    "auth_headers", "base_url", "close", "limits", "max_retries", "request", "send", "strict",
    "timeout", "with_options", "with_raw_response", "with_streaming_response",
}  # fmt: skip
RESOURCE_MEMBERS = {"with_raw_response", "with_streaming_response"}
WRAPPERS = {"with_raw_response", "with_streaming_response"}


def test_runtime_public_surface_is_pinned() -> None:
    assert client_members() == CLIENT_MEMBERS
    assert resource_members() == RESOURCE_MEMBERS


def _public(obj: object) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_")}


def test_source_reading_matches_the_live_classes() -> None:
    from cube_client import _base_client, _resource

    sync = _base_client.SyncAPIClient(base_url="https://api.test", credential=None)
    asyncc = _base_client.AsyncAPIClient(base_url="https://api.test", credential=None)
    try:
        assert _public(sync) | _public(asyncc) == set(client_members())
        assert _public(_resource.SyncAPIResource(sync)) == set(resource_members())
        assert _public(_resource.AsyncAPIResource(asyncc)) == set(resource_members())
    finally:
        sync.close()


PACKAGE = "send_client"


def _document() -> dict[str, Any]:
    """One tag per client member and one operation per resource member, plus tag ``Send``."""

    def op(op_id: str, tag: str) -> dict[str, Any]:
        return {
            "operationId": op_id,
            "tags": [tag],
            "responses": {
                "200": {
                    "description": "ok",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
        }

    paths: dict[str, Any] = {"/send": {"post": op("send", "Send")}}
    for i, name in enumerate(sorted(CLIENT_MEMBERS)):
        paths[f"/c{i}"] = {"get": op(f"get{i}", name)}
    for i, name in enumerate(sorted(RESOURCE_MEMBERS)):
        paths[f"/r{i}"] = {"get": op(name, "things")}
    return {"openapi": "3.1.0", "info": {"title": "Send", "version": "1"}, "paths": paths}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with imported_package(_document(), tmp_path_factory.mktemp("send") / "dist", PACKAGE) as out:
        yield out


def test_members_are_renamed_and_send_works(package: Path, server: LocalServer) -> None:
    @server.route("POST", "/send")
    def _(ex: Exchange) -> None:
        ex.json(200, {"sent": True})

    client_module = importlib.import_module(f"{PACKAGE}._client")
    client = client_module.SendClientClient(base_url=server.url, allow_http_loopback=True)
    with client:
        resource_attrs = [
            n for n in vars(type(client)) if not n.startswith("_") and n not in WRAPPERS
        ]
        assert not set(resource_attrs) & CLIENT_MEMBERS, resource_attrs
        assert "send_2" in resource_attrs
        assert client.send_2.send() == {"sent": True}
        things = client.things
        ops = {n for n in vars(type(things)) if not n.startswith("_")} - WRAPPERS
        assert ops and not ops & RESOURCE_MEMBERS, ops
        # the runtime's own ``send`` is still the request loop, not a resource
        assert isinstance(client.send, type(client.close)) and callable(client.send)
        raw = client.send_2.with_raw_response.send()
        assert raw.status_code == 200 and raw.parse() == {"sent": True}
    assert [s.path for s in server.seen("POST")] == ["/send", "/send"]


@pytest.mark.slow
def test_package_with_member_names_passes_mypy_strict(package: Path, tmp_path: Path) -> None:
    check_clean_and_typed(package, PACKAGE, tmp_path / "mypy")
