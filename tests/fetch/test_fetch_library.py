"""The fetch library's pieces: URL checks, Retry-After, the snapshot form and atomic writes."""

from __future__ import annotations

import email.utils
from pathlib import Path

import httpx2
import pytest

from generator.document.fetch import (
    MAX_RETRY_AFTER,
    FetchError,
    fetch_live,
    openapi_problem,
    redact,
    retry_delay,
    snapshot_text,
    spec_url,
    write_snapshot,
)


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("https://t.cubecloud.dev", "https://t.cubecloud.dev/api/v1/spec"),
        ("https://t.cubecloud.dev/", "https://t.cubecloud.dev/api/v1/spec"),
        ("https://t.cubecloud.dev:8443/x/", "https://t.cubecloud.dev:8443/x/api/v1/spec"),
        ("HTTPS://T.cubecloud.dev", "https://T.cubecloud.dev/api/v1/spec"),
    ],
)
def test_spec_url(base: str, expected: str) -> None:
    assert spec_url(base, environ={}) == expected


@pytest.mark.parametrize(
    ("base", "env", "id"),
    [
        ("http://t.cubecloud.dev", {}, "fetch-insecure-url"),
        ("http://127.0.0.1:9", {}, "fetch-insecure-url"),
        (
            "http://t.cubecloud.dev",
            {"CUBE_CODEGEN_ALLOW_INSECURE_LOOPBACK": "1"},
            "fetch-insecure-url",
        ),
        ("http://10.0.0.1", {"CUBE_CODEGEN_ALLOW_INSECURE_LOOPBACK": "1"}, "fetch-insecure-url"),
        ("http://127.0.0.1", {"CUBE_CODEGEN_ALLOW_INSECURE_LOOPBACK": "yes"}, "fetch-insecure-url"),
        ("ftp://t.cubecloud.dev", {}, "fetch-bad-url"),
        ("t.cubecloud.dev", {}, "fetch-bad-url"),
        ("https://user:pw@t.cubecloud.dev", {}, "fetch-bad-url"),
        ("https://t.cubecloud.dev/?x=1", {}, "fetch-bad-url"),
        ("https://t.cubecloud.dev:99999", {}, "fetch-bad-url"),
    ],
)
def test_spec_url_refusals(base: str, env: dict[str, str], id: str) -> None:
    with pytest.raises(FetchError) as caught:
        spec_url(base, environ=env)
    assert caught.value.first.id == id
    assert "pw" not in str(caught.value)


def test_loopback_opt_in() -> None:
    env = {"CUBE_CODEGEN_ALLOW_INSECURE_LOOPBACK": "1"}
    assert spec_url("http://127.0.0.1:8080", environ=env) == "http://127.0.0.1:8080/api/v1/spec"


def _response(headers: dict[str, str]) -> httpx2.Response:
    return httpx2.Response(503, headers=headers)


def test_retry_after_seconds_and_cap() -> None:
    assert retry_delay(_response({"Retry-After": "3"}), 1) == 3.0
    assert retry_delay(_response({"Retry-After": "0"}), 1) == 0.0
    assert retry_delay(_response({"Retry-After": "86400"}), 1) == MAX_RETRY_AFTER
    assert retry_delay(_response({"Retry-After": "86400"}), 1, cap=5) == 5


def test_retry_after_http_date() -> None:
    now = 1_700_000_000.0
    header = email.utils.formatdate(now + 7, usegmt=True)
    assert retry_delay(_response({"Retry-After": header}), 1, now=now) == pytest.approx(7.0)
    past = email.utils.formatdate(now - 100, usegmt=True)
    assert retry_delay(_response({"Retry-After": past}), 1, now=now) == 0.0


def test_backoff_without_retry_after_grows_and_is_capped() -> None:
    first = retry_delay(_response({}), 1)
    third = retry_delay(_response({}), 3)
    assert 0 < first <= 0.5
    assert first < third <= 2.0
    assert retry_delay(_response({"Retry-After": "soon"}), 30) == MAX_RETRY_AFTER


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ({"openapi": "3.0.3", "info": {}, "paths": {}}, ""),
        ({"openapi": "3.1.0", "info": {}, "webhooks": {}}, ""),
        ([], "not a mapping"),
        ({"swagger": "2.0", "info": {}, "paths": {}}, "openapi: 3.x"),
        ({"openapi": "3.1.0", "paths": {}}, "info"),
        ({"openapi": "3.1.0", "info": {}}, "no paths"),
    ],
)
def test_openapi_problem(doc: object, problem: str) -> None:
    found = openapi_problem(doc)
    assert (found == "") if not problem else (problem in found)


def test_snapshot_keeps_key_order_and_is_stable() -> None:
    doc = {
        "openapi": "3.1.0",
        "paths": {"/b": {}, "/a": {}},
        "info": {"title": "é", "version": "1"},
    }
    text = snapshot_text(doc)
    assert text.index("/b") < text.index("/a")
    assert text.index("paths") < text.index("info")
    assert "é" in text
    assert snapshot_text(dict(doc)) == text


def test_write_snapshot_is_atomic_and_skips_identical(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "spec.yaml"
    assert write_snapshot(path, "a: 1\n") is True
    assert path.read_text() == "a: 1\n"
    stat = path.stat()
    assert write_snapshot(path, "a: 1\n") is False
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert write_snapshot(path, "a: 2\n") is True
    assert path.read_text() == "a: 2\n"
    assert [p.name for p in path.parent.iterdir()] == ["spec.yaml"]


def test_fetch_live_needs_a_base_url() -> None:
    with pytest.raises(FetchError) as caught:
        fetch_live({})
    assert "CUBE_BASE_URL" in str(caught.value)


def test_redact() -> None:
    assert redact("Bearer abcdef123 failed", "abcdef123") == "Bearer <token> failed"
    assert redact("example.com", "x") == "example.com"  # too short to be worth scrubbing
    assert redact("nothing", None) == "nothing"


def test_write_snapshot_modes(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.yaml"
    write_snapshot(fresh, "a: 1\n")
    assert fresh.stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600
    kept = tmp_path / "kept.yaml"
    kept.write_text("a: 0\n")
    kept.chmod(0o640)
    write_snapshot(kept, "a: 1\n")
    assert kept.stat().st_mode & 0o777 == 0o640


def test_refused_connection_says_what_to_try() -> None:
    import socket

    from generator.document.fetch import fetch_spec

    with socket.socket() as sock:  # a port nothing listens on once this block ends
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(FetchError) as info:
        fetch_spec(f"https://127.0.0.1:{port}", "token-123456", max_attempts=1, environ={})
    message = info.value.first.message
    assert info.value.first.id == "fetch-connection"
    assert "cannot connect" in message and "--base-url" in message and "--ca-bundle" in message
