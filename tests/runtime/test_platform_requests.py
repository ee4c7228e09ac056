"""Request building and response parsing for every platform endpoint the service describes.

A mock transport records the request the generated client builds; real HTTP servers are the
runtime tests' business. Each case runs through the sync and the async client.
"""

from __future__ import annotations

import asyncio
import datetime
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2
import pytest

from tests.helpers import ensure_generated_importable

ensure_generated_importable()

from cube_client import AsyncPlatformClient, PlatformClient  # noqa: E402
from cube_client.platform import models  # noqa: E402

BASE = "https://acme.cubecloud.dev"

DELIVERY = {
    "id": 34,
    "deploymentId": 12,
    "name": "Weekly revenue",
    "destination": {"spreadsheetId": "sheet-1", "anchorCell": "B2", "sheetId": None},
    "writeMode": "append",
    "notifications": {"inbox": True, "email": False, "slackChannelId": None},
    "status": "active",
    "lastRunAt": "2026-01-05T10:00:00Z",
    "pausedAt": "2026-01-06T09:30:00Z",
    "nextRunAt": None,
    "schedule": {"cronExpressions": ["0 9 * * 1"], "timezone": "Europe/Berlin"},
    "shape": {"columns": [{"column": "revenue", "header": "Revenue", "placeholder": False}]},
}


DEPLOYMENTS = [
    {"id": 1, "name": "prod", "creationStep": "ready", "deploymentUrl": "https://prod.example.com"},
    {"id": 2, "name": "dev", "creationStep": "ready", "deploymentUrl": "https://dev.example.com"},
]
ENVIRONMENTS = [{
    "id": "e1", "type": "staging", "branch": "feature-x",
    "api_credentials": [
        {"type": "rest", "url": "https://api.example.com/cubejs-api", "version": 1},
        {"type": "sql", "host": "sql.example.com", "port": 5432, "version": 1},
    ],
}]  # fmt: skip
SETTINGS = {
    "id": 7, "name": "prod", "cloudProvider": "aws", "creationStep": "ready",
    "deployBranchMergeAllowed": True, "deployBranchName": "main", "deployBranchReadOnly": False,
    "deployProjectRoot": "/", "deploymentUrl": "https://prod.example.com",
    "isCubeSqlEnabled": True, "isSupportPreAggregations": True, "releaseChannel": "latest",
    "template": "single",
}  # fmt: skip


@dataclass
class Case:
    call: Callable[[Any], Any]
    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: Any = None
    reply: Any = None
    content_type: str = "application/json"
    check: Callable[[Any], None] = lambda _: None


def _check_delivery(r: Any) -> None:
    assert isinstance(r, models.ReportDeliveryResponse)
    assert r.write_mode == "append" and r.destination.anchor_cell == "B2"
    assert r.last_run_at == datetime.datetime(2026, 1, 5, 10, tzinfo=datetime.UTC)
    assert r.schedule is not None and r.schedule.cron_expressions == ["0 9 * * 1"]
    assert r.next_run_at is None


def _check_deployments(page: Any) -> None:
    assert [d.name for d in page.items] == ["prod", "dev"]
    assert all(isinstance(d, models.Deployment) for d in page.items)
    assert page.items[0].creation_step == "ready"
    assert not page.has_next_page()  # pageInfo.endCursor is null: the last page


def _check_environments(page: Any) -> None:
    env = page.items[0]
    assert env.type == "staging"
    rest, sql = env.api_credentials
    assert rest.url == "https://api.example.com/cubejs-api"
    assert sql.port == 5432


def _check_token(r: Any) -> None:
    assert r.data.token == "eyJ.x.y"
    assert r.data.expires_at.startswith("2026-01-02")


def _check_bytes(expected: bytes) -> Callable[[Any], None]:
    def check(r: Any) -> None:
        data = r.read()
        r.close()
        assert data == expected

    return check


