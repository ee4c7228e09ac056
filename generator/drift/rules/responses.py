"""Responses: status codes, media types, and (through the schema rules) the bodies' properties.

Success means a 2xx code (or ``2XX``); every other code, and ``default``, is an error response,
which the generated client raises as an exception. Bodies are compared for every status: the
exception carries the parsed error body, and code reads it too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.diagnostics import join_pointer, one_line
from generator.drift.context import OperationPair
from generator.drift.model import Change
from generator.drift.registry import define, operation_check
from generator.drift.rules.request_body import compare_content

SUCCESS_STATUS_REMOVED = define(
    "response-success-status-removed",
    "breaking",
    """The server stops answering with a success code the client's return type is built from:
    callers get another code (and shape) than the one their code handles.""",
)
SUCCESS_STATUS_ADDED = define(
    "response-success-status-added",
    "warning",
    """The server may now answer with another success code, whose body may have another shape:
    the method's return type widens, and code that expected one shape may meet the other.""",
)
ERROR_STATUS_ADDED = define(
    "response-error-status-added",
    "info",
    """A newly documented error: it still surfaces as the client's exception for that status
    family, so calling code is unchanged (it may now catch it more precisely).""",
)
ERROR_STATUS_REMOVED = define(
    "response-error-status-removed",
    "info",
    """An error the server no longer documents; handlers for it become dead code.""",
)
MEDIA_TYPE_ADDED = define(
    "response-media-type-added",
    "info",
    """The server can answer in one more content type; the client still asks for the old one.""",
)
MEDIA_TYPE_REMOVED = define(
    "response-media-type-removed",
    "breaking",
    """The server no longer answers in a content type the client parses (say application/json):
    the client cannot decode the body into the type its callers use.""",
)


def is_success(code: str) -> bool:
    return code.upper().startswith("2")


def _responses(op: dict[str, Any], op_ptr: str) -> tuple[dict[str, Any], str]:
    ptr = join_pointer(op_ptr, "responses")
    responses = op.get("responses")
    return (responses, ptr) if isinstance(responses, dict) else ({}, ptr)


@operation_check
def responses(op: OperationPair) -> Iterator[Change]:
    old, old_ptr = _responses(op.old.node, op.old.pointer)
    new, new_ptr = _responses(op.new.node, op.new.pointer)
    old_codes = {code.upper(): code for code in old}
    new_codes = {code.upper(): code for code in new}
    for upper, code in new_codes.items():
        if upper not in old_codes:
            rule = SUCCESS_STATUS_ADDED if is_success(upper) else ERROR_STATUS_ADDED
            yield op.change(
                rule, join_pointer(new_ptr, code), f"response {one_line(code, 20)} added"
            )
    for upper, code in old_codes.items():
        if upper not in new_codes:
            rule = SUCCESS_STATUS_REMOVED if is_success(upper) else ERROR_STATUS_REMOVED
            yield op.change(
                rule, join_pointer(old_ptr, code), f"response {one_line(code, 20)} removed"
            )
    for upper, code in new_codes.items():
        if upper in old_codes:
            old_code = old_codes[upper]
            old_side = (old[old_code], join_pointer(old_ptr, old_code))
            yield from _response(op, code, old_side, (new[code], join_pointer(new_ptr, code)))


def _response(
    op: OperationPair, code: str, old_side: tuple[Any, str], new_side: tuple[Any, str]
) -> Iterator[Change]:
    old, old_ptr = op.docs.old_resolver.resolve(*old_side)
    new, new_ptr = op.docs.new_resolver.resolve(*new_side)
    if isinstance(old, dict) and isinstance(new, dict):
        rules = (MEDIA_TYPE_ADDED, MEDIA_TYPE_REMOVED)
        label = f"response {one_line(code, 20)}"
        yield from compare_content(op, (old, old_ptr), (new, new_ptr), rules, label)
