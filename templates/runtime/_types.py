"""Types shared by every client: the "not given" sentinel and request option aliases."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import httpx2

__all__ = ["NOT_GIVEN", "RAW_RESPONSE_HEADER", "Body", "Headers", "NotGiven", "Query", "Timeout"]


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

# Marks a call made through ``with_raw_response``; never sent.
RAW_RESPONSE_HEADER = "X-Cube-Codegen-Raw-Response"

Headers = Mapping[str, str]
Query = Mapping[str, object]
Body = Mapping[str, object]
Timeout = float | httpx2.Timeout | None
