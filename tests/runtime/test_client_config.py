"""Client construction per family: credentials, header forms, base URLs and server variables."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import httpx2
import pytest

from tests.helpers import ensure_generated_importable

ensure_generated_importable()

from cube_client import (  # noqa: E402
    ChatClient,
    ConfigurationError,
    DataClient,
    PlatformClient,
    ScimClient,
)

SCIM_LIST = {
    "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
    "totalResults": 0,
    "Resources": [],
}


def _recording(body: object = None) -> tuple[list[httpx2.Request], httpx2.Client]:
    seen: list[httpx2.Request] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=body if body is not None else {})

    return seen, httpx2.Client(transport=httpx2.MockTransport(handle))


def test_missing_credential_fails_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUBE_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="CUBE_API_KEY"):
        PlatformClient(base_url="https://acme.cubecloud.dev")


def test_credential_and_base_url_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUBE_API_KEY", "env-key")
    monkeypatch.setenv("CUBE_BASE_URL", "https://env.example")
    seen, http = _recording()
    PlatformClient(http_client=http).openapi_spec.get_spec()
    assert seen[0].url == "https://env.example/api/v1/spec"
    assert seen[0].headers["authorization"] == "Bearer env-key"


def test_tenant_fills_the_server_template(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUBE_BASE_URL", raising=False)
    seen, http = _recording()
    PlatformClient(api_key="k", tenant="acme", http_client=http).openapi_spec.get_spec()
    assert seen[0].url == "https://acme.cubecloud.dev/api/v1/spec"


@pytest.mark.parametrize(
    "tenant", ["evil.com?x=", "evil.example/", "evil.example:8443", "a@evil.example", "a b", ""]
)
def test_tenant_cannot_move_the_host(monkeypatch: pytest.MonkeyPatch, tenant: str) -> None:
    monkeypatch.delenv("CUBE_BASE_URL", raising=False)
    with pytest.raises(ConfigurationError, match="tenant"):
        PlatformClient(api_key="k", tenant=tenant)


def test_base_path_variable_must_stay_a_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUBE_DATA_API_URL", raising=False)
    with pytest.raises(ConfigurationError, match=r"base_path|basePath"):
        DataClient(token="t", deployment="acme", region="aws-us-east-1", base_path=".evil/x")


def test_dot_segments_in_path_parameters_cannot_change_the_endpoint() -> None:
    seen, http = _recording({"status": "completed"})
    client = PlatformClient(api_key="k", base_url="https://acme.cubecloud.dev", http_client=http)
    client.dashboard_exports.get_export_status(7, "..")
    client.dashboard_exports.get_export_status(7, ".")
    paths = [r.url.raw_path.decode() for r in seen]
    assert paths == [
        "/api/v1/deployments/7/dashboard-exports/%2E%2E",
        "/api/v1/deployments/7/dashboard-exports/%2E",
    ]


def test_extra_headers_replace_ours_whatever_their_case() -> None:
    seen, http = _recording()
    client = PlatformClient(api_key="mine", base_url="https://acme.cubecloud.dev", http_client=http)
    client.openapi_spec.get_spec(extra_headers={"authorization": "Bearer theirs", "ACCEPT": "x/y"})
    assert seen[0].headers.get_list("authorization") == ["Bearer theirs"]
    assert seen[0].headers.get_list("accept") == ["x/y"]


def test_repeated_calls_send_the_same_request_and_no_internal_marker() -> None:
    # Request URLs are parsed once and reused: a reused URL must not leak one call's query or
    # path into the next, and the raw-response marker never reaches the server.
    seen, http = _recording()
    client = PlatformClient(api_key="mine", base_url="https://acme.cubecloud.dev", http_client=http)
    client.openapi_spec.with_raw_response.get_spec()
    client.openapi_spec.get_spec(extra_query={"v": "2"})
    client.openapi_spec.get_spec()
    assert [str(r.url) for r in seen] == [
        str(seen[0].url),
        str(seen[0].url) + "?v=2",
        str(seen[0].url),
    ]
    assert seen[0].url.host == "acme.cubecloud.dev" and not seen[0].url.query
    for request in seen:
        assert "x-cube-codegen-raw-response" not in request.headers
        assert request.headers.get_list("authorization") == ["Bearer mine"]


@pytest.mark.parametrize(
    ("scheme", "header"), [("bearer", "Bearer scim-token"), ("api-key", "Api-Key scim-token")]
)
def test_scim_accepts_bearer_or_api_key(scheme: str, header: str) -> None:
    seen, http = _recording(SCIM_LIST)
    client = ScimClient(
        token="scim-token",
        base_url="https://acme.cubecloud.dev",
        auth_scheme=scheme,  # type: ignore[arg-type]
        http_client=http,
    )
    client.scim_users.list_users(start_index=1, count=10)
    assert seen[0].headers["authorization"] == header
    assert seen[0].url.path == "/api/scim/v2/Users"
    assert dict(seen[0].url.params) == {"startIndex": "1", "count": "10"}


@pytest.mark.parametrize(
    ("base_url", "path"),
    [
        ("https://acme.cubecloud.dev", "/api/scim/v2/Users"),  # the tenant host: SCIM's /api kept
        ("https://acme.cubecloud.dev/", "/scim/v2/Users"),  # a path given: used exactly
        ("https://proxy.example/cube/api", "/cube/api/scim/v2/Users"),
    ],
)
def test_an_origin_keeps_the_servers_base_path(base_url: str, path: str) -> None:
    seen, http = _recording(SCIM_LIST)
    ScimClient(token="t", base_url=base_url, http_client=http).scim_users.list_users()
    assert seen[0].url.path == path
    seen, http = _recording()  # the platform's server has no base path: nothing is added
    PlatformClient(api_key="k", base_url=base_url, http_client=http).openapi_spec.get_spec()
    assert seen[0].url.path == urlsplit(base_url).path.rstrip("/") + "/api/v1/spec"


def test_data_api_sends_the_jwt_bare_under_its_base_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUBE_DATA_API_URL", raising=False)
    seen, http = _recording()
    client = DataClient(
        token="eyJhbGciOi.x.y",
        deployment="acme",
        region="aws-eu-central-1",
        base_path="/cube",
        http_client=http,
    )
    client.data.meta_v1()
    assert seen[0].url == "https://acme.aws-eu-central-1.cubecloudapp.dev/cube/v1/meta"
    assert seen[0].headers["authorization"] == "eyJhbGciOi.x.y"
    DataClient(
        token="t", deployment="acme", region="gcp-us-central1", http_client=http
    ).data.meta_v1()
    assert seen[1].url == "https://acme.gcp-us-central1.cubecloudapp.dev/cubejs-api/v1/meta"
    with pytest.raises(ConfigurationError, match="region"):  # no example value becomes a host
        DataClient(token="t", deployment="acme", http_client=http)


def test_data_api_has_no_plain_http_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """The document's self-hosted http://localhost server is not a default the client falls to."""
    monkeypatch.delenv("CUBE_DATA_API_URL", raising=False)
    seen, http = _recording()
    DataClient(token="t", deployment="acme", region="r1", http_client=http).data.meta_v1()
    assert seen[0].url.scheme == "https"
    with pytest.raises(ConfigurationError, match="https"):
        DataClient(token="t", base_url="http://localhost:4000/cubejs-api")


