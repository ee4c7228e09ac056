"""The client as other teams meet it, against a real server on 127.0.0.1: pages that cannot lie,
request rules checked before sending, responses that survive API changes (and ``strict=True``),
``with_options``, the User-Agent, and the ``CUBE_LOG`` switch.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from cube_client import (
    APIResponseValidationError,
    BadRequestError,
    InternalServerError,
    RequestValidationError,
)
from cube_client._models import ResponseValidationWarning, Unknown
from cube_client._pagination import AsyncPage, PageShapeError
from cube_client._request_log import log as client_log
from runtime_servers import API_KEY, Exchange, LocalServer, async_platform, platform

LIST = "/api/v1/deployments"
ENVS = "/api/v1/deployments/7/environments"
EXPORT = "/api/v1/deployments/7/dashboard-exports"
STAGING = "/build/api/v1/deployments/7/branches/staging-environment"
ALL = [
    {
        "id": i,
        "name": f"deployment {i}",
        "creationStep": "ready",
        "deploymentUrl": f"https://d{i}.test",
    }
    for i in range(7)
]


def _offset_server(server: LocalServer) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        offset, limit = int(ex.seen.q("offset") or 0), int(ex.seen.q("limit") or 20)
        ex.json(
            200,
            {
                "data": {"deployments": ALL[offset : offset + limit]},
                "pagination": {"offset": offset, "limit": limit, "total": len(ALL)},
            },
        )


# --- pagination that cannot lie -----------------------------------------------------------------


def test_unknown_page_shape_is_an_error_naming_operation_and_keys(server: LocalServer) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        ex.json(200, {"results": [{"id": 0}], "count": 1})

    with platform(server.url) as client, pytest.raises(PageShapeError) as info:
        client.deployments.get_deployments()
    err = info.value
    assert isinstance(err, APIResponseValidationError)
    assert err.operation == "getDeployments" and err.keys == ["count", "results"]
    assert "getDeployments" in str(err) and "results" in str(err)
    assert "data.deployments" in str(err)


@pytest.mark.anyio
async def test_unknown_page_shape_async(server: LocalServer) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        ex.json(200, ["not", "a", "page"])

    async with async_platform(server.url) as client:
        with pytest.raises(PageShapeError, match="getDeployments"):
            async for _ in client.deployments.get_deployments():
                pass


def test_cursor_paging_honours_has_next_page(server: LocalServer) -> None:
    @server.route("GET", LIST)
    def reply(ex: Exchange) -> None:
        ex.json(
            200,
            {"items": ALL[:2], "pageInfo": {"endCursor": "c2", "hasNextPage": False}},
        )

    with platform(server.url) as client:
        page = client.deployments.get_deployments(first=2)
        assert not page.has_next_page() and page.next_page() is None
        assert [d.id for d in page] == [0, 1]
    assert len(server.seen()) == 1  # the set endCursor costs no further request


@pytest.mark.anyio
async def test_async_for_over_a_list_call_without_await(server: LocalServer) -> None:
    _offset_server(server)
    async with async_platform(server.url) as client:
        ids = [d.id async for d in client.deployments.get_deployments(limit=3)]
        assert ids == [d["id"] for d in ALL]
        page = await client.deployments.get_deployments(limit=3)  # still a page when awaited
        assert isinstance(page, AsyncPage) and page.has_next_page()
        assert page.raw["pagination"]["total"] == 7
        nxt = await page.next_page()
        assert nxt is not None and [d.id for d in nxt.items] == [3, 4, 5]


# --- one mechanism for request rules ------------------------------------------------------------


@pytest.mark.parametrize(
    ("ids", "message"),
    [({}, "got none"), ({"branch_name": "main", "branch_id": 3}, "got branchName and branchId")],
)
def test_staging_toggle_needs_exactly_one_branch(
    server: LocalServer, ids: dict[str, Any], message: str
) -> None:
    with platform(server.url) as client, pytest.raises(RequestValidationError) as info:
        client.data_model.set_branch_staging_environment(7, enabled=True, **ids)
    assert "exactly one of: branchName | branchId" in str(info.value) and message in str(info.value)
    assert server.seen() == []  # refused before sending


def test_staging_toggle_with_one_branch_is_sent(server: LocalServer) -> None:
    @server.route("PUT", STAGING)
    def reply(ex: Exchange) -> None:
        ex.json(200, {"success": True})

    with platform(server.url) as client:
        result = client.data_model.set_branch_staging_environment(7, enabled=True, branch_id=3)
    assert result.to_dict() == {"success": True}
    assert server.seen()[0].json() == {"enabled": True, "branchId": 3}


def test_dashboard_export_rule_is_the_same_mechanism(server: LocalServer) -> None:
    with platform(server.url) as client, pytest.raises(RequestValidationError, match="got none"):
        client.dashboard_exports.start_export(7, format="pdf")
    assert server.seen() == []


# --- forward-compatible responses -----------------------------------------------------------------


def _environments(server: LocalServer, items: list[dict[str, Any]]) -> None:
    @server.route("GET", ENVS)
    def reply(ex: Exchange) -> None:
        ex.json(200, {"data": {"environments": items}, "pagination": {"total": len(items)}})


REST = [{"type": "rest", "url": "https://api.test/cubejs-api", "version": 1}]


def test_unknown_enum_value_is_kept_typed(server: LocalServer) -> None:
    new = {
        "id": "e1",
        "type": "preview",
        "api_credentials": [{"type": "graphql", "url": "u", "version": 2}],
    }
    _environments(server, [new, {"id": "e2", "type": "staging", "api_credentials": REST}])
    with platform(server.url) as client, warnings.catch_warnings():
        warnings.simplefilter("error")  # an Open value is expected: no warning
        first, second = client.environments.get_deployment_environments(7).items
        assert first.type == Unknown("preview") and isinstance(first.type, Unknown)
        assert first.type.value == "preview" and second.type == "staging"
        assert first.api_credentials[0].type == Unknown("graphql")
        assert first.to_dict() == new
        assert first.model_dump(exclude_none=True) == new


def test_unknown_fields_are_kept_and_raw_json_readable(server: LocalServer) -> None:
    raw = {
        "id": "e1",
        "type": "production",
        "api_credentials": REST,
        "region": "eu-1",
        "labels": {"a": 1},
    }
    _environments(server, [raw])
    with platform(server.url) as client:
        (env,) = client.environments.get_deployment_environments(7).items
    assert env.to_dict() == raw
    assert env.model_extra == {"region": "eu-1", "labels": {"a": 1}}


def test_null_and_missing_required_fields_warn_in_lenient_mode(server: LocalServer) -> None:
    @server.route("POST", EXPORT)
    def reply(ex: Exchange) -> None:
        ex.json(201, {"jobId": None, "status": "queued"})  # jobId null, expiresAt missing

    with platform(server.url) as client, pytest.warns(ResponseValidationWarning) as caught:
        job = client.dashboard_exports.start_export(7, dashboard_id=5, format="pdf")
        assert job.job_id is None and job.expires_at is None
    text = " ".join(str(w.message) for w in caught)
    assert "expiresAt" in text and "jobId" in text
    assert job.to_dict() == {"jobId": None, "status": "queued"}


def test_strict_client_fails_on_the_same_responses(server: LocalServer) -> None:
    @server.route("POST", EXPORT)
    def reply(ex: Exchange) -> None:
        ex.json(201, {"jobId": None})

    _environments(server, [{"id": "e1", "type": "preview", "api_credentials": REST}])
    with platform(server.url, strict=True) as client:
        with pytest.raises(APIResponseValidationError, match="does not match"):
            client.dashboard_exports.start_export(7, dashboard_id=5, format="pdf")
        with pytest.raises(APIResponseValidationError):
            client.environments.get_deployment_environments(7)


def test_wrong_type_is_kept_with_a_warning(server: LocalServer) -> None:
    sql = {"type": "sql", "host": "h", "port": "not-a-port", "version": 1}
    _environments(server, [{"id": 42, "type": "staging", "api_credentials": [sql]}])
    with platform(server.url) as client:
        (env,) = client.environments.get_deployment_environments(7).items
        with pytest.warns(ResponseValidationWarning, match="id"):
            assert env.id == 42
        with pytest.warns(ResponseValidationWarning, match="port"):
            assert env.api_credentials[0].port == "not-a-port"
        assert env.api_credentials[0].host == "h"


def test_unknown_union_variant_is_kept(server: LocalServer) -> None:
    """A union of models (as ``Open[A | B]`` in generated models) keeps a new kind of object."""
    from cube_client._base_client import PreparedCall
    from cube_client._models import BaseModel, Open

    class Cat(BaseModel):
        meows: bool

    class Dog(BaseModel):
        barks: bool

    class Pets(BaseModel):
        pets: list[Open[Cat | Dog]]

    @server.route("GET", "/pets")
    def reply(ex: Exchange) -> None:
        ex.json(200, {"pets": [{"meows": True}, {"hisses": True}, {"barks": True}]})

    with platform(server.url) as client:
        result = client.request(PreparedCall("GET", "/pets"), cast_to=Pets)
        cat, new, dog = result.pets
        assert isinstance(cat, Cat) and isinstance(dog, Dog)
        assert new == Unknown({"hisses": True})
        strict = client.with_options(strict=True)
        with pytest.raises(APIResponseValidationError):
            strict.request(PreparedCall("GET", "/pets"), cast_to=Pets)


def test_root_model_value_that_does_not_read_is_kept_with_a_warning(server: LocalServer) -> None:
    """A value model (``RootModel``) whose value does not validate keeps that value and warns,
    naming the field; it never reads as ``root=None``."""
    from cube_client._base_client import PreparedCall
    from cube_client._models import BaseModel
    from pydantic import RootModel

    class Count(RootModel[int]):
        root: int

    class Holder(BaseModel):
        count: Count

    @server.route("GET", "/count")
    def reply(ex: Exchange) -> None:
        ex.json(200, {"count": "many"})

    with platform(server.url) as client:
        result = client.request(PreparedCall("GET", "/count"), cast_to=Holder)
        with pytest.warns(ResponseValidationWarning, match=r"GET /count: .*/count: str 'many'"):
            count = result.count
    assert count.root == "many"


# --- ergonomics ---------------------------------------------------------------------------------


def test_user_agent_names_the_sdk(server: LocalServer) -> None:
    import platform as py
    import re

    _offset_server(server)
    with platform(server.url) as client:
        client.deployments.get_deployments()
    agent = server.seen()[0].headers["user-agent"]
    assert re.fullmatch(r"cube-client/\d+\.\d+\.\d+\S* python/\d+\.\d+ httpx2/\d+\.\d+", agent)
    assert f"python/{'.'.join(py.python_version_tuple()[:2])}" in agent


def test_with_options_changes_retries_and_shares_the_pool(server: LocalServer) -> None:
    @server.route("GET", "/api/v1/deployments/7/versions")
    def reply(ex: Exchange) -> None:
        ex.error(503, "busy", {"Retry-After": "0"})

    with platform(server.url, max_retries=3, sleep=lambda _: None) as client:
        quick = client.with_options(max_retries=0, timeout=5.0)
        assert quick.timeout == 5.0 and client.timeout != 5.0
        assert quick._client is client._client
        with pytest.raises(InternalServerError):
            quick.deployments.list_deployment_versions(7)
        assert len(server.seen()) == 1
        with pytest.raises(InternalServerError):
            client.deployments.list_deployment_versions(7)
        assert len(server.seen()) == 5
        quick.close()  # the copy does not close the shared pool
        assert not client._client.is_closed


@pytest.fixture
def env_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CUBE_LOG", "debug")
    before = list(client_log.handlers), client_log.level
    yield
    for handler in client_log.handlers[len(before[0]) :]:
        client_log.removeHandler(handler)
    client_log.setLevel(before[1])
    if hasattr(client_log, "_cube_env_handler"):
        del client_log._cube_env_handler


def test_cube_log_debug_logs_requests_without_credentials(
    server: LocalServer, env_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    @server.route("GET", "/api/v1/deployments/7/versions")
    def reply(ex: Exchange) -> None:
        auth = ex.seen.headers.get("authorization", "")
        ex.error(503 if len(server.seen()) == 1 else 400, f"echo {auth}", {"Retry-After": "0"})

    with platform(server.url, sleep=lambda _: None) as client, pytest.raises(BadRequestError):
        client.deployments.list_deployment_versions(7)
    lines = capsys.readouterr().err.splitlines()
    assert any("GET" in line and "/versions" in line and "-> 503" in line for line in lines)
    assert any("Retrying" in line for line in lines)
    assert any("authorization" in line.lower() and "[redacted]" in line for line in lines)
    assert all(API_KEY not in line for line in lines)
    assert client_log.level == logging.DEBUG


def test_request_id_is_on_the_raw_response(server: LocalServer) -> None:
    """The server's request id, for support tickets, on the raw response of a success."""
    from runtime_servers import DEPLOYMENT, deployment

    @server.route("GET", DEPLOYMENT)
    def reply(ex: Exchange) -> None:
        ex.json(200, deployment(7, "seven"), {"X-Request-Id": "req-success-7"})

    with platform(server.url) as client:
        raw = client.deployments.with_raw_response.get_deployment(7)
    assert raw.request_id == "req-success-7"
    assert raw.parse().name == "seven"
