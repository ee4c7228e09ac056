"""Types shared by every client: the "not given" sentinel and request option aliases."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import httpx

__all__ = ["NOT_GIVEN", "Body", "Headers", "NotGiven", "Query", "Timeout"]


class NotGiven:
    """Marks an argument the caller did not pass, so that "omitted" and ``None`` (null) differ."""

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = NotGiven()

Headers = Mapping[str, str]
Query = Mapping[str, object]
Body = Mapping[str, object]
Timeout = float | httpx.Timeout | None
