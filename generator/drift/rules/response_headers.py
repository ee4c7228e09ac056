"""Response headers of matched responses (names compared case-insensitively)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.diagnostics import join_pointer, one_line
from generator.drift.context import OperationPair
from generator.drift.model import Change
from generator.drift.registry import define, operation_check

HEADER_ADDED = define(
    "response-header-added",
    "info",
    """One more header the server documents; nothing that exists changes.""",
)
HEADER_REMOVED = define(
    "response-header-removed",
    "warning",
    """Code that reads the header from the raw response (a rate-limit or a location header,
    say) finds it missing. Headers are not part of the generated return types, so typed callers
    are unaffected, hence a warning.""",
)


def _headers(resolver: Any, response: Any, ptr: str) -> dict[str, tuple[str, str]]:
    node, node_ptr = resolver.resolve(response, ptr)
    headers = node.get("headers") if isinstance(node, dict) else None
    if not isinstance(headers, dict):
        return {}
    return {name.lower(): (name, join_pointer(node_ptr, "headers", name)) for name in headers}


@operation_check
def response_headers(op: OperationPair) -> Iterator[Change]:
    old_responses = op.old.node.get("responses")
    new_responses = op.new.node.get("responses")
    if not isinstance(old_responses, dict) or not isinstance(new_responses, dict):
        return
    old_codes = {str(code).upper(): code for code in old_responses}
    for code, new_response in new_responses.items():
        old_code = old_codes.get(str(code).upper())
        if old_code is None:
            continue
        old_ptr = join_pointer(op.old.pointer, "responses", old_code)
        new_ptr = join_pointer(op.new.pointer, "responses", code)
        old = _headers(op.docs.old_resolver, old_responses[old_code], old_ptr)
        new = _headers(op.docs.new_resolver, new_response, new_ptr)
        for key, (name, ptr) in new.items():
            if key not in old:
                yield op.change(
                    HEADER_ADDED,
                    ptr,
                    f"response {one_line(code, 20)} header {one_line(name, 80)} added",
                )
        for key, (name, ptr) in old.items():
            if key not in new:
                yield op.change(
                    HEADER_REMOVED,
                    ptr,
                    f"response {one_line(code, 20)} header {one_line(name, 80)} removed",
                )