CASES: dict[str, Case] = {
    "pause-report-delivery": Case(
        lambda c: c.report_deliveries.pause_report_delivery(12, 34),
        "POST", "/api/v1/deployments/12/report-deliveries/34/pause",
        reply=DELIVERY, check=_check_delivery,
    ),
    "list-deployments": Case(
        lambda c: c.deployments.get_deployments(first=5),
        "GET", "/api/v1/deployments", query={"first": "5"},
        reply={
            "items": DEPLOYMENTS,
            "data": DEPLOYMENTS,
            "pagination": {"offset": 0, "limit": 5, "total": 2},
            "pageInfo": {"hasNextPage": False, "hasPreviousPage": False, "endCursor": None},
        },
        check=_check_deployments,
    ),
    "list-environments": Case(
        lambda c: c.environments.get_deployment_environments(7, type="staging", limit=2),
        "GET", "/api/v1/deployments/7/environments", query={"type": "staging", "limit": "2"},
        reply={"items": ENVIRONMENTS, "data": ENVIRONMENTS, "pagination": {"offset": 0, "limit": 2, "total": 1},
               "pageInfo": {"hasNextPage": False, "hasPreviousPage": False}},
        check=_check_environments,
    ),
    "meta-sync-token": Case(
        lambda c: c.environments.create_deployment_environment_token_for_meta_sync(
            7, "e1", security_context={"tenant": "a"}, expires_in=3600
        ),
        "POST", "/api/v1/deployments/7/environments/e1/tokens-for-meta-sync",
        body={"security_context": {"tenant": "a"}, "expires_in": 3600},
        reply={"data": {"token": "eyJ.x.y", "created_at": "2026-01-01T00:00:00Z", "expires_at": "2026-01-02T00:00:00Z",
                        "security_context": {"tenant": "a"}}},
        check=_check_token,
    ),
    "staging-toggle": Case(
        lambda c: c.data_model.set_branch_staging_environment(7, enabled=True, branch_name="feature/x"),
        "PUT", "/build/api/v1/deployments/7/branches/staging-environment",
        body={"enabled": True, "branchName": "feature/x"},
        reply={"data": {"id": 3, "name": "feature/x", "parentBranch": "main", "lastHash": "abc", "isStagingEnvironmentEnabled": True}},
        check=lambda r: (r.data.is_staging_environment_enabled is True) or pytest.fail("flag"),
    ),
    "list-versions": Case(
        lambda c: c.deployments.list_deployment_versions(7),
        "GET", "/api/v1/deployments/7/versions",
        reply={"items": [{"releaseChannelVersion": "cube:v1.2.3", "version": "1.2.3", "releaseChannel": "latest", "isLatestInChannel": True, "isCurrent": False}],
               "pageInfo": {"hasNextPage": False, "hasPreviousPage": False}},
        check=lambda r: (r.items[0].is_latest_in_channel and r.items[0].version == "1.2.3") or pytest.fail("versions"),
    ),
    "update-deployment": Case(
        lambda c: c.deployments.update_deployment(7, release_channel_version="v1.2.3"),
        "PUT", "/api/v1/deployments/7", body={"releaseChannelVersion": "v1.2.3"}, reply=SETTINGS,
        check=lambda r: (r.release_channel == "latest" and r.id == 7) or pytest.fail("settings"),
    ),
    "audit-log-export": Case(
        lambda c: c.audit_logs.export_audit_logs(start=datetime.date(2026, 1, 1), event_name="login", user_email="a@b.c"),
        "GET", "/api/v1/audit-logs/export",
        query={"start": "2026-01-01", "eventName": "login", "userEmail": "a@b.c"},
        reply=b"time,event\n2026-01-01,login\n", content_type="text/csv",
        check=_check_bytes(b"time,event\n2026-01-01,login\n"),
    ),
    "start-dashboard-export": Case(
        lambda c: c.dashboard_exports.start_export(7, dashboard_id=5, format="pdf"),
        "POST", "/api/v1/deployments/7/dashboard-exports", body={"dashboardId": 5, "format": "pdf"},
        reply={"jobId": "job-1", "expiresAt": "2026-01-01T00:05:00Z"},
        check=lambda r: (r.job_id == "job-1" and r.expires_at.minute == 5) or pytest.fail("job"),
    ),
    "export-status": Case(
        lambda c: c.dashboard_exports.get_export_status(7, "job-1"),
        "GET", "/api/v1/deployments/7/dashboard-exports/job-1",
        reply={"status": "failed", "error": "dashboard was deleted"},
        check=lambda r: (r.status == "failed" and r.error == "dashboard was deleted") or pytest.fail("status"),
    ),
    "export-download": Case(
        lambda c: c.dashboard_exports.download_export(7, "job-1"),
        "GET", "/api/v1/deployments/7/dashboard-exports/job-1/download",
        reply=b"%PDF-1.7 fake", content_type="application/pdf", check=_check_bytes(b"%PDF-1.7 fake"),
    ),
    "get-spec": Case(
        lambda c: c.openapi_spec.get_spec(), "GET", "/api/v1/spec",
        reply={"openapi": "3.1.0"}, check=lambda r: (r["openapi"] == "3.1.0") or pytest.fail("spec"),
    ),
}  # fmt: skip


