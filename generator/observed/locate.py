"""Where in a document an observation lands, and whether the document already accepts it.

An observation names an operation (method and path template), a status, a media type and a
pointer into the body. :func:`locate` follows them through the document: the operation, its
response, the media type's schema, then the pointer's tokens (``-`` an array item, ``*`` a map
value, any other token a property, looked for in ``allOf``/``oneOf``/``anyOf`` members too),
following local ``$ref``s. The :class:`Site` says which schema node owns the field and whether
the document states what was seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.diagnostics import resolve_pointer, split_pointer
from generator.document.schema_facts import facts
from generator.observed.records import Observation

Path = tuple[str | int, ...]
_MAX_REFS = 64
_MEMBERS = ("allOf", "oneOf", "anyOf")


@dataclass(frozen=True)
class Site:
    """Where an observation lands. ``owner`` is the object schema that has (or should have)
    the field, ``node`` the field's own schema (when it has one); both as document paths."""

    owner: Path | None
    node: Path | None
    name: str
    accepted: bool
    why: str = ""  # when the observation cannot be placed: what is missing


def deref(doc: Any, node: Any, path: Path) -> tuple[Any, Path]:
    """``node`` with its local ``$ref``s followed, and the path it was found at."""
    for _ in range(_MAX_REFS):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(ref, str) or not ref.startswith("#"):
            break
        try:
            node = resolve_pointer(doc, ref[1:])
        except (KeyError, IndexError, ValueError, TypeError):
            return None, path
        path = tuple(split_pointer(ref[1:]))
    return node, path


def _response_schema(doc: Any, obs: Observation) -> tuple[Any, Path] | str:
    op = doc.get("paths", {}).get(obs.path)
    op = op.get(obs.method.lower()) if isinstance(op, dict) else None
    if not isinstance(op, dict):
        return "the operation is not in the document"
    base: Path = ("paths", obs.path, obs.method.lower(), "responses")
    responses = op.get("responses") or {}
    for code in (str(obs.status), f"{obs.status // 100}XX", "default"):
        if code in responses:
            response, where = deref(doc, responses[code], (*base, code))
            break
    else:
        return f"no {obs.status} response in the document"
    content = response.get("content") if isinstance(response, dict) else None
    if not isinstance(content, dict):
        return "the response has no content in the document"
    media = (
        obs.media_type
        if obs.media_type in content
        else next((m for m in content if m == "application/json" or m.endswith("+json")), None)
    )
    if media is None or not isinstance(content[media], dict) or "schema" not in content[media]:
        return f"no schema for {obs.media_type} in the document"
    return content[media]["schema"], (*where, "content", media, "schema")


def _child(doc: Any, node: Any, path: Path, token: str, depth: int = 0) -> tuple[Any, Path] | None:
    """The schema one pointer token below ``node`` (unresolved), and its path."""
    node, path = deref(doc, node, path)
    if not isinstance(node, dict) or depth > 8:
        return None
    if token == "-" and "items" in node:
        return node["items"], (*path, "items")
    if token == "*" and isinstance(node.get("additionalProperties"), dict):
        return node["additionalProperties"], (*path, "additionalProperties")
    props = node.get("properties")
    if isinstance(props, dict) and token in props:
        return props[token], (*path, "properties", token)
    for key in _MEMBERS:
        for i, member in enumerate(node.get(key) or []):
            found = _child(doc, member, (*path, key, i), token, depth + 1)
            if found is not None:
                return found
    return None


def _object_owner(
    doc: Any, node: Any, path: Path, depth: int = 0
) -> tuple[dict[str, Any], Path] | None:
    """The object schema a new property goes into: the node, or its first object ``allOf``."""
    node, path = deref(doc, node, path)
    if not isinstance(node, dict) or depth > 8:
        return None
    if "properties" in node or node.get("type") == "object":
        return node, path
    for i, member in enumerate(node.get("allOf") or []):
        found = _object_owner(doc, member, (*path, "allOf", i), depth + 1)
        if found is not None:
            return found
    return None


