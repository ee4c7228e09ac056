"""Generic pages: each knows only where its items are and how to ask for the next page.

Two styles, described by :class:`PageSpec` (from the document's ``x-cube-pagination``):

offset
    The next page asks for ``offset + len(items)``. Paging stops at an empty page, when the
    response's ``total`` says everything has been seen, or — without a total — at a page shorter
    than the page size (the ``limit`` sent, else ``default_limit``).
cursor
    The next page sends the response's next cursor as ``cursor_param``. Paging stops at an empty
    page, when the response's ``has_more`` flag (e.g. ``pageInfo.hasNextPage``) is false, or when
    the cursor is absent, null or empty.

A walk never loops: a cursor sent before in the same walk (A → B → A), a page whose items are
those of the page before it (an endpoint that ignores ``offset`` and gives no total), or more
pages than ``Limits.max_pages`` stop it with a :class:`PaginationError`.

An endpoint that may answer in more than one shape lists the others in ``alternatives``: each
response is read with the first spec (the page's own, then its alternatives in order) whose
``items`` path holds a list, and the next request is built in that spec's style — the other
shapes' parameters are dropped and the page size carried over to its ``limit_param``. A response
in none of the known shapes is a :class:`PageShapeError` naming the operation and the keys it
had — never an empty page, which would read as "there are none".

``for item in page`` (``async for`` on an async page) walks every item of this and every
following page, fetching each page only when the previous one is used up; ``iter_pages()``,
``has_next_page()`` and ``next_page()`` give page-at-a-time access, ``raw`` the page's JSON.
An async list method returns an :class:`AsyncPaginator`: ``async for item in client.x.list()``
walks every item with no ``await`` in between, and ``await client.x.list()`` gives the first page.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import httpx2

from ._differences import child
from ._exceptions import APIResponseValidationError
from ._limits import Limits, PaginationError
from ._response import parse_items, parse_json
from ._shapes import Recorder, observe_data
from ._types import NOT_GIVEN, NotGiven

if TYPE_CHECKING:
    from ._base_client import AsyncAPIClient, PreparedCall, SyncAPIClient

__all__ = ["AsyncPage", "AsyncPaginator", "PageShapeError", "PageSpec", "SyncPage"]

T = TypeVar("T")


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

    @property
    def shapes(self) -> tuple[PageSpec, ...]:
        """This spec and its alternatives, in the order a response is matched against them."""
        return (self, *self.alternatives)

    @property
    def params(self) -> frozenset[str]:
        """The query parameters this style of paging sends."""
        moving = self.offset_param if self.style == "offset" else self.cursor_param
        return frozenset({moving, self.limit_param})

    def match(self, data: Any) -> PageSpec | None:
        """The first of :attr:`shapes` whose ``items`` path holds a list in ``data``, else the first
        whose path is there but ``null`` (an empty page); ``None`` when no path is there at all."""
        for shape in self.shapes:
            if isinstance(_dig(data, shape.items), list):
                return shape
        for shape in self.shapes:
            if _present(data, shape.items):
                return shape
        return None


@functools.lru_cache(maxsize=256)
def _pointer(path: tuple[str, ...]) -> str:
    """The JSON pointer of the items at ``path`` (worked out once per page shape)."""
    return "".join(child("", key) for key in path)


def _dig(data: Any, path: Sequence[str]) -> Any:
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


def _as_int(value: object) -> int | None:
    if isinstance(value, bool) or isinstance(value, NotGiven):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


class _Walk:
    """What one walk through the pages has seen, shared by its pages: each cursor sent and the
    depth of the page it fetched, so a server that loops is stopped (see the module). Fetching
    the same page's next page twice is not a loop: only a cursor sent for this page or one
    before it repeats."""

    def __init__(self, limits: Limits, call: PreparedCall, spec: PageSpec) -> None:
        self.max_pages = limits.max_pages  # the first call's: every page sends the same options
        self.cursors: dict[str, int] = {}
        for shape in spec.shapes:
            if shape.style == "cursor" and shape.cursor_param in call.query:
                self.cursors[str(call.query[shape.cursor_param])] = 1

    def check_call(self, page: _PageState[Any], call: PreparedCall) -> None:
        """Refuse to send ``call`` (the page after ``page``) if the walk would loop."""
        response = page.http_response
        assert response is not None
        depth = page.depth
        if self.max_pages is not None and depth >= self.max_pages:
            detail = f"Limits.max_pages is {self.max_pages}"
            raise PaginationError("max-pages", detail, depth, response=response)
        spec = page.spec
        if spec.style == "cursor":
            cursor = str(call.query.get(spec.cursor_param))
            if self.cursors.get(cursor, depth + 1) <= depth:
                detail = f"the server gave cursor {cursor[:40]!r} again"
                raise PaginationError("repeated-cursor", detail, depth, response=response)
            self.cursors.setdefault(cursor, depth + 1)

    def check_page(self, before: _PageState[Any], page: _PageState[Any]) -> None:
        """Refuse a page whose items are exactly those of the page before it."""
        page.depth = before.depth + 1
        if page.items and page.http_response is not None and _same_items(before, page):
            detail = "the server sent the same page again"
            raise PaginationError(
                "repeated-page", detail, before.depth, response=page.http_response
            )


def _same_items(before: _PageState[Any], page: _PageState[Any]) -> bool:
    return bool(_dig(before.raw, before.spec.items) == _dig(page.raw, page.spec.items))


class _PageState(Generic[T]):
    """One fetched page: its items, the raw body, and the call that fetches the next one."""

    def __init__(
        self,
        call: PreparedCall,
        spec: PageSpec,
        item_type: Any,
        data: Any,
        items: list[T],
        response: httpx2.Response | None = None,
    ) -> None:
        self._call = call
        self._root = spec
        self.spec: PageSpec = spec.match(data) or spec
        self._item_type = item_type
        self.raw = data
        self.items = items
        self.http_response = response
        self.depth = 1  # which page of its walk this is

    @property
    def total(self) -> int | None:
        """The total item count the response reports (offset style with a ``total`` path)."""
        value = _dig(self.raw, self.spec.total) if self.spec.total else None
        return _as_int(value)

    def _requested_size(self) -> int | None:
        """The page size the caller asked for, under any shape's limit parameter."""
        query = self._call.query
        for shape in (self.spec, *self._root.shapes):
            size = _as_int(query.get(shape.limit_param))
            if size is not None:
                return size
        return None

    def _next_call(self) -> PreparedCall | None:
        spec, query = self.spec, self._call.query
        if not self.items:
            return None
        changes: dict[str, object] = {}
        for shape in self._root.shapes:  # drop what only the other shapes send
            for name in shape.params - spec.params:
                if name in query:
                    changes[name] = NOT_GIVEN
        requested = self._requested_size()
        if requested is not None and _as_int(query.get(spec.limit_param)) is None:
            changes[spec.limit_param] = requested  # carry the page size over to this shape's name
        size = requested if requested is not None else spec.default_limit
        if spec.style == "cursor":
            if spec.has_more and _dig(self.raw, spec.has_more) is False:
                return None  # the server says this was the last page, whatever the cursor
            cursor = _dig(self.raw, spec.next_cursor) if spec.next_cursor else None
            if isinstance(cursor, bool) or not isinstance(cursor, (str, int)) or cursor == "":
                return None
            changes[spec.cursor_param] = cursor
            return self._call.with_query(**changes)
        start = _as_int(query.get(spec.offset_param))
        start = spec.first_offset if start is None else start
        next_offset = start + len(self.items)
        total = self.total
        if total is not None:
            if next_offset - spec.first_offset >= total:
                return None
        elif size is not None and len(self.items) < size:
            return None
        changes[spec.offset_param] = next_offset
        return self._call.with_query(**changes)

    def has_next_page(self) -> bool:
        """Whether another page is expected (it may still turn out to be empty)."""
        return self._next_call() is not None

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.spec.style} items={len(self.items)} total={self.total}>"
        )


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


