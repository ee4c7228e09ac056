"""Generic pages: each knows only where its items are (:mod:`._page_spec`) and how to ask for the
next page, in the style of the shape its response matched: the other shapes' parameters are
dropped and the page size carried over to that shape's ``limit_param``.

A walk never loops: a cursor sent before in the same walk (A → B → A), a page whose items are
those of the page before it (an endpoint that ignores ``offset`` and gives no total), or more
pages than ``Limits.max_pages`` stop it with a :class:`PaginationError`.

``for item in page`` (``async for`` on an async page) walks every item of this and every
following page, fetching each page only when the previous one is used up; ``iter_pages()``,
``has_next_page()`` and ``next_page()`` give page-at-a-time access, ``raw`` the page's JSON.
An async list method returns an :class:`AsyncPaginator`: ``async for item in client.x.list()``
walks every item with no ``await`` in between, and ``await client.x.list()`` gives the first page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx2

from ._limits import Limits, PaginationError
from ._page_spec import PageShapeError, PageSpec, as_int, dig, parse_page
from ._types import NOT_GIVEN

if TYPE_CHECKING:
    from ._base_client import AsyncAPIClient, PreparedCall, SyncAPIClient

__all__ = ["AsyncPage", "AsyncPaginator", "PageShapeError", "PageSpec", "SyncPage"]

T = TypeVar("T")


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
    return bool(dig(before.raw, before.spec.items) == dig(page.raw, page.spec.items))


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
        shape: PageSpec | None = None,
    ) -> None:
        self._call = call
        self._root = spec
        self.spec: PageSpec = shape or spec.match(data) or spec
        self._item_type = item_type
        self.raw = data
        self.items = items
        self.http_response = response
        self.depth = 1  # which page of its walk this is

    @property
    def total(self) -> int | None:
        """The total item count the response reports (offset style with a ``total`` path)."""
        value = dig(self.raw, self.spec.total) if self.spec.total else None
        return as_int(value)

    def _requested_size(self) -> int | None:
        """The page size the caller asked for, under any shape's limit parameter."""
        query = self._call.query
        for shape in (self.spec, *self._root.shapes):
            size = as_int(query.get(shape.limit_param))
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
        if requested is not None and as_int(query.get(spec.limit_param)) is None:
            changes[spec.limit_param] = requested  # carry the page size over to this shape's name
        size = requested if requested is not None else spec.default_limit
        if spec.style == "cursor":
            if spec.has_more and dig(self.raw, spec.has_more) is False:
                return None  # the server says this was the last page, whatever the cursor
            cursor = dig(self.raw, spec.next_cursor) if spec.next_cursor else None
            if isinstance(cursor, bool) or not isinstance(cursor, (str, int)) or cursor == "":
                return None
            changes[spec.cursor_param] = cursor
            return self._call.with_query(**changes)
        start = as_int(query.get(spec.offset_param))
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

    _walk: _Walk | None

    def _walk_on(self, client: SyncAPIClient | AsyncAPIClient) -> _Walk:
        """The walk this page is part of; the first page starts one when its next is asked for
        (most calls never page on)."""
        if self._walk is None:
            self._walk = _Walk(client._limits_for(self._call), self._call, self._root)
        return self._walk

    def has_next_page(self) -> bool:
        """Whether another page is expected (it may still turn out to be empty)."""
        return self._next_call() is not None

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.spec.style} items={len(self.items)} total={self.total}>"
        )


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
        data, items, shape = parse_page(
            response, spec, item_type, client.strict, call.path, client._recorder, call.method
        )
        super().__init__(call, spec, item_type, data, items, response, shape)
        self._client = client
        self._walk = walk

    def next_page(self) -> SyncPage[T] | None:
        """Fetch the next page, or ``None`` when this is the last one."""
        call = self._next_call()
        if call is None:
            return None
        walk = self._walk_on(self._client)
        walk.check_call(self, call)
        page: SyncPage[T] = SyncPage(self._client, call, self._root, self._item_type, walk)
        walk.check_page(self, page)
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
        shape: PageSpec | None = None,
    ) -> None:
        super().__init__(call, spec, item_type, data, items, response, shape)
        self._client = client
        self._walk = walk

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
        data, items, shape = parse_page(
            response, spec, item_type, client.strict, call.path, client._recorder, call.method
        )
        return cls(client, call, spec, item_type, data, items, response, walk, shape)

    async def next_page(self) -> AsyncPage[T] | None:
        """Fetch the next page, or ``None`` when this is the last one."""
        call = self._next_call()
        if call is None:
            return None
        walk = self._walk_on(self._client)
        walk.check_call(self, call)
        page: AsyncPage[T] = await AsyncPage.fetch(
            self._client, call, self._root, self._item_type, walk
        )
        walk.check_page(self, page)
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
