"""Safe defaults: a client never builds a host from a document's example server variables."""

from __future__ import annotations

import pytest
from cube_client import (
    AsyncPlatformClient,
    ChatClient,
    ConfigurationError,
    DataClient,
    PlatformClient,
    ScimClient,
)
from runtime_servers import API_KEY, Exchange, LocalServer

ENVS = ("CUBE_BASE_URL", "CUBE_DATA_API_URL", "CUBE_AI_URL")


@pytest.fixture(autouse=True)
def _no_server_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENVS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("make", "names"),
    [
        (lambda: PlatformClient(api_key=API_KEY), ["tenant=", "CUBE_BASE_URL"]),
        (lambda: AsyncPlatformClient(api_key=API_KEY), ["tenant="]),
        (lambda: ScimClient(token=API_KEY), ["tenant="]),
        (lambda: DataClient(token=API_KEY), ["deployment=", "region=", "CUBE_DATA_API_URL"]),
        (lambda: DataClient(token=API_KEY, deployment="acme"), ["region="]),
        (lambda: ChatClient(api_key=API_KEY), ["cloud_region=", "account_name=", "agent_id="]),
        (lambda: ChatClient(api_key=API_KEY, cloud_region="us", account_name="a"), ["agent_id="]),
    ],
)
def test_no_host_without_an_explicit_choice(make: object, names: list[str]) -> None:
    with pytest.raises(ConfigurationError) as info:
        make()  # type: ignore[operator]
    for name in names:
        assert name in str(info.value)
    assert "your-" not in str(info.value)


def test_every_variable_given_builds_the_host() -> None:
    client = DataClient(token=API_KEY, deployment="acme", region="aws-eu-west-1")
    assert str(client.base_url) == "https://acme.aws-eu-west-1.cubecloudapp.dev/cubejs-api"


def test_environment_base_url_is_where_the_credential_goes(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    @server.route("GET", "/api/v1/spec")
    def reply(ex: Exchange) -> None:
        ex.json(200, {"openapi": "3.0.0"})

    monkeypatch.setenv("CUBE_BASE_URL", server.url)
    with PlatformClient(api_key=API_KEY, allow_http_loopback=True) as client:
        client.openapi_spec.get_spec()
    (seen,) = server.seen()
    assert seen.headers["authorization"] == f"Bearer {API_KEY}"


@pytest.mark.parametrize("from_env", [False, True])
def test_chat_host_only_needs_the_account_and_agent(
    monkeypatch: pytest.MonkeyPatch, from_env: bool
) -> None:
    host = "https://ai.gcp-us-central1.cubecloud.dev"
    if from_env:
        monkeypatch.setenv("CUBE_AI_URL", host)
    with pytest.raises(ConfigurationError) as info:
        ChatClient(api_key=API_KEY, base_url=None if from_env else host)
    message = str(info.value)
    assert "account_name=" in message and "agent_id=" in message
    assert "your-account" not in message and "/agents/1" not in message
    with pytest.raises(ConfigurationError, match="agent_id=") as info:
        ChatClient(api_key=API_KEY, base_url=None if from_env else host, account_name="acme")
    assert "account_name" not in str(info.value)


def test_chat_host_with_account_and_agent_reaches_that_agent(server: LocalServer) -> None:
    @server.route("POST", "*")
    def reply(ex: Exchange) -> None:
        ex.send(204, b"")

    with ChatClient(
        api_key=API_KEY,
        base_url=server.url,
        account_name="acme",
        agent_id="42",
        allow_http_loopback=True,
    ) as client:
        client.chat.abort_chat(chat_id="c1")
    (seen,) = server.seen()
    assert seen.path == "/api/v1/public/acme/agents/42/chat/abort"
    assert seen.json() == {"chatId": "c1"}


def test_a_full_chat_base_url_is_used_as_given(server: LocalServer) -> None:
    @server.route("POST", "*")
    def reply(ex: Exchange) -> None:
        ex.send(204, b"")

    with ChatClient(
        api_key=API_KEY, base_url=server.url + "/custom/agent-7", allow_http_loopback=True
    ) as client:
        client.chat.abort_chat(chat_id="c2")
    (seen,) = server.seen()
    assert seen.path == "/custom/agent-7/chat/abort"
