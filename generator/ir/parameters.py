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
from generator.ir.naming import Namespace
from generator.ir.schemas import default_problem
from generator.ir.types import (
    NONE,
    BodyField,
    BodyKind,
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

_LOCATIONS = ("query", "querystring", "header", "cookie")

Declared = dict[tuple[str, str], tuple[dict[str, Any], str]]


def parameters(
    ctx: BuildContext, typed: TypedParameters, ptr: str, args: Namespace
) -> tuple[Parameter, ...]:
    """Path parameters in template order, then the others; operation-level ones override the
    path item's of the same name and location."""
    in_path, others = typed
    out = [_path_parameter(ctx, name, found, ptr, args) for name, found in in_path]
    for (loc, name), (p, p_ptr, type_) in others.items():
        if _usable(ctx, loc, name, p, p_ptr) and type_ is not None:
            out.append(_parameter(ctx, p, p_ptr, args, type_, required=p.get("required") is True))
    return tuple(out)


Typed = tuple[dict[str, Any], str, TypeRef]  # a parameter, its pointer and its type
Other = tuple[dict[str, Any], str, TypeRef | None]  # None: not an argument (see _unusable)
TypedParameters = tuple[list[tuple[str, Typed | None]], dict[tuple[str, str], Other]]


def typed_parameters(
    ctx: BuildContext, path: str, item: dict[str, Any], op: dict[str, Any], ptr: str, hint: str
) -> TypedParameters:
    """The parameters :func:`parameters` makes, with their types: each name of the path
    template with its declaration (``None``: undeclared), then the rest by (location, name);
    a parameter that cannot be an argument is not typed."""
    merged = _declared(ctx, item, op, ptr)
    in_path: list[tuple[str, Typed | None]] = []
    for name in PATH_PARAM.findall(path):
        found = merged.pop(("path", name), None)
        typed = (found[0], found[1], _type(ctx, found[0], hint)) if found else None
        in_path.append((name, typed))
    others = {
        (loc, name): (p, p_ptr, None if _unusable(loc, name, p) else _type(ctx, p, hint))
        for (loc, name), (p, p_ptr) in merged.items()
    }
    return in_path, others


def _type(ctx: BuildContext, p: dict[str, Any], hint: str) -> TypeRef:
    return ctx.types.type_of(_schema(p), hint + pascal_case(p["name"]))


def _schema(p: dict[str, Any]) -> Any:
    """A parameter's schema: its own, or its one media type's."""
    schema = p.get("schema")
    if schema is None and isinstance(p.get("content"), dict) and p["content"]:
        schema = obj(next(iter(p["content"].values()), {})).get("schema")
    return schema


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
    ctx: BuildContext, name: str, found: Typed | None, ptr: str, args: Namespace
) -> Parameter:
    if found is None:
        ctx.warn(
            "path-parameter-undeclared",
            ptr,
            f"path parameter {one_line(name, 60)} is not declared; typed as str",
        )
        undeclared = {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        return _parameter(ctx, undeclared, ptr, args, Primitive("str"), required=True)
    p, p_ptr, type_ = found
    if p.get("required") is not True:
        ctx.warn("path-parameter-optional", p_ptr, "path parameters are always required")
    param = _parameter(ctx, p, p_ptr, args, type_, required=True)
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
    problem = _unusable(loc, name, p)
    if problem:
        ctx.warn(problem[0], p_ptr, problem[1])
    return problem is None


def _unusable(loc: str, name: str, p: dict[str, Any]) -> tuple[str, str] | None:
    """Why a non-template parameter cannot be an argument (diagnostic id and message), if so."""
    if loc == "path":
        return (
            "path-parameter-unused",
            f"path parameter {one_line(name, 60)} is not in the path; ignored",
        )
    if loc == "querystring" and not _form_query(p):
        media = one_line(next(iter(obj(p.get("content"))), "no media type"), 60)
        return (
            "querystring-media-unsupported",
            f"a query string written as {media} is not supported (only "
            "application/x-www-form-urlencoded); ignored",
        )
    if loc not in _LOCATIONS:
        return (
            "parameter-location-unknown",
            f"parameter location {one_line(loc, 30)} is not supported; ignored",
        )
    return None


def _parameter(
    ctx: BuildContext,
    p: dict[str, Any],
    p_ptr: str,
    args: Namespace,
    type_: TypeRef,
    *,
    required: bool,
) -> Parameter:
    schema = _schema(p)
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


@dataclasses.dataclass(frozen=True)
class TypedBody:
    """A request body as chosen and typed: its media type, kind and type, and the properties
    (wire name, schema, type) of a body flattened into keyword arguments."""

    media: str
    kind: BodyKind
    required: bool
    type: TypeRef
    rule: Rule | None = None
    fields: tuple[tuple[str, Any, TypeRef], ...] | None = None
    required_fields: frozenset[str] = frozenset()


def request_body(typed: TypedBody | None, args: Namespace) -> RequestBody | None:
    if typed is None:
        return None
    fields = (
        None
        if typed.fields is None
        else tuple(
            BodyField(
                name=name,
                py_name=args.identifier(name, prefix="field"),
                required=name in typed.required_fields,
                type=type_,
                description=one_line(sub.get("description", "")) if isinstance(sub, dict) else "",
                default=default_text(sub),
            )
            for name, sub, type_ in typed.fields
        )
    )
    rule = typed.rule if fields is not None else None
    model = typed.type.name if isinstance(typed.type, ModelRef) else None
    return RequestBody(
        typed.media, typed.kind, typed.type, typed.required, fields, model, rule is not None, rule
    )


def typed_body(ctx: BuildContext, op: dict[str, Any], ptr: str, hint: str) -> TypedBody | None:
    """The body :func:`request_body` makes, with its types (``None``: the operation has none)."""
    if "requestBody" not in op:
        return None
    body, _ = ctx.resolver.resolve(op["requestBody"], join_pointer(ptr, "requestBody"))
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        return None
    media, kind = pick_media(list(content), BODY_KINDS)
    required = body.get("required") is True
    if kind in ("binary", "text"):
        return TypedBody(media, kind, required, Primitive("bytes" if kind == "binary" else "str"))
    type_ = ctx.types.type_of((content.get(media) or {}).get("schema"), hint + "Request")
    if not isinstance(type_, ModelRef):
        return TypedBody(media, kind, required, type_)
    model = ctx.catalog.models.get(type_.name)
    rule = body_rule(model)
    props = _flat_properties(model, rule is not None)
    if props is None:
        return TypedBody(media, kind, required, type_, rule)
    fields = tuple(
        (name, sub, ctx.types.type_of(sub, type_.name + pascal_case(name)))
        for name, sub in props.items()
    )
    req = obj(model).get("required")
    names = (
        frozenset(r for r in req if isinstance(r, str)) if isinstance(req, list) else frozenset()
    )
    return TypedBody(media, kind, required, type_, rule, fields, names)


def _flat_properties(model: Any, constrained: bool) -> dict[str, Any] | None:
    """The properties of a plain object body, flattened into keyword arguments; unions and
    mixins stay whole (``None``).

    ``constrained`` bodies carry ``oneOf``/``anyOf`` rules that only pick required properties:
    they flatten too, and the generated method validates the payload against the model.
    """
    unions = (
        ("allOf", "discriminator") if constrained else ("allOf", "oneOf", "anyOf", "discriminator")
    )
    if not isinstance(model, dict) or any(k in model for k in unions):
        return None
    props = model.get("properties")
    return props if isinstance(props, dict) and props else None


def default_text(schema: Any) -> str | None:
    """The schema's ``default`` as compact JSON text (documentation only), or None."""
    if not isinstance(schema, dict) or "default" not in schema:
        return None
    return one_line(json.dumps(schema["default"], ensure_ascii=False), 80)