def _parse_page(
    response: httpx2.Response,
    spec: PageSpec,
    item_type: Any,
    strict: bool = False,
    path: str = "",
    recorder: Recorder | None = None,
    method: str = "",
) -> tuple[Any, list[Any]]:
    data = parse_json(response, object)
    shape = spec.match(data)
    if shape is None:
        raise PageShapeError(
            operation=spec.operation,
            keys=sorted(str(k) for k in data) if isinstance(data, dict) else [],
            expected=[".".join(s.items) for s in spec.shapes],
            response=response,
            body=data,
        )
    at = _pointer(shape.items)
    found = _dig(data, shape.items) or []
    if recorder is not None and recorder.sampled(method, path):
        observe_data(recorder, method, path, response, list[item_type], found, at)
    items = parse_items(response, data, found, item_type, strict, at, path, spec.operation)
    return data, items


class SyncPage(_PageState[T]):
    """One page of a list; ``for item in page`` walks every following page too."""

    def __init__(
        self,
        client: SyncAPIClient,
        call: PreparedCall,
        spec: PageSpec,
        item_type: Any,
        walk: _Walk | None = None,
    ) -> None:
        response = client.send(call)
        data, items = _parse_page(
            response, spec, item_type, client.strict, call.path, client._recorder, call.method
        )
        super().__init__(call, spec, item_type, data, items, response)
        self._client = client
        self._walk = walk or _Walk(client._limits_for(call), call, spec)

    def next_page(self) -> SyncPage[T] | None:
        """Fetch the next page, or ``None`` when this is the last one."""
        call = self._next_call()
        if call is None:
            return None
        self._walk.check_call(self, call)
        page: SyncPage[T] = SyncPage(self._client, call, self._root, self._item_type, self._walk)
        self._walk.check_page(self, page)
        return page

    get_next_page = next_page

    def iter_pages(self) -> Iterator[SyncPage[T]]:
        """This page and each following one, fetched as the loop reaches it."""
        page: SyncPage[T] | None = self
        while page is not None:
            yield page
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:
        for page in self.iter_pages():
            yield from page.items


