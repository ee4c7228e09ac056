"""Pagination against a real server: offset/limit with and without a total, cursor paging, and the
deployments listing that may answer in either of two shapes — sync and async, lazily.
"""

from __future__ import annotations

from typing import Any

import pytest
from cube_client._base_client import AsyncAPIClient, PreparedCall, SyncAPIClient
from cube_client._limits import PaginationError
from cube_client._pagination import AsyncPage, PageSpec, SyncPage
from cube_client.platform import models
from cube_client.scim import models as scim_models
from runtime_servers import Exchange, LocalServer, async_platform, deployment, platform

LIST = "/api/v1/deployments"
ALL = [deployment(i, f"d{i}") for i in range(7)]


def _offset_server(
    server: LocalServer,
    items: list[dict[str, Any]],
    *,
    with_total: bool = True,
    default_limit: int = 20,
) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        offset = int(ex.seen.q("offset") or 0)
        limit = int(ex.seen.q("limit") or default_limit)
        page: dict[str, Any] = {"data": {"deployments": items[offset : offset + limit]}}
        if with_total:
            page["pagination"] = {"offset": offset, "limit": limit, "total": len(items)}
        ex.json(200, page)


def _cursor_server(
    server: LocalServer, items: list[dict[str, Any]], *, end_with_empty_page: bool = False
) -> None:
    """The typed client's shape: ``{items, pageInfo: {endCursor}}`` paged with first/after."""

    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        start = int((ex.seen.q("after") or "c0")[1:])
        size = int(ex.seen.q("first") or ex.seen.q("limit") or 20)
        chunk = items[start : start + size]
        end = start + len(chunk)
        more = end < len(items) or (end_with_empty_page and chunk)
        page_info = {"endCursor": f"c{end}" if more else None, "hasNextPage": bool(more)}
        ex.json(200, {"items": chunk, "pageInfo": page_info})


def _queries(server: LocalServer) -> list[dict[str, str]]:
    return [{k: v[0] for k, v in s.query.items()} for s in server.seen("GET", LIST)]


# --- offset / limit -----------------------------------------------------------------------------


def test_offset_pages_with_total_sync(server: LocalServer) -> None:
    _offset_server(server, ALL)
    with platform(server.url) as client:
        page = client.deployments.get_deployments(limit=3)
        assert isinstance(page, SyncPage)
        assert [d.id for d in page.items] == [0, 1, 2]
        assert page.total == 7 and page.has_next_page()
        assert len(server.seen()) == 1  # nothing fetched ahead of need
        assert [d.id for d in page] == [d["id"] for d in ALL]
        assert all(isinstance(d, models.Deployment) for d in page.items)
    # pages at 0, 3, 6; the total says there is no fourth
    assert _queries(server) == [
        {"limit": "3"},
        {"limit": "3", "offset": "3"},
        {"limit": "3", "offset": "6"},
    ]


@pytest.mark.anyio
async def test_offset_pages_with_total_async(server: LocalServer) -> None:
    _offset_server(server, ALL)
    async with async_platform(server.url) as client:
        page = await client.deployments.get_deployments(limit=3)
        assert isinstance(page, AsyncPage)
        sizes = [len(p.items) async for p in page.iter_pages()]
        assert sizes == [3, 3, 1]
        assert [d.id async for d in page] == [d["id"] for d in ALL]


def test_offset_without_total_stops_at_empty_or_short_page_sync(server: LocalServer) -> None:
    six = ALL[:6]
    _offset_server(server, six, with_total=False)
    with platform(server.url) as client:
        assert [d.id for d in client.deployments.get_deployments(limit=3)] == [d["id"] for d in six]
        # 3 + 3 full pages, then an empty page ends it
        assert [q.get("offset") for q in _queries(server)] == [None, "3", "6"]
        server.requests.clear()
        # without a limit the default page size (20) tells a short last page apart
        many = [deployment(100 + i, f"m{i}") for i in range(45)]
        _offset_server(server, many, with_total=False)
        pages = list(client.deployments.get_deployments().iter_pages())
        assert [len(p.items) for p in pages] == [20, 20, 5]
        assert len(server.seen()) == 3


