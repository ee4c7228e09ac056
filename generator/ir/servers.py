"""The family's server (URL template and its variables) and how its credential is sent."""

from __future__ import annotations

import re
from typing import Any

from generator.diagnostics import error, one_line, pointer
from generator.ir.context import PATH_PARAM, BuildContext, obj
from generator.ir.contracts import client_arguments
from generator.ir.naming import Namespace, PythonIdentifier
from generator.ir.types import Auth, ServerVariable

_UNSAFE_URL = re.compile(r"[\x00-\x1f\x7f]")  # a control character: no request line holds one


def server(ctx: BuildContext) -> tuple[str, tuple[ServerVariable, ...]]:
    """The first server's URL and its template variables as constructor arguments."""
    servers = ctx.doc.get("servers")
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return "", ()
    url = str(servers[0].get("url", ""))
    if _UNSAFE_URL.search(url):
        raise error(
            "server-url-invalid",
            ctx.file,
            "/servers/0/url",
            f"server URL {one_line(repr(url), 80)} holds a control character (a line break, "
            "a tab); no client could call it",
        )
    auth = ctx.config.auth
    # every name the constructor binds or reads (generator.ir.bound_names), and the credential
    names = Namespace(client_arguments() | {auth.param if auth else "api_key"})
    raw_vars = obj(servers[0].get("variables"))
    variables = []
    for var in PATH_PARAM.findall(url):
        spec = obj(raw_vars.get(var))
        variables.append(
            ServerVariable(
                name=var,
                py_name=names.identifier(var, prefix="var"),
                default=str(spec.get("default", "")),
                description=one_line(spec.get("description", "")),
            )
        )
    return url, tuple(variables)


def auth(ctx: BuildContext) -> Auth | None:
    """The configured credential, else the first security requirement's scheme we can send."""
    cfg = ctx.config.auth
    if cfg is not None:
        choices = ((cfg.scheme, cfg.prefix), *cfg.alternatives.items()) if cfg.alternatives else ()
        param = PythonIdentifier(cfg.param)
        return Auth(cfg.header, cfg.prefix, cfg.env, param, cfg.description, tuple(choices))
    schemes = (ctx.doc.get("components") or {}).get("securitySchemes") or {}
    for requirement in ctx.doc.get("security") or []:
        for name in requirement if isinstance(requirement, dict) else {}:
            scheme = schemes.get(name)
            if isinstance(scheme, dict) and "$ref" in scheme:
                scheme, _ = ctx.resolver.resolve(
                    scheme, pointer("components", "securitySchemes", name)
                )
            found = _auth_from_scheme(ctx, scheme if isinstance(scheme, dict) else {})
            if found is not None:
                return found
    return None


def _auth_from_scheme(ctx: BuildContext, scheme: dict[str, Any]) -> Auth | None:
    env = re.sub(r"[^A-Z0-9_]", "_", (ctx.config.name.upper() or "API") + "_API_KEY")
    param = PythonIdentifier("api_key")
    if scheme.get("type") == "http" and str(scheme.get("scheme", "")).lower() == "bearer":
        return Auth("Authorization", "Bearer ", env, param)
    if (
        scheme.get("type") == "apiKey"
        and scheme.get("in") == "header"
        and isinstance(scheme.get("name"), str)
    ):
        prefix = scheme.get("x-credential-prefix", "")
        return Auth(scheme["name"], str(prefix) if isinstance(prefix, str) else "", env, param)
    if scheme.get("type") in ("oauth2", "openIdConnect"):
        return Auth("Authorization", "Bearer ", env, param)
    return None
