"""One rule for data that differs from the document, against real servers on 127.0.0.1: JSON
bodies, pages, page items, fields read lazily and server-sent events are kept with a warning
that names the field by its JSON pointer and the call, or refused with ``strict=True``; every
difference reaches the listeners as structured data. (JSON lines: test_runtime_json_lines.)
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from cube_client import APIResponseValidationError, ResponseValidationWarning
from cube_client._base_client import PreparedCall, SyncAPIClient
from cube_client._differences import Difference, Kind, add_listener, remove_listener
from runtime_servers import DEPLOYMENT, Exchange, LocalServer, deployment, platform

LIST = "/api/v1/deployments"


@pytest.fixture
def heard() -> Iterator[list[Difference]]:
    found: list[Difference] = []
    add_listener(found.append)
    try:
        yield found
    finally:
        remove_listener(found.append)


def _page(server: LocalServer, items: list[Any]) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        ex.json(200, {"data": {"deployments": items}, "pagination": {"total": len(items)}})


def test_a_page_item_of_the_wrong_type_is_named_by_its_place(server: LocalServer) -> None:
    _page(server, [{"id": 1, "name": "a"}, "not an object"])
    with platform(server.url) as client:
        with pytest.warns(ResponseValidationWarning) as caught:
            page = client.deployments.get_deployments()
    message = str(caught[0].message)
    assert "GET /api/v1/deployments" in message
    assert "/data/deployments/1: str 'not an object'" in message
    assert "the top level" not in message
    assert page.items[1] == "not an object"  # kept as received


def test_a_field_read_later_is_named_by_its_place(server: LocalServer) -> None:
    _page(server, [{"id": 1, "name": "a"}, {"id": 2, "name": 5}])
    with platform(server.url) as client:
        page = client.deployments.get_deployments()
        assert page.items[0].name == "a"
        with pytest.warns(ResponseValidationWarning, match=r"/data/deployments/1/name: int 5"):
            assert page.items[1].name == 5


def test_strict_refuses_a_page_item_with_the_same_error(server: LocalServer) -> None:
    _page(server, [deployment(1, "a"), {**deployment(2), "name": 5}])
    with platform(server.url, strict=True) as client:
        with pytest.raises(APIResponseValidationError) as info:
            client.deployments.get_deployments()
    (difference,) = info.value.differences
    assert (difference.kind, difference.pointer, difference.seen) == (
        Kind.WRONG_TYPE,
        "/data/deployments/1/name",
        5,
    )


def test_a_json_body_missing_a_field_is_named_in_both_modes(server: LocalServer) -> None:
    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        ex.json(200, {k: v for k, v in deployment().items() if k != "id"})

    with platform(server.url) as client:
        got = client.deployments.get_deployment(7)
        with pytest.warns(ResponseValidationWarning, match=r"/id: required field missing"):
            assert got.id is None
    with platform(server.url, strict=True) as client:
        with pytest.raises(APIResponseValidationError) as info:
            client.deployments.get_deployment(7)
    assert [(d.kind, d.pointer) for d in info.value.differences] == [(Kind.MISSING, "/id")]


def test_listeners_get_every_difference_as_data(
    server: LocalServer, heard: list[Difference]
) -> None:
    _page(server, [{**deployment(1), "name": 5, "brandNew": True, "creationStep": "teleporting"}])
    with platform(server.url) as client:
        item = client.deployments.get_deployments().items[0]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert item.name == 5
            assert item.creation_step.value == "teleporting"  # type: ignore[union-attr]
    by_pointer = {d.pointer: d for d in heard}
    extra = by_pointer["/data/deployments/0/brandNew"]
    assert (extra.kind, extra.seen) == (Kind.EXTRA_FIELD, True)
    wrong = by_pointer["/data/deployments/0/name"]
    assert (wrong.kind, wrong.seen) == (Kind.WRONG_TYPE, 5)
    new_value = by_pointer["/data/deployments/0/creationStep"]
    assert new_value.kind == Kind.UNKNOWN_ENUM_VALUE and "'ready'" in new_value.expected
    context = wrong.context
    assert (context.method, context.path, context.status) == ("GET", LIST, 200)
    assert context.operation == "getDeployments"
    assert context.media_type == "application/json"
    # only the wrong type is warned about: extra members and new enum values are expected
    assert [str(w.message).count("/data/deployments/0/name") for w in caught] == [1]


def _events(server: LocalServer, data: list[Any]) -> None:
    @server.route("GET", "/events")
    def reply(ex: Exchange) -> None:
        body = "".join(f"data: {json.dumps(d)}\n\n" for d in data).encode()
        ex.send(200, body, {"Content-Type": "text/event-stream"})


def _items(server: LocalServer, strict: bool) -> list[Any]:
    client = SyncAPIClient(
        base_url=server.url, credential="k", allow_http_loopback=True, strict=strict
    )
    with client:
        call = PreparedCall("GET", "/events")
        stream = client.request(call, cast_to=dict[str, int], kind="event-stream")
        return list(stream.iter_items())


def test_server_sent_events_follow_the_same_rule(server: LocalServer) -> None:
    _events(server, [{"n": 1}, {"n": "two"}])
    with pytest.warns(ResponseValidationWarning, match=r"GET /events \(event 2\).*/n: str 'two'"):
        assert _items(server, strict=False) == [{"n": 1}, {"n": "two"}]
    with pytest.raises(APIResponseValidationError) as info:
        _items(server, strict=True)
    assert [d.pointer for d in info.value.differences] == ["/n"]


def test_strict_names_each_value_once_whatever_the_union() -> None:
    """A validator reports an object that is no member of a union once per member's field; the
    differences say it once, as an unknown variant at the object's own place."""
    from typing import Literal

    import pydantic
    from cube_client._differences import MISSING, Context, from_errors
    from cube_client._models import STRICT, BaseModel, Open, adapter

    class Cat(BaseModel):
        kind: Literal["cat"]
        lives: int

    class Dog(BaseModel):
        kind: Literal["dog"]
        name: str

    class Home(BaseModel):
        pet: Open[Cat | Dog]
        size: Open[Literal["s", "m"]]
        rooms: int
        street: str

    body = {"pet": {"kind": "fox"}, "size": "xl", "rooms": None}
    with pytest.raises(pydantic.ValidationError) as info:
        adapter(Home).validate_python(body, context={STRICT: True})
    found = from_errors(info.value.errors(), body, Context("GET", "/home"))
    assert [(d.kind, d.pointer, d.seen) for d in found] == [
        (Kind.UNKNOWN_VARIANT, "/pet", {"kind": "fox"}),
        (Kind.UNKNOWN_ENUM_VALUE, "/size", "xl"),
        (Kind.NULL, "/rooms", None),
        (Kind.MISSING, "/street", MISSING),
    ]
    assert "'s'" in found[1].expected and "'m'" in found[1].expected


