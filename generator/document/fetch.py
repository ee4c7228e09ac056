"""Fetch the running platform's OpenAPI document (``GET {base_url}/api/v1/spec``) and keep it as a
stable YAML snapshot.

The token travels only in the ``Authorization`` header and is scrubbed from every message; only
HTTPS is used (plain HTTP only to 127.0.0.1 behind an explicit test opt-in); 429 and 5xx answers are
retried a bounded number of times, honouring ``Retry-After`` up to a cap; the snapshot is written
atomically, and only after the body parsed as an OpenAPI 3 document, so a failed fetch leaves the
previous snapshot byte for byte as it was.
"""

from __future__ import annotations

import email.utils
import hashlib
import ipaddress
import os
import random
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2

from generator.diagnostics import CodegenError, Diagnostic, one_line
from generator.document import trust
from generator.document.loader import MAX_BYTES, dump_yaml, parse_bytes
from generator.document.openapi_paths import operation_keys
from generator.document.structure import structure_only
from generator.files import write_atomic

__all__ = [
    "BASE_URL_ENV",
    "DEFAULT_OUT",
    "TOKEN_ENV",
    "FetchError",
    "FetchedSpec",
    "SnapshotResult",
    "fetch_live",
    "fetch_spec",
    "fetch_to_file",
    "openapi_problem",
    "redact",
    "retry_delay",
    "snapshot_text",
    "spec_url",
    "ssl_context",
    "write_snapshot",
]

SPEC_PATH = "/api/v1/spec"
DEFAULT_OUT = Path("spec/platform-api.yaml")
TOKEN_ENV = "CUBE_API_KEY"
BASE_URL_ENV = "CUBE_BASE_URL"
INSECURE_LOOPBACK_ENV = "CUBE_CODEGEN_ALLOW_INSECURE_LOOPBACK"
DEFAULT_TIMEOUT = 30.0
MAX_ATTEMPTS = 4
MAX_RETRY_AFTER = 30.0
BACKOFF_BASE = 0.5
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_USER_AGENT = "cube-codegen-fetch/1"
_LOOPBACK = frozenset({"127.0.0.1"})


class FetchError(CodegenError):
    """A fetch that failed: one diagnostic naming the URL (never the token)."""

    def __init__(self, url: str, message: str, id: str = "fetch-failed") -> None:
        super().__init__(Diagnostic(id, "error", url, "", message))


@dataclass(frozen=True, slots=True)
class FetchedSpec:
    url: str
    document: dict[str, Any]
    content_type: str
    attempts: int


@dataclass(frozen=True, slots=True)
class SnapshotResult:
    path: Path
    written: bool
    """False when the snapshot on disk already had exactly these bytes."""
    sha256: str
    operations: int
    attempts: int
    held: bool = False
    """True when ``before_write`` refused the document: nothing was written."""


MIN_REDACTED_TOKEN = 6
"""Shorter strings are not scrubbed from messages: they would mangle ordinary words (a token
``x`` is not a secret worth turning every x into ``<token>``)."""


def redact(text: str, token: str | None) -> str:
    """``text`` with every occurrence of the token replaced by ``<token>``."""
    if token and len(token) >= MIN_REDACTED_TOKEN:
        return text.replace(token, "<token>")
    return text


