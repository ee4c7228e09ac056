"""Where a value was found in a response: the call, and its JSON pointer, worked out only when
something about it is reported (most values never are)."""

from __future__ import annotations

from typing import Any

from ._differences import Context, child
from ._lenient import NOWHERE

__all__ = ["NOWHERE_PLACE", "Where"]


class Where:
    """Where a value was found: the call, and its JSON pointer, worked out only when asked for.

    ``items`` is set for the list a page of models came from; all its models share one
    :class:`Where`, and an item's index is looked up only if something about it is reported.
    """

    __slots__ = ("context", "items", "key", "parent", "parent_raw")

    def __init__(
        self,
        context: Context,
        parent: Where | str = "",
        key: str | int | None = None,
        items: list[Any] | None = None,
        parent_raw: Any = None,
    ) -> None:
        self.context = context
        self.parent = parent
        self.parent_raw = parent_raw
        self.key = key
        self.items = items

    def pointer(self) -> str:
        parent = self.parent
        base = parent.pointer_of(self.parent_raw) if isinstance(parent, Where) else parent
        return base if self.key is None else child(base, self.key)

    def pointer_of(self, raw: Any) -> str:
        """The pointer of ``raw``: this place, or its index in :attr:`items`."""
        if self.items is None:
            return self.pointer()
        index = next((i for i, item in enumerate(self.items) if item is raw), None)
        return self.pointer() if index is None else child(self.pointer(), index)

    def at(self, key: str | int, raw: Any = None) -> Where:
        """The place of ``key`` inside the value found here (``raw``: that value, for lists)."""
        return Where(self.context, self, key, None, raw)


NOWHERE_PLACE = Where(NOWHERE)
