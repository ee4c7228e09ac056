"""``x-cube-request-id``: calls that carry a request id and, where the server may answer "not
ready, ask again", are re-sent under the same id until the answer is there."""

from __future__ import annotations

from typing import Any

from generator.diagnostics import join_pointer
from generator.document.extensions import REQUEST_ID, RequestIdSpec, parse
from generator.ir.context import BuildContext
from generator.ir.types import RequestId

# The arguments such a method adds; an operation parameter of the same name is renamed.
DATA_CALL_ARGS = frozenset({"request_id", "wait_timeout", "on_progress"})


def request_id(ctx: BuildContext, op: dict[str, Any], ptr: str) -> RequestId | None:
    """The operation's request-id rule, or None (a malformed extension is a warning)."""
    raw = op.get(REQUEST_ID)
    if raw is None:
        return None
    at = join_pointer(ptr, REQUEST_ID)
    spec = parse(RequestIdSpec, raw, at)
    if isinstance(spec, tuple):
        ctx.warn("request-id-invalid", *spec)
        return None
    wait = spec.continue_wait
    return RequestId(
        header=spec.header,
        span_separator=spec.span_separator,
        continue_member=wait.member if wait else None,
        continue_value=wait.value if wait else None,
    )