def _requires(doc: Any, node: Any, path: Path, name: str, depth: int = 0) -> Path | None:
    """The path of the ``required`` list (of the node or an ``allOf`` member) naming ``name``."""
    node, path = deref(doc, node, path)
    if not isinstance(node, dict) or depth > 8:
        return None
    if name in (node.get("required") or []):
        return (*path, "required")
    for i, member in enumerate(node.get("allOf") or []):
        found = _requires(doc, member, (*path, "allOf", i), name, depth + 1)
        if found is not None:
            return found
    return None


def locate(doc: Any, obs: Observation) -> Site:
    """Where ``obs`` lands in ``doc`` and whether ``doc`` accepts what was seen."""
    start = _response_schema(doc, obs)
    if isinstance(start, str):
        return Site(None, None, "", False, start)
    node, path = start
    tokens = obs.tokens
    for token in tokens[:-1]:
        found = _child(doc, node, path, token)
        if found is None:
            return Site(None, None, "", False, f"{obs.pointer} is not in the document's schema")
        node, path = found
    name = tokens[-1] if tokens else ""
    if obs.kind == "property-unknown":
        if _child(doc, node, path, name) is not None:
            return Site(path, None, name, True)
        owner = _object_owner(doc, node, path)
        if owner is None:
            return Site(None, None, name, False, "the field's parent is not an object schema")
        return Site(owner[1], None, name, False)
    if obs.kind == "required-missing":
        required = _requires(doc, node, path, name)
        return Site(required[:-1] if required else path, None, name, required is None)
    if obs.kind == "union-variant-unknown":
        return _union(doc, node, path, name, obs)
    if tokens:
        found = _child(doc, node, path, name)
        if found is None:
            return Site(None, None, name, False, f"{obs.pointer} is not in the document's schema")
        node, path = found
    return _value(doc, node, path, name, obs)


def _value(doc: Any, node: Any, path: Path, name: str, obs: Observation) -> Site:
    """An enum value, a null or a JSON type, judged on the field's own schema."""
    resolved, where = deref(doc, node, path)
    if not isinstance(resolved, dict):
        return Site(None, None, name, False, f"{obs.pointer} has no schema in the document")
    variants = [(resolved, where)] + [
        deref(doc, m, (*where, key, i))
        for key in ("oneOf", "anyOf")
        for i, m in enumerate(resolved.get(key) or [])
    ]
    if obs.kind == "null-not-allowed":
        ok = any((isinstance(v, dict) and facts(v).nullable) or _only_null(v) for v, _ in variants)
        return Site(None, path, name, ok)
    if obs.kind == "enum-value-unknown":
        for variant, at in variants:
            if isinstance(variant, dict) and facts(variant).choices is not None:
                choices = facts(variant).choices or ()
                return Site(None, at, name, obs.seen.value in choices)
        return Site(None, path, name, True)  # no enum: any value of its type is documented
    seen = {"integer": {"integer", "number"}}.get(obs.seen.type, {obs.seen.type})
    ok = any(
        isinstance(v, dict) and (not facts(v).types or seen & set(facts(v).types))
        for v, _ in variants
    )
    return Site(None, path, name, ok)


def _only_null(node: Any) -> bool:
    return isinstance(node, dict) and facts(node).only_null


def _union(doc: Any, node: Any, path: Path, tag: str, obs: Observation) -> Site:
    resolved, where = deref(doc, node, path)
    if not isinstance(resolved, dict):
        return Site(None, None, tag, False, f"{obs.pointer} has no schema in the document")
    for key in ("oneOf", "anyOf"):
        members = resolved.get(key)
        if not isinstance(members, list):
            continue
        for i, member in enumerate(members):
            found = _child(doc, member, (*where, key, i), tag)
            if found is not None:
                value, _ = deref(doc, *found)
                if isinstance(value, dict) and obs.seen.value in (facts(value).choices or ()):
                    return Site((*where, key), None, tag, True)
        return Site((*where, key), None, tag, False)
    return Site(None, None, tag, False, f"{obs.pointer} is not a union in the document")
