"""Generic pages: each knows only where its items are and how to ask for the next page.

Offset pages advance ``offset`` by the items received until ``total`` (when the response says it)
or a short page; cursor pages pass the response's next cursor until there is none. Iterating a
page iterates every item of every following page, fetched lazily.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from ._response import parse_json
from ._types import NotGiven

if TYPE_CHECKING:
    from ._base_client import AsyncAPIClient, PreparedCall, SyncAPIClient

__all__ = ["AsyncPage", "PageSpec", "SyncPage"]

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
    default_limit: int | None = None


def _dig(data: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


class _PageState(Generic[T]):
    def __init__(self, call: PreparedCall, spec: PageSpec, item_type: Any, data: Any, items: list[T]) -> None:
        self._call = call
        self._spec = spec
        self._item_type = item_type
        self.raw = data
        self.items = items

    @property
    def total(self) -> int | None:
        value = _dig(self.raw, self._spec.total) if self._spec.total else None
        return value if isinstance(value, int) else None

    def _next_call(self) -> PreparedCall | None:
        spec, query = self._spec, self._call.query
        if not self.items:
            return None
        if spec.style == "cursor":
            cursor = _dig(self.raw, spec.next_cursor) if spec.next_cursor else None
            if not isinstance(cursor, (str, int)) or cursor == "":
                return None
            return self._call.with_query(**{spec.cursor_param: cursor})
        offset = query.get(spec.offset_param)
        start = offset if isinstance(offset, int) and not isinstance(offset, NotGiven) else 0
        next_offset = start + len(self.items)
        total = self.total
        if total is not None:
            if next_offset >= total:
                return None
        else:
            limit = query.get(spec.limit_param)
            size = limit if isinstance(limit, int) else spec.default_limit
            if size is not None and len(self.items) < size:
                return None
        return self._call.with_query(**{spec.offset_param: next_offset})

    def has_next_page(self) -> bool:
        return self._next_call() is not None


def _items(data: Any, spec: PageSpec, item_type: Any, response: Any) -> list[Any]:
    raw_items = _dig(data, spec.items)
    if not isinstance(raw_items, list):
        return []
    from ._response import _adapter

    adapter = _adapter(list[item_type])
    try:
        return list(adapter.validate_python(raw_items))
    except Exception as exc:
        from ._exceptions import APIResponseValidationError

        raise APIResponseValidationError(
            f"page items do not match the documented schema: {exc}", response=response, body=data
        ) from None


class SyncPage(_PageState[T]):
    """One page of a list; ``for item in page`` walks every following page too."""

    def __init__(self, client: SyncAPIClient, call: PreparedCall, spec: PageSpec, item_type: Any) -> None:
        response = client.send(call)
        data = parse_json(response, object)
        super().__init__(call, spec, item_type, data, _items(data, spec, item_type, response))
        self._client = client

    def get_next_page(self) -> SyncPage[T] | None:
        call = self._next_call()
        return SyncPage(self._client, call, self._spec, self._item_type) if call else None

    def iter_pages(self) -> Iterator[SyncPage[T]]:
        page: SyncPage[T] | None = self
        while page is not None:
            yield page
            page = page.get_next_page()

    def __iter__(self) -> Iterator[T]:
        for page in self.iter_pages():
            yield from page.items


class AsyncPage(_PageState[T]):
    """Async twin of :class:`SyncPage`: ``async for item in page`` walks every page."""

    def __init__(self, client: AsyncAPIClient, call: PreparedCall, spec: PageSpec, item_type: Any, data: Any, items: list[T]) -> None:
        super().__init__(call, spec, item_type, data, items)
        self._client = client

    @classmethod
    async def fetch(cls, client: AsyncAPIClient, call: PreparedCall, spec: PageSpec, item_type: Any) -> AsyncPage[T]:
        response = await client.send(call)
        data = parse_json(response, object)
        return cls(client, call, spec, item_type, data, _items(data, spec, item_type, response))

    async def get_next_page(self) -> AsyncPage[T] | None:
        call = self._next_call()
        return await AsyncPage.fetch(self._client, call, self._spec, self._item_type) if call else None

    async def iter_pages(self) -> AsyncIterator[AsyncPage[T]]:
        page: AsyncPage[T] | None = self
        while page is not None:
            yield page
            page = await page.get_next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.items:
                yield item
