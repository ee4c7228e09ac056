"""How ``fetch`` reaches a server: the certificates it trusts and the proxy it goes through, both
chosen exactly as the generated SDK's default client chooses them, so one setting fixes both.

Certificates: ``--ca-bundle``, else ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``, else the operating
system's store (``truststore`` on Windows and macOS, OpenSSL's paths on Linux), built by the same
``httpx2.create_ssl_context`` the SDK's client uses. Proxy: ``HTTPS_PROXY`` (or ``ALL_PROXY``)
unless ``NO_PROXY`` names the host. Nothing else is read from the environment (no ``.netrc``).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping

import httpx2

from generator.diagnostics import CodegenError, Diagnostic, one_line


def ssl_context(
    ca_bundle: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> ssl.SSLContext:
    """The context that verifies the server: a bundle when one is named, else the system's."""
    env = os.environ if environ is None else environ
    cafile = str(ca_bundle) if ca_bundle else env.get("SSL_CERT_FILE") or None
    capath = None if cafile else env.get("SSL_CERT_DIR") or None
    try:
        if cafile or capath:
            return ssl.create_default_context(cafile=cafile, capath=capath)
        return httpx2.create_ssl_context(verify=True, trust_env=False)
    except (OSError, ssl.SSLError) as exc:
        where = cafile or capath or "the system's certificate store"
        raise CodegenError(
            Diagnostic(
                "fetch-ca-bundle", "error", str(where), "", f"cannot load: {one_line(exc, 120)}"
            )
        ) from None


def proxy_for(url: str, *, environ: Mapping[str, str] | None = None) -> str | None:
    """The proxy for ``url`` from ``HTTPS_PROXY``/``HTTP_PROXY`` (by the URL's scheme) or
    ``ALL_PROXY``, upper or lower case; None when unset or when ``NO_PROXY`` names the host
    (``*``, the host itself, or a domain it is under)."""
    env = os.environ if environ is None else environ

    def get(name: str) -> str:
        return (env.get(name.upper()) or env.get(name.lower()) or "").strip()

    parts = httpx2.URL(url)
    proxy = get(f"{parts.scheme}_proxy") or get("all_proxy")
    if not proxy:
        return None
    host = parts.host.lower().rstrip(".")
    for entry in get("no_proxy").split(","):
        name = entry.strip().lower().lstrip(".").rstrip(".")
        name = name.split("://", 1)[-1].split(":", 1)[0] if name != "*" else name
        if name and (name in ("*", host) or host.endswith("." + name)):
            return None
    return proxy if "://" in proxy else f"http://{proxy}"