@pytest.mark.anyio
async def test_offset_without_total_async(server: LocalServer) -> None:
    _offset_server(server, ALL[:6], with_total=False)
    async with async_platform(server.url) as client:
        page = await client.deployments.get_deployments(limit=2)
        assert len([d async for d in page]) == 6
    assert len(server.seen()) == 4  # three full pages and the empty one


def test_page_at_a_time_sync(server: LocalServer) -> None:
    _offset_server(server, ALL)
    with platform(server.url) as client:
        page: SyncPage[models.Deployment] | None = client.deployments.get_deployments(limit=3)
        seen: list[int] = []
        while page is not None:
            seen.extend(d.id for d in page.items)
            page = page.get_next_page() if page.has_next_page() else None
        assert seen == [d["id"] for d in ALL]
        first = client.deployments.get_deployments(limit=3)
        for item in first:  # lazy: leaving early fetches nothing more
            assert item.id == 0
            break
    assert len(server.seen()) == 4


# --- cursor, and the listing's two shapes ------------------------------------------------------


def test_cursor_shape_sync(server: LocalServer) -> None:
    _cursor_server(server, ALL)
    with platform(server.url) as client:
        page = client.deployments.get_deployments(first=2)
        assert page.spec.style == "cursor" and page.total is None
        assert [d.id for d in page] == [d["id"] for d in ALL]
    # four pages; the last has no next cursor, so paging stops without a fifth request
    assert _queries(server) == [
        {"first": "2"},
        {"first": "2", "after": "c2"},
        {"first": "2", "after": "c4"},
        {"first": "2", "after": "c6"},
    ]


def test_two_shapes_offset_request_cursor_answer_sync(server: LocalServer) -> None:
    """Asked with offset/limit, the server answers in the cursor shape: follow that shape."""
    _cursor_server(server, ALL, end_with_empty_page=True)
    with platform(server.url) as client:
        page = client.deployments.get_deployments(limit=3)
        assert [d.id for d in page.items] == [0, 1, 2]
        assert [d.id for d in page] == [d["id"] for d in ALL]
    # the limit carries over as `first`; offset/limit are no longer sent; an empty page ends it
    assert _queries(server) == [
        {"limit": "3"},
        {"first": "3", "after": "c3"},
        {"first": "3", "after": "c6"},
        {"first": "3", "after": "c7"},
    ]


@pytest.mark.anyio
async def test_two_shapes_async(server: LocalServer) -> None:
    _cursor_server(server, ALL)
    async with async_platform(server.url) as client:
        page = await client.deployments.get_deployments(limit=3)
        assert [d.id async for d in page] == [d["id"] for d in ALL]
        assert len(server.seen()) == 3
        server.requests.clear()
        _offset_server(server, ALL)  # the same endpoint in its documented shape
        page = await client.deployments.get_deployments(limit=3)
        pages = [p async for p in page.iter_pages()]
        assert [p.spec.style for p in pages] == ["offset"] * 3
        nxt = await pages[-1].get_next_page()
        assert nxt is None


def test_neither_shape_is_an_empty_page(server: LocalServer) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        ex.json(200, {"data": {"deployments": None}, "pagination": {"total": 0}})

    with platform(server.url) as client:
        page = client.deployments.get_deployments()
        assert page.items == [] and not page.has_next_page() and list(page) == []


def test_raw_response_of_a_page(server: LocalServer) -> None:
    _offset_server(server, ALL)
    with platform(server.url) as client:
        raw = client.deployments.with_raw_response.get_deployments(limit=3)
        assert raw.status_code == 200
        assert [d.id for d in raw.parse()] == [d["id"] for d in ALL]


# --- a cursor-style endpoint built directly on the runtime --------------------------------------

EVENTS_SPEC = PageSpec(
    style="cursor",
    items=("events",),
    limit_param="size",
    cursor_param="cursor",
    next_cursor=("next",),
)


