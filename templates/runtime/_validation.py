"""Client-side checks of request bodies whose schema adds rules beyond their properties.

A body such as "exactly one of ``dashboardId`` / ``dashboardPublicId``" is checked before it is
sent, so the caller gets a precise local error instead of a 400 after a round trip.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import pydantic

from ._exceptions import APIError

__all__ = ["RequestValidationError", "validate_body"]


@lru_cache(maxsize=256)
def _adapter(model: Any) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(model)


class RequestValidationError(APIError, ValueError):
    """The arguments do not form a request body the document allows; nothing was sent."""


def validate_body(
    model: Any, one_of: tuple[tuple[str, ...], ...], payload: Mapping[str, object]
) -> dict[str, object]:
    """Return ``payload`` unchanged after checking its one-of rules and its model."""
    if one_of:
        present = {k for k, v in payload.items() if v is not None}
        matching = [group for group in one_of if set(group) <= present]
        if len(matching) != 1:
            options = " | ".join("+".join(group) for group in one_of)
            raise RequestValidationError(f"send exactly one of: {options}")
    try:
        _adapter(model).validate_python(dict(payload))
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise RequestValidationError(f"invalid request body at {where}: {first['msg']}") from None
    return dict(payload)