def spec_url(
    base_url: str, *, path: str = SPEC_PATH, environ: Mapping[str, str] | None = None
) -> str:
    """``{base_url}{path}`` (by default the service's ``/api/v1/spec``) after checking the scheme;
    ``path=""`` takes ``base_url`` as the document's own URL. Raises :class:`FetchError`."""
    env = os.environ if environ is None else environ
    text = base_url.strip()
    try:
        parts = urlsplit(text)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - validates the port
    except ValueError:
        raise FetchError(one_line(text, 120), "not a valid URL", "fetch-bad-url") from None
    if not host:
        raise FetchError(
            one_line(text, 120),
            "base URL needs a scheme and a host, e.g. https://tenant.cubecloud.dev",
            "fetch-bad-url",
        )
    if parts.username or parts.password:
        raise FetchError(
            f"{parts.scheme}://{host}",
            "base URL must not carry credentials; pass --token",
            "fetch-bad-url",
        )
    if parts.query or parts.fragment:
        raise FetchError(
            one_line(text, 120), "base URL must not have a query or fragment", "fetch-bad-url"
        )
    scheme = parts.scheme.lower()
    if scheme == "http":
        allowed = env.get(INSECURE_LOOPBACK_ENV) == "1" and _is_loopback(host)
        if not allowed:
            raise FetchError(
                one_line(text, 120),
                "refusing plain http: the token would travel unencrypted; use https",
                "fetch-insecure-url",
            )
    elif scheme != "https":
        raise FetchError(
            one_line(text, 120),
            f"unsupported URL scheme {one_line(scheme, 20)!r}; use https",
            "fetch-bad-url",
        )
    full_path = parts.path.rstrip("/") + path if path else parts.path
    return urlunsplit((scheme, parts.netloc, full_path, "", ""))


def _is_loopback(host: str) -> bool:
    try:
        return str(ipaddress.ip_address(host)) in _LOOPBACK
    except ValueError:
        return False


