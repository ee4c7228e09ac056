"""Where a list endpoint's pages keep their items and paging state, and how a response is
matched to one of the shapes an endpoint may answer in.

Two styles, described by :class:`PageSpec` (from the document's ``x-cube-pagination``):

offset
    The next page asks for ``offset + len(items)``. Paging stops at an empty page, when the
    response's ``total`` says everything has been seen, or — without a total — at a page shorter
    than the page size (the ``limit`` sent, else ``default_limit``).
cursor
    The next page sends the response's next cursor as ``cursor_param``. Paging stops at an empty
    page, when the response's ``has_more`` flag (e.g. ``pageInfo.hasNextPage``) is false, or when
    the cursor is absent, null or empty.

An endpoint that may answer in more than one shape lists the others in ``alternatives``: each
response is read with the first spec (the page's own, then its alternatives in order) whose
``items`` path holds a list. A response in none of the known shapes is a
:class:`PageShapeError` naming the operation and the keys it had — never an empty page, which
would read as "there are none".
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx2

from ._differences import child
from ._exceptions import APIResponseValidationError
from ._json_body import loads, parse_items
from ._shapes import Recorder, observe_data
from ._types import NotGiven

__all__ = ["PageShapeError", "PageSpec", "as_int", "dig", "parse_page"]


@dataclass(frozen=True)
class PageSpec:
    """Where a list endpoint keeps its items and paging state (from the document's overlays)."""

    style: Literal["offset", "cursor"]
    items: tuple[str, ...]
    total: tuple[str, ...] = ()
    offset_param: str = "offset"
    limit_param: str = "limit"
    cursor_param: str = "after"
    next_cursor: tuple[str, ...] = ()
    has_more: tuple[str, ...] = ()
    default_limit: int | None = None
    alternatives: tuple[PageSpec, ...] = ()
    # The offset of the first item: 0, or 1 for 1-based schemes such as SCIM's ``startIndex``.
    first_offset: int = 0
    # The operation id, for errors.
    operation: str = ""

    @functools.cached_property
    def shapes(self) -> tuple[PageSpec, ...]:
        """This spec and its alternatives, in the order a response is matched against them."""
        return (self, *self.alternatives)

    @functools.cached_property
    def items_pointer(self) -> str:
        """The JSON pointer of :attr:`items` (``/items``), named in warnings and errors."""
        return "".join(child("", key) for key in self.items)

    @property
    def params(self) -> frozenset[str]:
        """The query parameters this style of paging sends."""
        moving = self.offset_param if self.style == "offset" else self.cursor_param
        return frozenset({moving, self.limit_param})

    def match(self, data: Any) -> PageSpec | None:
        """The first of :attr:`shapes` whose ``items`` path holds a list in ``data``, else the first
        whose path is there but ``null`` (an empty page); ``None`` when no path is there at all."""
        for shape in self.shapes:
            if isinstance(dig(data, shape.items), list):
                return shape
        for shape in self.shapes:
            if _present(data, shape.items):
                return shape
        return None


def dig(data: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _present(data: Any, path: Sequence[str]) -> bool:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return False
        data = data[key]
    return data is None


def as_int(value: object) -> int | None:
    if isinstance(value, bool) or isinstance(value, NotGiven):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


class PageShapeError(APIResponseValidationError):
    """A list response in none of the shapes the operation is known to page in.

    Raised instead of yielding an empty page: ``operation`` names the call, ``keys`` the top-level
    keys the response had, ``expected`` the item paths that were looked for.
    """

    def __init__(
        self,
        *,
        operation: str,
        keys: list[str],
        expected: list[str],
        response: httpx2.Response,
        body: object,
    ) -> None:
        shown = ", ".join(keys[:20]) if keys else f"no keys (a {type(body).__name__})"
        super().__init__(
            f"{operation or 'list'}: unrecognised page shape; the response has {shown}; "
            f"expected items at {' or '.join(expected)}",
            response=response,
            body=body,
        )
        self.operation = operation
        self.keys = keys
        self.expected = expected


def parse_page(
    response: httpx2.Response,
    spec: PageSpec,
    item_type: Any,
    strict: bool = False,
    path: str = "",
    recorder: Recorder | None = None,
    method: str = "",
) -> tuple[Any, list[Any], PageSpec]:
    """The page's JSON, its items and the shape it matched (see :meth:`PageSpec.match`)."""
    content = response.content
    data = loads(response, content) if content and response.status_code != 204 else None
    shape = spec.match(data)
    if shape is None:
        raise PageShapeError(
            operation=spec.operation,
            keys=sorted(str(k) for k in data) if isinstance(data, dict) else [],
            expected=[".".join(s.items) for s in spec.shapes],
            response=response,
            body=data,
        )
    at = shape.items_pointer
    found = dig(data, shape.items) or []
    if recorder is not None and recorder.sampled(method, path):
        observe_data(recorder, method, path, response, list[item_type], found, at)
    items = parse_items(response, data, found, item_type, strict, at, path, spec.operation)
    return data, items, shape