def test_chat_api_uses_api_key_prefix_and_agent_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUBE_AI_URL", raising=False)

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(
            200,
            content=b'{"id": "__usage__", "type": "usage"}\n',
            headers={"content-type": "application/json"},
        )

    seen: list[httpx2.Request] = []
    http = httpx2.Client(transport=httpx2.MockTransport(handle))
    client = ChatClient(
        api_key="agent-key",
        cloud_region="aws-us-east-1",
        account_name="acme",
        agent_id="42",
        http_client=http,
    )
    events = [e.type for e in client.chat.stream_chat_state(input="hello")]
    assert events == ["usage"]
    assert seen[0].url == (
        "https://ai.aws-us-east-1.cubecloud.dev/api/v1/public/acme/agents/42/chat/stream-chat-state"
    )
    assert seen[0].headers["authorization"] == "Api-Key agent-key"
    assert {m.strip() for m in seen[0].headers["accept"].split(",")} == {
        "application/json",
        "application/jsonl",
    }


@pytest.mark.parametrize("url", ["http://acme.cubecloud.dev", "ftp://x", "acme.cubecloud.dev"])
def test_non_https_base_url_is_refused(url: str) -> None:
    with pytest.raises(ConfigurationError, match="https"):
        PlatformClient(api_key="k", base_url=url)


def test_plain_http_only_for_loopback_when_allowed() -> None:
    PlatformClient(api_key="k", base_url="http://127.0.0.1:9", allow_http_loopback=True)
    with pytest.raises(ConfigurationError):
        PlatformClient(api_key="k", base_url="http://10.0.0.1", allow_http_loopback=True)
    with pytest.raises(ConfigurationError):
        PlatformClient(api_key="k", base_url="http://127.0.0.1:9")


def test_credential_not_in_repr() -> None:
    client = PlatformClient(api_key="super-secret-value", base_url="https://acme.cubecloud.dev")
    assert "super-secret-value" not in repr(client)
    assert "super-secret-value" not in str(vars(client).get("base_url"))


def test_extra_body_reaches_operations_without_a_documented_body() -> None:
    seen, http = _recording({"status": "completed"})
    client = PlatformClient(api_key="k", base_url="https://acme.cubecloud.dev", http_client=http)
    client.dashboard_exports.get_export_status(7, "job", extra_body={"note": "x"})
    assert json.loads(seen[0].content) == {"note": "x"}
    seen, http = _recording({"data": {"id": 3, "name": "feature"}})
    client = PlatformClient(api_key="k", base_url="https://acme.cubecloud.dev", http_client=http)
    client.data_model.set_branch_staging_environment(
        7, enabled=True, branch_id=3, extra_body={"extra": 1}
    )
    assert json.loads(seen[0].content) == {"enabled": True, "branchId": 3, "extra": 1}