def _handler(case: Case, seen: list[httpx2.Request]) -> Callable[[httpx2.Request], httpx2.Response]:
    def handle(request: httpx2.Request) -> httpx2.Response:
        request.read()
        seen.append(request)
        if isinstance(case.reply, bytes):
            return httpx2.Response(
                200, content=case.reply, headers={"content-type": case.content_type}
            )
        return httpx2.Response(200, json=case.reply)

    return handle


def _assert_request(case: Case, seen: list[httpx2.Request]) -> None:
    assert len(seen) == 1
    req = seen[0]
    assert req.method == case.method
    assert req.url.scheme == "https" and req.url.host == "acme.cubecloud.dev"
    assert req.url.path == case.path
    assert dict(req.url.params) == case.query
    assert req.headers["authorization"] == "Bearer secret-key"
    if case.body is None:
        assert req.content == b""
    else:
        assert req.headers["content-type"] == "application/json"
        assert json.loads(req.content) == case.body


@pytest.mark.parametrize("name", sorted(CASES))
def test_sync_request_and_response(name: str) -> None:
    case, seen = CASES[name], []
    http = httpx2.Client(transport=httpx2.MockTransport(_handler(case, seen)))
    with PlatformClient(api_key="secret-key", base_url=BASE, http_client=http) as client:
        result = case.call(client)
    _assert_request(case, seen)
    case.check(result)


@pytest.mark.parametrize("name", sorted(CASES))
def test_async_request_and_response(name: str) -> None:
    case, seen = CASES[name], []

    async def run() -> Any:
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(_handler(case, seen)))
        async with AsyncPlatformClient(
            api_key="secret-key", base_url=BASE, http_client=http
        ) as client:
            result = await case.call(client)
            if hasattr(result, "read") and hasattr(result, "http_response"):
                data = await result.read()
                await result.close()
                return _Bytes(data)
            return result
        await http.aclose()

    result = asyncio.run(run())
    _assert_request(case, seen)
    case.check(result)


class _Bytes:
    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self) -> bytes:
        return self._data

    def close(self) -> None:
        pass


def test_every_described_platform_endpoint_has_a_method() -> None:
    described = {
        ("POST", "/api/v1/deployments/{deploymentId}/report-deliveries/{id}/pause"),
        ("GET", "/api/v1/deployments"),
        ("GET", "/api/v1/deployments/{deploymentId}/environments"),
        (
            "POST",
            "/api/v1/deployments/{deploymentId}/environments/{environmentId}/tokens-for-meta-sync",
        ),
        ("PUT", "/build/api/v1/deployments/{deploymentId}/branches/staging-environment"),
        ("GET", "/api/v1/deployments/{deploymentId}/versions"),
        ("PUT", "/api/v1/deployments/{deploymentId}"),
        ("GET", "/api/v1/audit-logs/export"),
        ("POST", "/api/v1/deployments/{deploymentId}/dashboard-exports"),
        ("GET", "/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}"),
        ("GET", "/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}/download"),
        ("GET", "/api/v1/spec"),
    }
    covered = {(c.method, _template(c.path)) for c in CASES.values()}
    assert {(m, _template(p)) for m, p in described} == covered


