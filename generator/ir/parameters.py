"""An operation's inputs: path, query, header and cookie parameters, and its request body
(flattened into keyword arguments when it is a plain object)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from generator.diagnostics import join_pointer, one_line
from generator.document.openapi_paths import ADDITIONAL
from generator.ir.body_rules import body_rule
from generator.ir.context import PATH_PARAM, BuildContext, obj
from generator.ir.media import BODY_KINDS, FORM_MEDIA, pick_media
from generator.ir.naming import ClassName, Namespace
from generator.ir.schemas import default_problem
from generator.ir.types import (
    NONE,
    BodyField,
    LiteralOf,
    ModelRef,
    Parameter,
    Primitive,
    RequestBody,
    Rule,
    TypeRef,
    UnionOf,
)
from generator.words import pascal_case

# Keyword arguments every method takes; operation parameters must not take these names.
RESERVED_ARGS = frozenset(
    {"self", "extra_headers", "extra_query", "extra_body", "timeout", "max_retries", "body"}
)
_LOCATIONS = ("query", "querystring", "header", "cookie")

Declared = dict[tuple[str, str], tuple[dict[str, Any], str]]


def parameters(
    ctx: BuildContext,
    path: str,
    item: dict[str, Any],
    op: dict[str, Any],
    ptr: str,
    args: Namespace,
    hint: str,
) -> tuple[Parameter, ...]:
    """Path parameters in template order, then the others; operation-level ones override the
    path item's of the same name and location."""
    merged = _declared(ctx, item, op, ptr)
    out = [_path_parameter(ctx, name, merged, ptr, args, hint) for name in PATH_PARAM.findall(path)]
    for (loc, name), (p, p_ptr) in merged.items():
        if _usable(ctx, loc, name, p, p_ptr):
            out.append(_parameter(ctx, p, p_ptr, args, hint, required=p.get("required") is True))
    return tuple(out)


def _declared(ctx: BuildContext, item: dict[str, Any], op: dict[str, Any], ptr: str) -> Declared:
    merged: Declared = {}
    item_ptr = ptr.rsplit("/", 1)[0].removesuffix("/" + ADDITIONAL)
    for owner, owner_ptr in ((item, item_ptr), (op, ptr)):
        for i, raw in enumerate(owner.get("parameters", []) or []):
            p, p_ptr = ctx.resolver.resolve(raw, join_pointer(owner_ptr, "parameters", i))
            if (
                isinstance(p, dict)
                and isinstance(p.get("name"), str)
                and isinstance(p.get("in"), str)
            ):
                merged[(p["in"], p["name"])] = (p, p_ptr)
    return merged


