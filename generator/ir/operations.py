"""Operations in document order: which resource each belongs to, its method name, and the
parts the other builder modules make (parameters, body, responses, pagination)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.diagnostics import join_pointer, one_line, pointer
from generator.document.extensions import JOB
from generator.document.openapi_paths import path_operations
from generator.ir.context import BuildContext, obj
from generator.ir.contracts import resource_members
from generator.ir.naming import (
    METHOD_BODY_NAMES,
    RESOURCE_ANNOTATION_NAMES,
    Namespace,
    PythonIdentifier,
    rename_reason,
)
from generator.ir.paging import pagination
from generator.ir.parameters import RESERVED_ARGS, parameters, request_body
from generator.ir.responses import responses
from generator.ir.types import Operation
from generator.words import pascal_case, snake_case

Found = tuple[str, str, dict[str, Any], dict[str, Any], str, str]


def operations(ctx: BuildContext, job_specs: dict[str, Any]) -> Iterator[tuple[str, Operation]]:
    """(resource tag, operation) for every operation; ``job_specs`` collects the raw
    ``x-cube-job`` of each by pointer, to be linked once a resource's operations are known."""
    method_names: dict[str, Namespace] = {}
    op_ids: set[str] = set()
    found = list(_each_operation(ctx))
    for _, _, _, op, tag, _ in found:  # an operationId that is a Python name keeps it
        op_id = op.get("operationId")
        if isinstance(op_id, str) and PythonIdentifier(op_id, prefix="call") == op_id:
            _method_names(method_names, tag).keep_exact([op_id])
    for path, op_ptr, item, op, tag, method in found:
        names = _method_names(method_names, tag)
        yield tag, _operation(ctx, (path, op_ptr, item, op, tag, method), names, op_ids)
        if JOB in op:
            job_specs[op_ptr] = op[JOB]


def _method_names(by_tag: dict[str, Namespace], tag: str) -> Namespace:
    reserved = resource_members() | RESOURCE_ANNOTATION_NAMES
    return by_tag.setdefault(snake_case(tag) or "resource", Namespace(reserved))


def _each_operation(ctx: BuildContext) -> Iterator[Found]:
    """(path, operation pointer, path item, operation, resource tag, wire method) in
    document order."""
    paths = ctx.doc.get("paths") or {}
    for path, raw_item in paths.items():
        item_ptr = pointer("paths", path)
        item, _ = ctx.resolver.resolve(raw_item, item_ptr)
        if not isinstance(item, dict):
            continue
        for method, keys, op in path_operations(item):
            if isinstance(op, dict):
                tag = resource_tag(ctx, op.get("tags"))
                yield path, join_pointer(item_ptr, *keys), item, op, tag, method


def resource_tag(ctx: BuildContext, tags: Any) -> str:
    """The tag naming an operation's resource: its first navigation tag (OpenAPI 3.2 tags of
    another ``kind``, such as badges, do not group) followed up its ``parent`` chain to the
    top, so nested tags share their root's resource; ``default`` without tags."""
    names = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
    known = {
        t["name"]: t
        for t in ctx.doc.get("tags", []) or []
        if isinstance(t, dict) and isinstance(t.get("name"), str)
    }
    nav = [n for n in names if obj(known.get(n)).get("kind", "nav") == "nav"]
    tag = (nav or names or ["default"])[0]
    seen = {tag}
    parent = obj(known.get(tag)).get("parent")
    while isinstance(parent, str) and parent in known and parent not in seen:
        seen.add(parent)
        tag, parent = parent, obj(known[parent]).get("parent")
    return tag


def _operation(ctx: BuildContext, found: Found, names: Namespace, op_ids: set[str]) -> Operation:
    path, ptr, item, op, _, method = found
    op_id, py_name = _method_name(ctx, op, method, path, ptr, names, op_ids)
    args = Namespace(RESERVED_ARGS, dodge=METHOD_BODY_NAMES)
    hint = pascal_case(py_name) or "Operation"
    params = parameters(ctx, path, item, op, ptr, args, hint)
    body = request_body(ctx, op, ptr, args, hint)
    success, errors = responses(ctx, op, ptr, hint)
    return Operation(
        operation_id=op_id,
        py_name=py_name,
        method=method,
        path=path,
        summary=one_line(op.get("summary", "")),
        description=str(op.get("description", "") or ""),
        deprecated=op.get("deprecated") is True,
        parameters=params,
        body=body,
        success=success,
        errors=errors,
        pointer=ptr,
        pagination=pagination(ctx, op, ptr, success),
    )


def _method_name(
    ctx: BuildContext,
    op: dict[str, Any],
    method: str,
    path: str,
    ptr: str,
    names: Namespace,
    op_ids: set[str],
) -> tuple[str, PythonIdentifier]:
    """The operation's id (named from method and path when missing) and its method name; a
    missing, duplicate or renamed id is reported."""
    op_id = op.get("operationId")
    if not isinstance(op_id, str) or not op_id.strip():
        op_id = f"{method.lower()} {path}"
        ctx.warn(
            "operation-id-missing",
            ptr,
            f"no operationId; named from {one_line(method, 40)} {one_line(path, 80)}",
            "info",
        )
    duplicate = op_id in op_ids
    op_ids.add(op_id)
    py_name = names.identifier(op_id, prefix="call")
    if duplicate:
        ctx.warn(
            "operation-id-duplicate",
            join_pointer(ptr, "operationId"),
            f"operationId {one_line(op_id, 80)} is used twice; this one is method {py_name}",
        )
    elif op.get("operationId") == op_id:
        plain = PythonIdentifier(op_id, prefix="call")
        found = rename_reason(op_id, py_name, plain, names.owner(plain))
        if found:
            ctx.warn(
                "operation-renamed",
                join_pointer(ptr, "operationId"),
                f"operationId {one_line(repr(op_id), 80)} is generated as method "
                f"{py_name}: {found[1]}",
                found[0],
            )
    return op_id, py_name
