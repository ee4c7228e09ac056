"""Where a result keeps the request id it was answered under (see ``_data``): a module of its
own, with no imports, so models can read the id without importing the request loop."""

from __future__ import annotations

from typing import Any

__all__ = ["request_id_of", "tagged"]

_PRIVATE_KEY = "_cube_request_id"


def tagged(value: Any, rid: str) -> Any:
    """``value`` with its request id kept where ``_request_id`` reads it (models only)."""
    private = getattr(value, "__pydantic_private__", False)
    if private is None:
        object.__setattr__(value, "__pydantic_private__", {})
        private = value.__pydantic_private__
    if isinstance(private, dict):
        private[_PRIVATE_KEY] = rid
    return value


def request_id_of(value: object) -> str | None:
    """The request id a result was answered under, if it was kept."""
    private = getattr(value, "__pydantic_private__", None)
    found = private.get(_PRIVATE_KEY) if isinstance(private, dict) else None
    return found if isinstance(found, str) else None