def ssl_context(
    ca_bundle: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> ssl.SSLContext:
    """Verify against ``ca_bundle``, else ``SSL_CERT_FILE``/``SSL_CERT_DIR``, else the system's
    store: the generated SDK's own choice (``document/trust.py``)."""
    try:
        return trust.ssl_context(ca_bundle, environ=environ)
    except CodegenError as exc:
        raise FetchError(exc.first.file, exc.first.message, exc.first.id) from None


def retry_delay(
    response: httpx2.Response,
    attempt: int,
    *,
    cap: float = MAX_RETRY_AFTER,
    now: float | None = None,
) -> float:
    """Seconds to wait before the next attempt: ``Retry-After`` (seconds or HTTP date) when the
    server gives one, else exponential backoff with jitter; never more than ``cap``."""
    header = response.headers.get("retry-after", "").strip()
    if header:
        if header.isascii() and header.isdigit():
            return min(float(header), cap)
        try:
            when = email.utils.parsedate_to_datetime(header).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            when = None
        if when is not None:
            return max(0.0, min(when - (time.time() if now is None else now), cap))
    backoff: float = BACKOFF_BASE * (2 ** (attempt - 1)) * (0.75 + random.random() / 4)
    return min(backoff, cap)


_STATUS_MESSAGES = {
    401: "401 Unauthorized: the token was rejected (check --token or CUBE_API_KEY)",
    403: "403 Forbidden: this token may not read the specification",
    404: "404 Not Found: no specification here (check --base-url)",
}


def fetch_spec(
    base_url: str,
    token: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    ca_bundle: str | os.PathLike[str] | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    max_retry_after: float = MAX_RETRY_AFTER,
    sleep: Callable[[float], None] = time.sleep,
    environ: Mapping[str, str] | None = None,
    path: str = SPEC_PATH,
    token_required: bool = True,
) -> FetchedSpec:
    """GET the specification and parse it; raises :class:`FetchError` with one clear line.

    A published document (``path=""``, ``token_required=False``) may be fetched without a token:
    then no ``Authorization`` header is sent at all."""
    url = spec_url(base_url, path=path, environ=environ)
    if not token and token_required:
        raise FetchError(url, f"no token: pass --token or set {TOKEN_ENV}", "fetch-no-token")
    if any(ch.isspace() or not ch.isprintable() or ord(ch) > 126 for ch in token):
        raise FetchError(
            url, "the token contains characters that cannot go in an HTTP header", "fetch-no-token"
        )
    headers = {
        "Accept": "application/json, application/yaml;q=0.9, */*;q=0.1",
        "User-Agent": _USER_AGENT,
    }
    if token:
        headers["Authorization"] = f"Bearer {token}"
    plan = _Plan(
        url=url,
        headers=headers,
        timeout=timeout,
        context=ssl_context(ca_bundle, environ=environ),
        proxy=trust.proxy_for(url, environ=environ),
        max_attempts=max(1, max_attempts),
        max_retry_after=max_retry_after,
        sleep=sleep,
    )
    try:
        return _fetch(plan)
    except FetchError as exc:
        raise FetchError(url, redact(exc.first.message, token), exc.first.id) from None
    except CodegenError as exc:  # body did not parse
        message = redact(f"response body: {exc.first.message}", token)
        raise FetchError(url, message, "fetch-bad-body") from None


@dataclass(frozen=True, slots=True)
class _Plan:
    url: str
    headers: dict[str, str]
    timeout: float
    context: ssl.SSLContext
    proxy: str | None  # HTTPS_PROXY / NO_PROXY, as the SDK reads them
    max_attempts: int
    max_retry_after: float
    sleep: Callable[[float], None]


def _fetch(plan: _Plan) -> FetchedSpec:
    url = plan.url
    with httpx2.Client(
        verify=plan.context,
        proxy=plan.proxy,
        timeout=httpx2.Timeout(plan.timeout),
        follow_redirects=False,
        trust_env=False,
    ) as client:
        attempt = 0
        while True:
            attempt += 1
            status, body, content_type, delay = _attempt(client, plan, attempt)
            if status == 200:
                break
            if status in RETRY_STATUSES and attempt < plan.max_attempts:
                if delay > plan.timeout:  # waiting would outlast what --timeout allows
                    raise FetchError(
                        url,
                        f"HTTP {status}: the server asks to retry after {delay:g} s, longer than "
                        f"the {plan.timeout:g} s timeout allows; try again later",
                        "fetch-http-status",
                    )
                plan.sleep(delay)
                continue
            if status in _STATUS_MESSAGES:
                raise FetchError(url, _STATUS_MESSAGES[status], "fetch-http-status")
            tries = f" after {attempt} attempts" if attempt > 1 else ""
            raise FetchError(url, f"HTTP {status}{tries}", "fetch-http-status")
    as_json = True if "json" in content_type else None
    document = parse_bytes(body, url, as_json=as_json)
    problem = openapi_problem(document)
    if problem:
        message = f"response is not an OpenAPI 3 document: {problem}"
        raise FetchError(url, message, "fetch-not-openapi")
    return FetchedSpec(url, document, content_type, attempt)


def _attempt(client: httpx2.Client, plan: _Plan, attempt: int) -> tuple[int, bytes, str, float]:
    """One request: (status, body for a 200, content type, delay before a retry)."""
    url, timeout = plan.url, plan.timeout
    deadline = time.monotonic() + timeout
    try:
        with client.stream("GET", url, headers=plan.headers) as response:
            status = response.status_code
            if 300 <= status < 400:
                where = one_line(response.headers.get("location", "?"), 120)
                message = f"HTTP {status} redirect to {where}; pass the final base URL"
                raise FetchError(url, message, "fetch-http-status")
            if status != 200:
                return status, b"", "", retry_delay(response, attempt, cap=plan.max_retry_after)
            body = _read_body(response, url, deadline)
            return status, body, response.headers.get("content-type", "").lower(), 0.0
    except httpx2.TimeoutException:
        raise FetchError(url, f"timed out after {timeout:g} s", "fetch-timeout") from None
    except httpx2.RemoteProtocolError:
        message = "the connection closed before the whole response arrived (truncated body)"
        raise FetchError(url, message, "fetch-bad-body") from None
    except httpx2.DecodingError:
        raise FetchError(url, "the response body could not be decoded", "fetch-bad-body") from None
    except httpx2.ConnectError as exc:
        raise FetchError(url, _connect_message(exc), "fetch-connection") from None
    except httpx2.HTTPError as exc:
        message = f"request failed: {type(exc).__name__}: {one_line(exc, 160)}"
        raise FetchError(url, message, "fetch-connection") from None


def _connect_message(exc: BaseException) -> str:
    """What failed while connecting, and what to try."""
    text = one_line(exc, 160)
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate" in text.lower():
        return (
            f"cannot connect: the server's TLS certificate is not trusted ({text}); "
            "pass --ca-bundle PEM or set SSL_CERT_FILE to the CA that signed it"
        )
    if isinstance(exc.__context__, ssl.SSLError) or "SSL" in text:
        return f"cannot connect: TLS handshake failed ({text}); check --base-url and --ca-bundle"
    return (
        f"cannot connect: {text}; check --base-url, the network and any proxy "
        "(TLS to a private CA: --ca-bundle or SSL_CERT_FILE)"
    )


def _read_body(response: httpx2.Response, url: str, deadline: float) -> bytes:
    """The whole body, bounded in size and in time (a server dripping bytes cannot stall us)."""
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_BYTES:
            message = f"response is larger than {MAX_BYTES // 1024 // 1024} MB"
            raise FetchError(url, message, "fetch-bad-body")
        if time.monotonic() > deadline:
            raise httpx2.ReadTimeout("deadline passed while reading the body")
        chunks.append(chunk)
    return b"".join(chunks)


def openapi_problem(document: Any) -> str:
    """Why ``document`` is not an OpenAPI 3 document, or ``""`` when it is one."""
    if not isinstance(document, dict):
        return "the top level is not a mapping"
    version = document.get("openapi")
    if not isinstance(version, str) or not version.startswith("3."):
        return "no 'openapi: 3.x' field"
    if not isinstance(document.get("info"), dict):
        return "no 'info' object"
    if not any(isinstance(document.get(k), dict) for k in ("paths", "webhooks", "components")):
        return "no paths, webhooks or components"
    return ""


def snapshot_text(document: Any) -> str:
    """The stable snapshot form: YAML in served key order, fixed dump settings."""
    return dump_yaml(document)


def write_snapshot(path: Path, text: str) -> bool:
    """Atomically replace ``path`` with ``text``; False (and no write) when already identical."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_atomic(path, data)
    return True


def count_operations(document: dict[str, Any]) -> int:
    return len(operation_keys(document))


def fetch_to_file(
    base_url: str,
    token: str,
    out: Path = DEFAULT_OUT,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    ca_bundle: str | os.PathLike[str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    environ: Mapping[str, str] | None = None,
    path: str = SPEC_PATH,
    token_required: bool = True,
    keep_prose: bool = True,
    before_write: Callable[[dict[str, Any]], bool | None] | None = None,
) -> tuple[SnapshotResult, dict[str, Any]]:
    """Fetch, normalise and write the snapshot; the old file is untouched on any failure.

    ``keep_prose=False`` keeps only the document's structure (see
    :mod:`generator.document.structure`); the returned document is the one written.
    ``before_write`` sees it before the old snapshot is replaced (to report what changed); when it
    returns False nothing is written (the result says ``held``)."""
    fetched = fetch_spec(
        base_url,
        token,
        timeout=timeout,
        ca_bundle=ca_bundle,
        sleep=sleep,
        environ=environ,
        path=path,
        token_required=token_required,
    )
    document = fetched.document if keep_prose else structure_only(fetched.document)
    text = snapshot_text(document)
    if before_write is not None and before_write(document) is False:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        ops = count_operations(document)
        return SnapshotResult(out, False, digest, ops, fetched.attempts, held=True), document
    try:
        written = write_snapshot(out, text)
    except OSError as exc:
        raise FetchError(
            str(out),
            f"cannot write the snapshot: {one_line(exc.strerror or exc, 120)}",
            "fetch-write",
        ) from None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    result = SnapshotResult(out, written, digest, count_operations(document), fetched.attempts)
    return result, document


def fetch_live(
    environ: Mapping[str, str] | None = None, *, timeout: float = DEFAULT_TIMEOUT
) -> dict[str, Any]:
    """The live document, configured from ``CUBE_BASE_URL`` and ``CUBE_API_KEY`` (and
    ``SSL_CERT_FILE`` for a private CA): what ``cube-codegen drift ... live`` compares."""
    env = os.environ if environ is None else environ
    base_url = env.get(BASE_URL_ENV, "")
    if not base_url:
        raise FetchError(
            "live",
            f"set {BASE_URL_ENV} (and {TOKEN_ENV}) to compare with the live document",
            "fetch-bad-url",
        )
    return fetch_spec(base_url, env.get(TOKEN_ENV, ""), timeout=timeout, environ=env).document
