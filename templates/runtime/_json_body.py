"""A JSON body read into its documented type, under the one rule for data that differs.

Whole bodies (:func:`parse_json`), a page's items (:func:`parse_items`) and the values of a
stream (:func:`conform`): models are built lazily (see :mod:`._lazy`); what differs from the
document is kept and reported through :func:`._differences.report`, or refused when strict.
Invalid or too deeply nested JSON is the response's :class:`APIResponseValidationError`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import httpx2
import pydantic

from ._differences import Context, from_errors, report
from ._exceptions import APIResponseValidationError
from ._limits import Reading
from ._models import STRICT, Where, adapter, construct, lazy_builder

__all__ = ["conform", "loads", "parse_items", "parse_json", "too_deep"]

_STRICT_CONTEXT = {STRICT: True}


def _invalid_json(response: httpx2.Response, detail: object) -> APIResponseValidationError:
    return APIResponseValidationError(
        f"response body is not valid JSON: {detail}", response=response, body=response.text[:500]
    )


def parse_json(
    response: httpx2.Response, cast_to: Any, strict: bool = False, path: str = ""
) -> Any:
    """Validate a JSON body into ``cast_to``.

    Models are built lazily (each field validated when first read, see :mod:`._models`); other
    types are parsed and validated in one pass by pydantic-core (``validate_json``), markedly
    cheaper than ``json.loads`` followed by ``validate_python``. A body that differs from the
    document follows the one rule of :mod:`._differences`: kept with a warning, or with
    ``strict`` an :class:`APIResponseValidationError`. ``path`` is the operation's path template.
    """
    if cast_to is None or response.status_code == 204 or not response.content:
        return None
    builder = None if strict else lazy_builder(cast_to)
    if builder is not None or cast_to is object:
        data = loads(response, response.content)
        if builder is None:
            return data
        return builder(data, Where(Context.of(response, path)))
    try:
        return adapter(cast_to).validate_json(
            response.content, context=_STRICT_CONTEXT if strict else None
        )
    except pydantic.ValidationError as exc:
        errors = exc.errors()
        if errors[0]["type"] == "recursion_loop" or "recursion limit" in errors[0]["msg"]:
            raise too_deep(response) from None
        if errors[0]["type"] == "json_invalid":
            raise _invalid_json(response, errors[0]["msg"]) from None
        return _differs(response, cast_to, errors, strict, path)


def _differs(response: httpx2.Response, cast_to: Any, errors: Any, strict: bool, path: str) -> Any:
    """A body that did not validate, through the one rule (kept and warned, or refused)."""
    body = loads(response, response.content)
    context = Context.of(response, path)
    if strict:
        report(from_errors(errors, body, context), strict=True, response=response, body=body)
    value, found = construct(cast_to, body, "", context)
    report(found, response=response, body=body)
    return value


def parse_items(
    response: httpx2.Response,
    data: Any,
    items: Any,
    item_type: Any,
    strict: bool = False,
    at: str = "",
    path: str = "",
    operation: str = "",
) -> list[Any]:
    """The items of one page (already parsed JSON, found at pointer ``at``), leniently unless
    ``strict``."""
    tp, builder = _list_of(item_type)
    context = Context.of(response, path, operation=operation)
    if builder is not None and not strict and isinstance(items, list):
        built = builder(items, Where(context, at))
        return built if type(built) is list else list(built)
    try:
        return list(adapter(tp).validate_python(items, context=_STRICT_CONTEXT if strict else None))
    except pydantic.ValidationError as exc:
        if strict:
            found = from_errors(exc.errors(), items, context, at)
            report(found, strict=True, response=response, body=data)
        value, found = construct(tp, items, at, context)
        report(found, response=response, body=data)
        return list(value)


@lru_cache(maxsize=1024)
def _list_of(item_type: Any) -> tuple[Any, Any]:
    """``list[item_type]`` and its lazy builder (or ``None``), made once per item type rather
    than on every page."""
    tp = list[item_type]
    return tp, lazy_builder(tp)


def conform(value: Any, tp: Any, response: httpx2.Response, reading: Reading, part: str) -> Any:
    """One decoded JSON value of a stream (a line, an event's data) as ``tp``, under the one
    rule of :mod:`._differences`; ``part`` says which (``line 3``). What differs is heard by the
    call's own recorder, if its client records (``reading.hear``)."""
    strict = reading.strict
    try:
        return adapter(tp).validate_python(value, context=_STRICT_CONTEXT if strict else None)
    except pydantic.ValidationError as exc:
        context = Context.of(response, reading.path, part, hear=reading.hear)
        if strict:
            found = from_errors(exc.errors(), value, context)
            report(found, strict=True, response=response, body=value)
        built, found = construct(tp, value, "", context)
        report(found, response=response, body=value)
        return built


def loads(response: httpx2.Response, content: bytes | str, what: str = "response body") -> Any:
    """JSON from ``content``; invalid or too deeply nested JSON is the response's error."""
    try:
        return json.loads(content)
    except ValueError as exc:
        raise APIResponseValidationError(
            f"{what} is not valid JSON: {exc}", response=response, body=content[:500]
        ) from None
    except RecursionError:
        raise too_deep(response, what) from None


def too_deep(response: httpx2.Response, what: str = "response body") -> APIResponseValidationError:
    return APIResponseValidationError(
        f"{what} is nested deeper than the parser can follow",
        response=response,
        body=None,
    )