class AsyncPage(_PageState[T]):
    """Async twin of :class:`SyncPage`: ``async for item in page`` walks every page."""

    def __init__(
        self,
        client: AsyncAPIClient,
        call: PreparedCall,
        spec: PageSpec,
        item_type: Any,
        data: Any,
        items: list[T],
        response: httpx2.Response | None = None,
        walk: _Walk | None = None,
    ) -> None:
        super().__init__(call, spec, item_type, data, items, response)
        self._client = client
        self._walk = walk or _Walk(client._limits_for(call), call, spec)

    @classmethod
    async def fetch(
        cls,
        client: AsyncAPIClient,
        call: PreparedCall,
        spec: PageSpec,
        item_type: Any,
        walk: _Walk | None = None,
    ) -> AsyncPage[T]:
        """Send ``call`` and wrap the page (the first of a walk unless ``walk`` is given)."""
        response = await client.send(call)
        data, items = _parse_page(
            response, spec, item_type, client.strict, call.path, client._recorder, call.method
        )
        return cls(client, call, spec, item_type, data, items, response, walk)

    async def next_page(self) -> AsyncPage[T] | None:
        """Fetch the next page, or ``None`` when this is the last one."""
        call = self._next_call()
        if call is None:
            return None
        self._walk.check_call(self, call)
        page: AsyncPage[T] = await AsyncPage.fetch(
            self._client, call, self._root, self._item_type, self._walk
        )
        self._walk.check_page(self, page)
        return page

    get_next_page = next_page

    async def iter_pages(self) -> AsyncIterator[AsyncPage[T]]:
        """This page and each following one, fetched as the loop reaches it."""
        page: AsyncPage[T] | None = self
        while page is not None:
            yield page
            page = await page.next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.items:
                yield item


class AsyncPaginator(Generic[T]):
    """What an async list method returns: ``await`` it for the first page, or ``async for`` over it
    for every item of every page (no ``await`` needed first). Nothing is sent until then."""

    def __init__(
        self, client: AsyncAPIClient, call: PreparedCall, spec: PageSpec, item_type: Any
    ) -> None:
        self._client = client
        self._call = call
        self._spec = spec
        self._item_type = item_type

    async def _first(self) -> AsyncPage[T]:
        return await AsyncPage.fetch(self._client, self._call, self._spec, self._item_type)

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        return self._first().__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        page = await self._first()
        async for item in page:
            yield item
