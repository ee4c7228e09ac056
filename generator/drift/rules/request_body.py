"""The request body: whether there is one, whether it is required, its media types, and (through
the schema rules) the properties inside it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.diagnostics import join_pointer, one_line
from generator.document.openapi_paths import ITEM_SCHEMA_KEYS
from generator.document.refs import Resolver
from generator.drift.context import Direction, OperationPair
from generator.drift.model import Change, Rule
from generator.drift.registry import define, operation_check
from generator.drift.schema_view import Sub

BODY_ADDED = define(
    "request-body-added",
    "info",
    """An optional body: the method gains an optional argument, existing calls are unchanged.""",
)
BODY_ADDED_REQUIRED = define(
    "request-body-added-required",
    "breaking",
    """A required body where there was none: every existing call lacks the new argument and
    the server rejects requests without it.""",
)
BODY_REMOVED = define(
    "request-body-removed",
    "breaking",
    """The body argument disappears from the generated method; calls that pass it fail.""",
)
BODY_BECAME_REQUIRED = define(
    "request-body-became-required",
    "breaking",
    """Calls that sent no body now fail: the argument loses its default.""",
)
BODY_BECAME_OPTIONAL = define(
    "request-body-became-optional",
    "info",
    """The body argument gains a default; calls that pass one keep working.""",
)
MEDIA_TYPE_ADDED = define(
    "request-media-type-added",
    "info",
    """The server accepts one more content type; what the client sent before still works.""",
)
MEDIA_TYPE_REMOVED = define(
    "request-media-type-removed",
    "breaking",
    """The server no longer accepts a content type the client may be sending (415), and the
    generated method for that encoding goes away.""",
)


def media_key(name: str) -> str:
    """``application/json; charset=utf-8`` and ``Application/JSON`` are the same media type."""
    return name.split(";", 1)[0].strip().lower()


def content_of(node: dict[str, Any], ptr: str) -> dict[str, tuple[str, Any, str]]:
    """Media types by normalised name: (name as written, media type object, its pointer)."""
    content = node.get("content")
    found: dict[str, tuple[str, Any, str]] = {}
    if isinstance(content, dict):
        for name, media in content.items():
            found.setdefault(media_key(name), (name, media, join_pointer(ptr, "content", name)))
    return found


def schema_of(media: Any, ptr: str, key: str = "schema") -> Sub | None:
    if isinstance(media, dict) and key in media:
        return Sub(media[key], join_pointer(ptr, key))
    return None


def item_schema_of(media: Any, ptr: str) -> Sub | None:
    """The schema of one item of a stream; its changes are classified like the body's."""
    keys = [k for k in ITEM_SCHEMA_KEYS if isinstance(media, dict) and k in media]
    return schema_of(media, ptr, keys[0]) if keys else None


def _body(resolver: Resolver, op: dict[str, Any], op_ptr: str) -> tuple[dict[str, Any] | None, str]:
    if "requestBody" not in op:
        return None, ""
    body, ptr = resolver.resolve(op["requestBody"], join_pointer(op_ptr, "requestBody"))
    return (body, ptr) if isinstance(body, dict) else (None, "")


def compare_content(
    op: OperationPair,
    old: tuple[dict[str, Any], str],
    new: tuple[dict[str, Any], str],
    rules: tuple[Rule, Rule],
    label: str,
) -> Iterator[Change]:
    """Media types added and removed (``rules`` is (added, removed)), then the schemas of the
    media types on both sides, in the direction the label's owner travels."""
    old_media, new_media = content_of(*old), content_of(*new)
    added, removed = rules
    for key, (name, _, ptr) in new_media.items():
        if key not in old_media:
            yield op.change(added, ptr, f"{label} media type {one_line(name, 80)} added")
    for key, (name, _, ptr) in old_media.items():
        if key not in new_media:
            yield op.change(removed, ptr, f"{label} media type {one_line(name, 80)} removed")
    direction: Direction = "request" if label.startswith("request") else "response"
    for key, (name, media, ptr) in new_media.items():
        if key not in old_media:
            continue
        _, old_body, old_body_ptr = old_media[key]
        subject = f"{direction}-property"
        for of, suffix in ((schema_of, ""), (item_schema_of, " items")):
            old_schema, new_schema = of(old_body, old_body_ptr), of(media, ptr)
            if old_schema is not None and new_schema is not None:
                where = f"{label} ({one_line(name, 80)}){suffix}"
                op.compare_schemas(old_schema, new_schema, direction, subject, where)


@operation_check
def request_body(op: OperationPair) -> Iterator[Change]:
    old, old_ptr = _body(op.docs.old_resolver, op.old.node, op.old.pointer)
    new, new_ptr = _body(op.docs.new_resolver, op.new.node, op.new.pointer)
    if new is None:
        if old is not None:
            yield op.change(BODY_REMOVED, old_ptr, "request body removed")
        return
    if old is None:
        if new.get("required") is True:
            yield op.change(BODY_ADDED_REQUIRED, new_ptr, "required request body added")
        else:
            yield op.change(BODY_ADDED, new_ptr, "request body added")
        return
    was, now = old.get("required") is True, new.get("required") is True
    if now and not was:
        ptr = join_pointer(new_ptr, "required")
        yield op.change(BODY_BECAME_REQUIRED, ptr, "request body became required")
    elif was and not now:
        yield op.change(BODY_BECAME_OPTIONAL, new_ptr, "request body became optional")
    rules = (MEDIA_TYPE_ADDED, MEDIA_TYPE_REMOVED)
    yield from compare_content(op, (old, old_ptr), (new, new_ptr), rules, "request body")