def test_a_value_outside_a_documented_bound_is_kept_and_named_or_refused(
    server: LocalServer, heard: list[Difference]
) -> None:
    """The documented type with a value outside its bounds (``maximum``, ``maxLength``) is a
    difference like any other: kept with a warning when lenient, refused when strict; a
    nullable field's bound counts too."""
    from typing import Annotated

    import pydantic
    from cube_client._models import BaseModel

    class Seed(BaseModel):
        hue: Annotated[float | None, pydantic.Field(ge=0, le=360)] = None
        code: Annotated[str, pydantic.Field(max_length=3)]

    @server.route("GET", "/seed")
    def reply(ex: Exchange) -> None:
        ex.json(200, {"hue": 400, "code": "abcd"})

    def call(strict: bool) -> Seed:
        client = SyncAPIClient(
            base_url=server.url, credential="k", allow_http_loopback=True, strict=strict
        )
        with client:
            return client.request(PreparedCall("GET", "/seed"), cast_to=Seed)  # type: ignore[no-any-return]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seed = call(strict=False)
        assert (seed.hue, seed.code) == (400, "abcd")  # kept as received
    said = " ".join(str(w.message) for w in caught)
    assert "360.0" not in said  # the bound as the document writes it
    assert "/hue: int 400 where the document says <= 360" in said
    assert "/code: str 'abcd' where the document says at most 3 long" in said
    assert {(d.pointer, d.kind) for d in heard} == {
        ("/hue", Kind.OUT_OF_BOUNDS),
        ("/code", Kind.OUT_OF_BOUNDS),
    }
    with pytest.raises(APIResponseValidationError) as info:
        call(strict=True)
    assert sorted((d.pointer, d.kind) for d in info.value.differences) == [
        ("/code", Kind.OUT_OF_BOUNDS),
        ("/hue", Kind.OUT_OF_BOUNDS),
    ]