def _template(path: str) -> str:
    return "/".join(
        "{}" if (s.startswith("{") or s[:1].isdigit() or s.startswith("job-") or s == "e1") else s
        for s in path.split("/")
    )


def test_omitted_differs_from_null() -> None:
    seen: list[httpx2.Request] = []
    case = Case(lambda c: None, "PUT", "/", reply=SETTINGS)
    http = httpx2.Client(transport=httpx2.MockTransport(_handler(case, seen)))
    client = PlatformClient(api_key="secret-key", base_url=BASE, http_client=http)
    client.deployments.update_deployment(7, release_channel="release")
    client.deployments.update_deployment(7, release_channel=None, release_channel_version="1.0.0")
    assert json.loads(seen[0].content) == {"releaseChannel": "release"}
    assert json.loads(seen[1].content) == {"releaseChannelVersion": "1.0.0", "releaseChannel": None}


def test_raw_response_gives_status_headers_and_parsed_value() -> None:
    seen: list[httpx2.Request] = []
    case = CASES["export-status"]
    http = httpx2.Client(transport=httpx2.MockTransport(_handler(case, seen)))
    client = PlatformClient(api_key="secret-key", base_url=BASE, http_client=http)
    raw = client.with_raw_response.dashboard_exports.get_export_status(7, "job-1")
    assert raw.status_code == 200
    assert raw.headers["content-type"] == "application/json"
    assert raw.parse().status == "failed"
    assert "x-cube-codegen-raw-response" not in seen[0].headers


def test_path_parameters_are_percent_encoded() -> None:
    seen: list[httpx2.Request] = []
    case = CASES["export-status"]
    http = httpx2.Client(transport=httpx2.MockTransport(_handler(case, seen)))
    client = PlatformClient(api_key="secret-key", base_url=BASE, http_client=http)
    client.dashboard_exports.get_export_status(7, "../../admin?x=1")
    assert (
        seen[0].url.raw_path == b"/api/v1/deployments/7/dashboard-exports/..%2F..%2Fadmin%3Fx%3D1"
    )


@pytest.mark.parametrize(
    "ids",
    [{}, {"dashboard_id": 5, "dashboard_public_id": "pub-5"}],
    ids=["neither-id", "both-ids"],
)
def test_dashboard_export_needs_exactly_one_id(ids: dict[str, Any]) -> None:
    from cube_client import RequestValidationError

    seen: list[httpx2.Request] = []
    http = httpx2.Client(
        transport=httpx2.MockTransport(_handler(CASES["start-dashboard-export"], seen))
    )
    client = PlatformClient(api_key="secret-key", base_url=BASE, http_client=http)
    with pytest.raises(RequestValidationError, match="exactly one of"):
        client.dashboard_exports.start_export(7, format="pdf", **ids)
    assert seen == []  # refused locally: nothing was sent


@pytest.mark.parametrize(
    "branch",
    [{}, {"branch_name": "feature/x", "branch_id": 3}],
    ids=["neither-branch", "both-branches"],
)
def test_staging_toggle_needs_exactly_one_branch(branch: dict[str, Any]) -> None:
    from cube_client import RequestValidationError

    seen: list[httpx2.Request] = []
    http = httpx2.Client(transport=httpx2.MockTransport(_handler(CASES["staging-toggle"], seen)))
    client = PlatformClient(api_key="secret-key", base_url=BASE, http_client=http)
    with pytest.raises(RequestValidationError, match="exactly one of"):
        client.data_model.set_branch_staging_environment(7, enabled=True, **branch)
    assert seen == []
