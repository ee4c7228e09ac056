"""What a call returns for its response, by the kind of body the document gives it: a parsed
JSON value, text, a binary download, an event stream or JSON lines (the streams wrap the response
unread); and an error response's body, for the status error."""

from __future__ import annotations

from typing import Any, Literal

import httpx2

from ._limits import Reading

__all__ = ["STREAMED_KINDS", "ResponseKind", "async_value", "error_body", "parse_value"]

ResponseKind = Literal["json", "binary", "text", "event-stream", "json-lines", "empty"]
STREAMED_KINDS = frozenset({"binary", "event-stream", "json-lines"})


def async_value(
    response: httpx2.Response, cast_to: Any, kind: ResponseKind, reading: Reading
) -> Any:
    """What an async call returns for ``response``: streams wrap it unread."""
    if kind == "binary":
        from ._binary_response import AsyncBinaryResponse

        return AsyncBinaryResponse(response, reading.limits)
    if kind == "event-stream":
        from ._streaming import AsyncEventStream

        return AsyncEventStream(response, cast_to, reading)
    if kind == "json-lines":  # ``cast_to`` is a ``JSONLines`` spec
        return cast_to.aopen(response, reading)
    return parse_value(response, cast_to, kind, reading)


def parse_value(
    response: httpx2.Response, cast_to: Any, kind: ResponseKind, reading: Reading
) -> Any:
    from ._binary_response import BinaryResponse
    from ._json_body import parse_json  # pydantic is imported on first use

    if kind == "json":
        return parse_json(response, cast_to, reading.strict, reading.path)
    if kind == "text":
        return response.text
    if kind == "binary":
        return BinaryResponse(response, reading.limits)
    if kind == "event-stream":
        from ._streaming import EventStream

        return EventStream(response, cast_to, reading)
    if kind == "json-lines":  # ``cast_to`` is a ``JSONLines`` spec
        return cast_to.open(response, reading)
    return None


def error_body(response: httpx2.Response) -> object:
    try:
        return response.json()
    except ValueError:
        return response.text[:2000]
