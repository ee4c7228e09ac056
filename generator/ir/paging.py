"""``x-cube-pagination``: how a list operation's pages are followed and what their items are."""

from __future__ import annotations

import dataclasses
from typing import Any

from generator.diagnostics import join_pointer
from generator.document.extensions import PAGINATION, PageSpec, PaginationSpec, parse
from generator.ir.context import BuildContext, strip_none
from generator.ir.schemas import property_of
from generator.ir.types import ANY, ListOf, ModelRef, Pagination, Response, TypeRef


def pagination(ctx: BuildContext, found: Pagination | tuple[str, str] | None) -> Pagination | None:
    """The operation's pagination as typed (:func:`typed_pagination`); an invalid one is left
    out with a warning."""
    if isinstance(found, tuple):
        ctx.warn("pagination-invalid", found[0], f"{found[1]}; not paginated")
        return None
    return found


def typed_pagination(
    ctx: BuildContext, op: dict[str, Any], ptr: str, success: Response
) -> Pagination | tuple[str, str] | None:
    """How an operation's pages are followed, typed; (pointer, problem) when its
    ``x-cube-pagination`` is not valid, ``None`` without one."""
    if PAGINATION not in op:
        return None
    spec = parse(PaginationSpec, op[PAGINATION], join_pointer(ptr, PAGINATION))
    if isinstance(spec, tuple):
        return spec
    primary = _page(ctx, spec, success, None)
    alternatives = tuple(_page(ctx, alt, success, primary) for alt in spec.alternatives)
    return dataclasses.replace(primary, alternatives=alternatives)


def _page(
    ctx: BuildContext, spec: PageSpec, success: Response, primary: Pagination | None
) -> Pagination:
    if spec.item_schema is not None:
        item_type = ctx.types.type_of(spec.item_schema, "PageItem")
    elif primary is not None:
        item_type = primary.item_type
    else:
        item_type = _item_type(ctx, success.type, spec.items)
    return Pagination(
        style=spec.style,
        items_path=spec.items,
        item_type=item_type,
        total_path=spec.total,
        offset_param=spec.offset_param,
        limit_param=spec.limit_param,
        cursor_param=spec.cursor_param,
        next_cursor_path=spec.next_cursor,
        has_more_path=spec.has_more,
        default_limit=spec.default_limit,
        first_offset=spec.first_offset,
    )


def _item_type(ctx: BuildContext, t: TypeRef, path: tuple[str, ...]) -> TypeRef:
    """The element type found by following ``path`` through the response's models."""
    for key in path:
        t = strip_none(t)
        model = ctx.catalog.models.get(t.name) if isinstance(t, ModelRef) else None
        prop = property_of(ctx.catalog.models, model, key)
        if prop is None:
            return ANY
        t = ctx.types.type_of(prop, "PageItem")
    t = strip_none(t)
    return t.item if isinstance(t, ListOf) else ANY
