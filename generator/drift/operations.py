"""Operations as the drift check sees them: identified by method and full URL path.

The full path is the path part of the operation's first server URL (server variables replaced by
their defaults) followed by the path key, so moving ``/api`` from the server URL into the path keys
changes nothing. Path parameters are matched by position, so ``/a/{id}`` is ``/a/{deploymentId}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from generator.diagnostics import CodegenError, Diagnostic, join_pointer, one_line, pointer
from generator.document.openapi_paths import path_operations
from generator.document.refs import Resolver
from generator.drift.schema_view import Sub

IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
"""Header parameters OpenAPI says to ignore: the media types and security schemes say these."""
_TEMPLATE = re.compile(r"\{([^{}/]*)\}")
_VARIABLE = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True, slots=True)
class ParamView:
    key: tuple[str, str]
    """``("path", "0")`` for the first path parameter, else ``(location, name)``; header names
    are lowercased."""
    name: str
    location: str
    required: bool
    deprecated: bool
    schema: Sub | None
    pointer: str


@dataclass(slots=True)
class OperationView:
    method: str
    path_key: str
    full_path: str
    identity: str
    label: str
    pointer: str
    node: dict[str, Any]
    path_params: tuple[str, ...]
    parameters: dict[tuple[str, str], ParamView] = field(default_factory=dict)


def expand_server_url(server: dict[str, Any], unknown: str | None = None) -> str:
    """The server's URL with each ``{variable}`` replaced by its default.

    A variable without a default becomes ``unknown``, or stays as written when that is None.
    """
    url = server.get("url")
    if not isinstance(url, str):
        return ""
    raw = server.get("variables")
    variables: dict[str, Any] = raw if isinstance(raw, dict) else {}

    def substitute(match: re.Match[str]) -> str:
        spec = variables.get(match.group(1))
        default = spec.get("default") if isinstance(spec, dict) else None
        if isinstance(default, (str, int, float)):
            return str(default)
        return match.group(0) if unknown is None else unknown

    return _VARIABLE.sub(substitute, url)


def server_path(servers: Any) -> str:
    """The path component of the first server URL, variables replaced by their defaults."""
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return ""
    url = expand_server_url(servers[0], unknown="x")
    parts = urlsplit(url)
    path = parts.path if (parts.scheme or url.startswith("//")) else url.split("?", 1)[0]
    path = path.strip()
    if path in ("", ".", "/"):
        return ""
    return "/" + path.strip("/")


def normalise_path(path: str) -> str:
    """Path parameters become ``{}`` (matched by position), doubled and trailing slashes go."""
    path = re.sub(r"/{2,}", "/", _TEMPLATE.sub("{}", path))
    return path.rstrip("/") or "/"


def join_path(prefix: str, key: str) -> str:
    return prefix + "/" + key.lstrip("/") if prefix else key


def _effective_servers(document: dict[str, Any], item: dict[str, Any], op: dict[str, Any]) -> Any:
    for holder in (op, item, document):
        servers = holder.get("servers")
        if isinstance(servers, list) and servers:
            return servers
    return None


def _fail(file: str, ptr: str, message: str) -> CodegenError:
    return CodegenError(Diagnostic("drift-invalid-document", "error", file, ptr, message))


def _param_schema(param: dict[str, Any], ptr: str) -> Sub | None:
    if "schema" in param:
        return Sub(param["schema"], join_pointer(ptr, "schema"))
    content = param.get("content")
    if isinstance(content, dict):
        for media, body in content.items():
            if isinstance(body, dict) and "schema" in body:
                return Sub(body["schema"], join_pointer(ptr, "content", media, "schema"))
    return None


def _parameters(
    resolver: Resolver, raw_lists: list[tuple[Any, str]], path_params: tuple[str, ...]
) -> dict[tuple[str, str], ParamView]:
    """Path-item parameters, then operation parameters overriding them by location and name."""
    found: dict[tuple[str, str], ParamView] = {}
    for raw_list, list_ptr in raw_lists:
        if not isinstance(raw_list, list):
            continue
        for index, raw in enumerate(raw_list):
            param, ptr = resolver.resolve(raw, join_pointer(list_ptr, index))
            if not isinstance(param, dict):
                continue
            name, location = param.get("name"), param.get("in")
            if not isinstance(name, str) or not isinstance(location, str):
                continue
            if location == "header" and name.lower() in IGNORED_HEADERS:
                continue
            if location == "path" and name in path_params:
                key = ("path", str(path_params.index(name)))
            elif location == "header":
                key = (location, name.lower())
            else:
                key = (location, name)
            found[key] = ParamView(
                key=key,
                name=name,
                location=location,
                required=param.get("required") is True or location == "path",
                deprecated=param.get("deprecated") is True,
                schema=_param_schema(param, ptr),
                pointer=ptr,
            )
    return found


def index_operations(
    document: dict[str, Any], file: str, resolver: Resolver
) -> dict[str, OperationView]:
    """Every operation of a document by identity (``METHOD /normalised/full/path``).

    When two path keys collapse to one identity (``/a/{x}`` and ``/a/{y}``, which OpenAPI forbids)
    the first one in document order is kept, so the result never depends on hashing.
    """
    paths = document.get("paths", {})
    if paths is None:
        paths = {}
    if not isinstance(paths, dict):
        raise _fail(file, "/paths", "paths is not a mapping")
    found: dict[str, OperationView] = {}
    for key, raw_item in paths.items():
        if key.startswith("x-"):
            continue  # a specification extension, not a path
        item_ptr = pointer("paths", key)
        if not key.startswith("/"):
            raise _fail(file, item_ptr, f"path key {one_line(key, 80)} does not start with /")
        item, _ = resolver.resolve(raw_item, item_ptr)
        if item is None:
            continue
        if not isinstance(item, dict):
            raise _fail(file, item_ptr, "path item is not a mapping")
        for method, keys, op in path_operations(item):
            if op is None:
                continue
            op_ptr = join_pointer(item_ptr, *keys)
            if not isinstance(op, dict):
                raise _fail(file, op_ptr, "operation is not a mapping")
            full = join_path(server_path(_effective_servers(document, item, op)), key)
            identity = f"{method} {normalise_path(full)}"
            if identity in found:
                continue
            names = tuple(_TEMPLATE.findall(full))
            view = OperationView(
                method=method,
                path_key=key,
                full_path=full,
                identity=identity,
                label=f"{method} {full}",
                pointer=op_ptr,
                node=op,
                path_params=names,
            )
            view.parameters = _parameters(
                resolver,
                [
                    (item.get("parameters"), join_pointer(item_ptr, "parameters")),
                    (op.get("parameters"), join_pointer(op_ptr, "parameters")),
                ],
                names,
            )
            found[identity] = view
    return found