def _events_server(server: LocalServer, repeat_cursor: bool = False) -> None:
    @server.route("GET", "/events")
    def reply(ex: Exchange) -> None:
        start = int(ex.seen.q("cursor") or 0)
        events = list(range(start, min(start + 4, 10)))
        nxt: Any = str(start + 4) if start + 4 < 10 else None
        if repeat_cursor and start:
            nxt = str(start)
        ex.json(200, {"events": [{"n": n} for n in events], "next": nxt})


def test_cursor_primary_spec_direct_sync(server: LocalServer) -> None:
    _events_server(server)
    with SyncAPIClient(base_url=server.url, credential="k", allow_http_loopback=True) as client:
        page: SyncPage[dict[str, int]] = SyncPage(
            client, PreparedCall("GET", "/events", query={"size": 4}), EVENTS_SPEC, dict[str, int]
        )
        assert [e["n"] for e in page] == list(range(10))
    assert [s.q("cursor") for s in server.seen()] == [None, "4", "8"]


@pytest.mark.anyio
async def test_cursor_primary_spec_direct_async(server: LocalServer) -> None:
    _events_server(server, repeat_cursor=True)
    async with AsyncAPIClient(
        base_url=server.url, credential="k", allow_http_loopback=True
    ) as client:
        page: AsyncPage[dict[str, int]] = await AsyncPage.fetch(
            client, PreparedCall("GET", "/events"), EVENTS_SPEC, dict[str, int]
        )
        # the server repeats the cursor it was sent: paging stops with a typed error
        seen: list[int] = []
        with pytest.raises(PaginationError) as info:
            async for e in page:
                seen.append(e["n"])
        assert seen == [0, 1, 2, 3, 4, 5, 6, 7]
        assert info.value.reason == "repeated-cursor"
    assert len(server.seen()) == 2


# --- SCIM: 1-based startIndex / count -----------------------------------------------------------

SCIM_USERS = "/api/scim/v2/Users"
SCIM_LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse"


def _scim_server(server: LocalServer, total: int) -> None:
    people = [{"schemas": [], "id": f"u{i}", "userName": f"user{i}"} for i in range(1, total + 1)]

    @server.route("GET", SCIM_USERS)
    def reply(ex: Exchange) -> None:
        start = int(ex.seen.q("startIndex") or 1)  # SCIM indexes from 1
        count = int(ex.seen.q("count") or 100)
        chunk = people[start - 1 : start - 1 + count]
        ex.json(
            200,
            {
                "schemas": [SCIM_LIST],
                "totalResults": total,
                "startIndex": start,
                "itemsPerPage": len(chunk),
                "Resources": chunk,
            },
        )


def test_scim_pages_from_one_without_repeats_sync(server: LocalServer) -> None:
    from cube_client import ScimClient

    _scim_server(server, total=7)
    with ScimClient(
        token="scim-token", base_url=f"{server.url}/api", allow_http_loopback=True
    ) as client:
        users = list(client.scim_users.list_users(count=3))
    assert all(isinstance(u, scim_models.User) for u in users)  # typed through the allOf envelope
    ids = [u.id for u in users]
    assert ids == [f"u{i}" for i in range(1, 8)]  # every user once: no overlap between pages
    starts = [s.query.get("startIndex", ["(none)"])[0] for s in server.seen("GET", SCIM_USERS)]
    assert starts == ["(none)", "4", "7"]


@pytest.mark.anyio
async def test_scim_pages_from_one_without_repeats_async(server: LocalServer) -> None:
    from cube_client import AsyncScimClient

    _scim_server(server, total=5)
    client = AsyncScimClient(
        token="scim-token", base_url=f"{server.url}/api", allow_http_loopback=True
    )
    async with client:
        page = await client.scim_users.list_users(start_index=1, count=2)
        ids = [u.id async for u in page]
    assert ids == [f"u{i}" for i in range(1, 6)]
