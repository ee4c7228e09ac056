"""Operations in document order: which resource each belongs to, its method name, and the
parts the other builder modules make (parameters, body, responses, pagination)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from generator.diagnostics import Diagnostic, join_pointer, one_line, pointer
from generator.document.extensions import HOST_ROOT, JOB
from generator.document.openapi_paths import path_operations
from generator.ir.context import BuildContext, obj
from generator.ir.contracts import (
    method_arguments,
    method_body_names,
    resource_members,
    waiting_arguments,
)
from generator.ir.naming import (
    RESOURCE_ANNOTATION_NAMES,
    Namespace,
    PythonIdentifier,
    rename_reason,
)
from generator.ir.paging import pagination, typed_pagination
from generator.ir.parameters import (
    TypedBody,
    TypedParameters,
    parameters,
    request_body,
    typed_body,
    typed_parameters,
)
from generator.ir.request_ids import request_id, token_job
from generator.ir.responses import Ranked, ranked_responses, responses, success_of
from generator.ir.summaries import derived_summary
from generator.ir.types import ListOf, Operation, Pagination
from generator.words import pascal_case, snake_case

Found = tuple[str, str, dict[str, Any], dict[str, Any], str, str]


# An operation, its id, its method name and what naming it found to say (said when the
# operation is built, so a report lists each operation's findings together, in document order)
Named = tuple[Found, str, PythonIdentifier, tuple[Diagnostic, ...]]


def named_operations(ctx: BuildContext) -> list[Named]:
    """Every operation in document order with its id and method name (unique per resource); an
    operationId that is already a Python name keeps it, whatever comes first."""
    method_names: dict[str, Namespace] = {}
    op_ids: set[str] = set()
    found = list(_each_operation(ctx))
    for _, _, _, op, tag, _ in found:
        op_id = op.get("operationId")
        if isinstance(op_id, str) and PythonIdentifier(op_id, prefix="call") == op_id:
            _method_names(method_names, tag).keep_exact([op_id])
    named: list[Named] = []
    for f in found:
        start = len(ctx.diagnostics)
        op_id, py_name = _method_name(ctx, f, _method_names(method_names, f[4]), op_ids)
        said = tuple(ctx.diagnostics[start:])
        del ctx.diagnostics[start:]
        named.append((f, op_id, py_name, said))
    return named


def operation_hint(py_name: PythonIdentifier) -> str:
    """What class names hoisted from an operation's schemas start with."""
    return pascal_case(py_name) or "Operation"


@dataclasses.dataclass(frozen=True)
class TypedOperation:
    """One operation's parameters, body, responses and pages as chosen and typed: what the
    builder makes an :class:`~generator.ir.types.Operation` of (adding Python names and
    warnings)."""

    parameters: TypedParameters
    body: TypedBody | None
    responses: list[Ranked]
    pages: Pagination | tuple[str, str] | None


def typed_operation(ctx: BuildContext, found: Found, hint: str) -> TypedOperation:
    """Type everything of one operation in the builder's order: parameters, body, responses
    and pages (the naming pass's walk over operations)."""
    path, ptr, item, op, _, _ = found
    params = typed_parameters(ctx, path, item, op, ptr, hint)
    body = typed_body(ctx, op, ptr, hint)
    ranked = ranked_responses(ctx, op, ptr, hint)
    return TypedOperation(params, body, ranked, typed_pagination(ctx, op, ptr, success_of(ranked)))


def operations(
    ctx: BuildContext,
    named: list[Named],
    typed: list[TypedOperation],
    job_specs: dict[str, Any],
) -> Iterator[tuple[str, Operation]]:
    """(resource tag, operation) for every named and typed operation; ``job_specs`` collects
    the raw ``x-cube-job`` of each by pointer, to be linked once a resource's operations are
    known."""
    for (found, op_id, py_name, said), types in zip(named, typed, strict=True):
        ctx.diagnostics.extend(said)
        yield found[4], _operation(ctx, found, op_id, py_name, types)
        if JOB in found[3]:
            job_specs[found[1]] = found[3][JOB]


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


def _operation(
    ctx: BuildContext, found: Found, op_id: str, py_name: PythonIdentifier, typed: TypedOperation
) -> Operation:
    path, ptr, _, op, _, method = found
    rid = request_id(ctx, op, ptr)
    # the method's own arguments, read from the rendered stub, and a data call's extra ones
    args = Namespace(
        method_arguments() | (waiting_arguments() if rid else set()), dodge=method_body_names()
    )
    params = parameters(ctx, typed.parameters, ptr, args)
    body = request_body(typed.body, args)
    success, errors = responses(ctx, typed.responses)
    pages = pagination(ctx, typed.pages)
    listing = pages is not None or isinstance(success.type, ListOf)
    return Operation(
        operation_id=op_id,
        py_name=py_name,
        method=method,
        path=path,
        summary=one_line(op.get("summary", "")) or derived_summary(method, path, listing=listing),
        description=str(op.get("description", "") or ""),
        deprecated=op.get("deprecated") is True,
        parameters=params,
        body=body,
        success=success,
        errors=errors,
        pointer=ptr,
        pagination=pages,
        request_id=rid if success.kind == "json" else None,
        host_root=op.get(HOST_ROOT) is True,
        token_job=token_job(ctx, op, ptr, py_name, body),
    )


def _method_name(
    ctx: BuildContext, found: Found, names: Namespace, op_ids: set[str]
) -> tuple[str, PythonIdentifier]:
    """The operation's id (named from method and path when missing) and its method name; a
    missing, duplicate or renamed id is reported."""
    path, ptr, _, op, _, method = found
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
        reason = rename_reason(op_id, py_name, plain, names.owner(plain))
        if reason:
            ctx.warn(
                "operation-renamed",
                join_pointer(ptr, "operationId"),
                f"operationId {one_line(repr(op_id), 80)} is generated as method "
                f"{py_name}: {reason[1]}",
                reason[0],
            )
    return op_id, py_name