def _path_parameter(
    ctx: BuildContext, name: str, merged: Declared, ptr: str, args: Namespace, hint: str
) -> Parameter:
    found = merged.pop(("path", name), None)
    if found is None:
        ctx.warn(
            "path-parameter-undeclared",
            ptr,
            f"path parameter {one_line(name, 60)} is not declared; typed as str",
        )
        undeclared = {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        return _parameter(ctx, undeclared, ptr, args, hint, required=True)
    p, p_ptr = found
    if p.get("required") is not True:
        ctx.warn("path-parameter-optional", p_ptr, "path parameters are always required")
    param = _parameter(ctx, p, p_ptr, args, hint, required=True)
    if param.type == NONE:  # no value fills a path segment (the runtime refuses None)
        ctx.warn(
            "path-parameter-null",
            join_pointer(p_ptr, "schema"),
            f"path parameter {one_line(name, 60)} only allows null; typed as str",
        )
        return dataclasses.replace(param, type=Primitive("str"))
    if not _one_value(param.type):  # a model or list would be sent as its repr
        ctx.warn(
            "path-parameter-structured",
            join_pointer(p_ptr, "schema"),
            f"path parameter {one_line(name, 60)} is an object, array or binary, which "
            "a path segment does not carry; typed as str",
        )
        return dataclasses.replace(param, type=Primitive("str"))
    return param


def _one_value(t: TypeRef) -> bool:
    """Whether ``t`` is one scalar (or an enum, or either of them or None): what the runtime
    writes into a path segment as text."""
    if isinstance(t, UnionOf):
        rest = [m for m in t.members if m != NONE]
        return len(rest) == 1 and _one_value(rest[0])
    if isinstance(t, Primitive):
        return t.name not in ("bytes", "None")
    return isinstance(t, LiteralOf)


def _usable(ctx: BuildContext, loc: str, name: str, p: dict[str, Any], p_ptr: str) -> bool:
    """Whether a non-template parameter becomes an argument; why not is a warning."""
    if loc == "path":
        ctx.warn(
            "path-parameter-unused",
            p_ptr,
            f"path parameter {one_line(name, 60)} is not in the path; ignored",
        )
        return False
    if loc == "querystring" and not _form_query(p):
        media = one_line(next(iter(obj(p.get("content"))), "no media type"), 60)
        ctx.warn(
            "querystring-media-unsupported",
            p_ptr,
            f"a query string written as {media} is not supported (only "
            "application/x-www-form-urlencoded); ignored",
        )
        return False
    if loc not in _LOCATIONS:
        ctx.warn(
            "parameter-location-unknown",
            p_ptr,
            f"parameter location {one_line(loc, 30)} is not supported; ignored",
        )
        return False
    return True


def _parameter(
    ctx: BuildContext, p: dict[str, Any], p_ptr: str, args: Namespace, hint: str, *, required: bool
) -> Parameter:
    schema = p.get("schema")
    if schema is None and isinstance(p.get("content"), dict) and p["content"]:
        schema = obj(next(iter(p["content"].values()), {})).get("schema")
    type_ = ctx.catalog.type_of(schema, hint + pascal_case(p["name"]))
    problem = default_problem(schema)
    if problem:
        ctx.warn("default-invalid", join_pointer(p_ptr, "schema", "default"), problem)
    return Parameter(
        name=p["name"],
        py_name=args.identifier(p["name"], prefix="param"),
        location=p["in"],
        required=required,
        type=type_,
        description=one_line(p.get("description", "")),
        explode=p.get("explode", p.get("style", "form") == "form") is not False,
        default=default_text(schema),
    )


def _form_query(p: dict[str, Any]) -> bool:
    """Whether an ``in: querystring`` parameter's one media type is a form encoding."""
    media = list(obj(p.get("content")))
    return len(media) == 1 and media[0].split(";")[0].strip().lower() == FORM_MEDIA


def request_body(
    ctx: BuildContext, op: dict[str, Any], ptr: str, args: Namespace, hint: str
) -> RequestBody | None:
    if "requestBody" not in op:
        return None
    body, _ = ctx.resolver.resolve(op["requestBody"], join_pointer(ptr, "requestBody"))
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        return None
    media, kind = pick_media(list(content), BODY_KINDS)
    schema = (content.get(media) or {}).get("schema")
    required = body.get("required") is True
    if kind in ("binary", "text"):
        t: TypeRef = Primitive("bytes") if kind == "binary" else Primitive("str")
        return RequestBody(media, kind, t, required, None)
    type_ = ctx.catalog.type_of(schema, hint + "Request")
    fields = None
    rule: Rule | None = None
    if isinstance(type_, ModelRef):
        model = ctx.catalog.models.get(type_.name)
        rule = body_rule(model)
        fields = _body_fields(ctx, model, args, type_.name, rule is not None)
    return RequestBody(
        media,
        kind,
        type_,
        required,
        fields,
        type_.name if isinstance(type_, ModelRef) else None,
        validate=rule is not None and fields is not None,
        rule=rule if fields is not None else None,
    )


def _body_fields(
    ctx: BuildContext, model: Any, args: Namespace, owner: ClassName, constrained: bool = False
) -> tuple[BodyField, ...] | None:
    """Flatten a plain object body into keyword arguments; unions and mixins stay whole.

    ``constrained`` bodies carry ``oneOf``/``anyOf`` rules that only pick required properties:
    they flatten too, and the generated method validates the payload against the model.
    """
    unions = (
        ("allOf", "discriminator") if constrained else ("allOf", "oneOf", "anyOf", "discriminator")
    )
    if not isinstance(model, dict) or any(k in model for k in unions):
        return None
    props = model.get("properties")
    if not isinstance(props, dict) or not props:
        return None
    req = model.get("required")
    required: list[Any] = req if isinstance(req, list) else []
    return tuple(
        BodyField(
            name=name,
            py_name=args.identifier(name, prefix="field"),
            required=name in required,
            type=ctx.catalog.type_of(sub, owner + pascal_case(name)),
            description=one_line(sub.get("description", "")) if isinstance(sub, dict) else "",
            default=default_text(sub),
        )
        for name, sub in props.items()
    )


def default_text(schema: Any) -> str | None:
    """The schema's ``default`` as compact JSON text (documentation only), or None."""
    if not isinstance(schema, dict) or "default" not in schema:
        return None
    return one_line(json.dumps(schema["default"], ensure_ascii=False), 80)
