"""Document-level servers, matched by scheme and host (variables replaced by their defaults)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from generator.diagnostics import one_line, pointer
from generator.drift.context import DocumentPair
from generator.drift.model import Change
from generator.drift.operations import expand_server_url, server_path
from generator.drift.registry import define, document_check

SERVER_ADDED = define(
    "server-added",
    "info",
    """Another documented base URL; the client's default does not change unless it was first.""",
)
SERVER_REMOVED = define(
    "server-removed",
    "breaking",
    """A host the client (or its callers' configuration) may point at is no longer served.""",
)
SERVER_BASE_PATH_CHANGED = define(
    "server-base-path-changed",
    "warning",
    """Same host, different base path in the server URL. Operations are compared by full URL, so
    when the path keys moved the other way nothing changed on the wire; but code that passes its
    own ``base_url`` to the client must add or drop the prefix, since the generated paths now
    include (or no longer include) it.""",
)


def _origin(server: dict[str, Any]) -> str:
    parts = urlsplit(expand_server_url(server))
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.netloc else ""


def _servers(doc: dict[str, Any]) -> list[tuple[str, str, str, int]]:
    servers = doc.get("servers")
    found: list[tuple[str, str, str, int]] = []
    if isinstance(servers, list):
        for index, server in enumerate(servers):
            if isinstance(server, dict) and isinstance(server.get("url"), str):
                found.append((_origin(server), server_path([server]), server["url"], index))
    return found


@document_check
def servers(docs: DocumentPair) -> Iterator[Change]:
    old, new = _servers(docs.old), _servers(docs.new)
    old_by_origin = {origin: (path, url, i) for origin, path, url, i in reversed(old)}
    new_by_origin = {origin: (path, url, i) for origin, path, url, i in reversed(new)}
    for origin, path, url, index in new:
        ptr = pointer("servers", index)
        before = old_by_origin.get(origin)
        if before is None:
            if not any(u == url for _, _, u, _ in old):
                yield docs.change(SERVER_ADDED, ptr, f"server {one_line(url, 120)} added")
        elif before[0] != path and new_by_origin[origin][2] == index:
            yield docs.change(
                SERVER_BASE_PATH_CHANGED,
                ptr,
                f"server {one_line(url, 120)}: base path changed"
                f" from {before[0] or '/'} to {path or '/'}",
            )
    for origin, _path, url, index in old:
        if origin not in new_by_origin and not any(u == url for _, _, u, _ in new):
            yield docs.change(
                SERVER_REMOVED, pointer("servers", index), f"server {one_line(url, 120)} removed"
            )
