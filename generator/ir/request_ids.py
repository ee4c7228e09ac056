"""``x-cube-request-id``: calls that carry a request id and, where the server may answer "not
ready, ask again", are re-sent under the same id until the answer is there; and
``x-cube-token-job``: one operation that starts jobs and reports their status."""

from __future__ import annotations

from typing import Any

from generator.diagnostics import join_pointer, one_line, pointer
from generator.document.extensions import (
    DATA_RESULT,
    DATA_RESULT_MIXINS,
    REQUEST_ID,
    TOKEN_JOB,
    RequestIdSpec,
    TokenJobSpec,
)
from generator.ir.context import BuildContext
from generator.ir.naming import PythonIdentifier
from generator.ir.types import RequestBody, RequestId, TokenJob


def request_id(ctx: BuildContext, op: dict[str, Any], ptr: str) -> RequestId | None:
    """The operation's request-id rule, or None (a malformed extension is a warning)."""
    raw = op.get(REQUEST_ID)
    if raw is None:
        return None
    spec = ctx.extension(RequestIdSpec, raw, join_pointer(ptr, REQUEST_ID), "request-id-invalid")
    if spec is None:
        return None
    wait = spec.continue_wait
    return RequestId(
        header=spec.header,
        span_separator=spec.span_separator,
        continue_member=wait.member if wait else None,
        continue_value=wait.value if wait else None,
    )


def token_job(
    ctx: BuildContext, op: dict[str, Any], ptr: str, py_name: str, body: RequestBody | None
) -> TokenJob | None:
    """The operation's token job, or None; its fields must be fields of the JSON body."""
    raw = op.get(TOKEN_JOB)
    if raw is None:
        return None
    at = join_pointer(ptr, TOKEN_JOB)
    spec = ctx.extension(TokenJobSpec, raw, at, "token-job-invalid")
    if spec is None:
        return None
    json_fields = body.fields if body is not None and body.kind == "json" else None
    fields = {f.name: f.py_name for f in json_fields or ()}
    if spec.action_field not in fields or spec.tokens_field not in fields:
        ctx.warn("token-job-invalid", at, "actionField and tokensField must be JSON body fields")
        return None
    return TokenJob(
        method=PythonIdentifier.unchecked(py_name + "_job"),
        action_arg=fields[spec.action_field],
        start_action=spec.start_action,
        status_action=spec.status_action,
        tokens_arg=fields[spec.tokens_field],
        token_key=spec.token_key,
        status_key=spec.status_key,
        success_values=spec.success_values,
        failure_values=spec.failure_values,
    )


def data_result_warnings(ctx: BuildContext) -> None:
    """Warn about each ``x-cube-data-result`` naming no runtime class (it adds nothing)."""
    schemas = (ctx.doc.get("components") or {}).get("schemas") or {}
    for name, schema in schemas.items() if isinstance(schemas, dict) else ():
        value = schema.get(DATA_RESULT) if isinstance(schema, dict) else None
        if value is not None and value not in DATA_RESULT_MIXINS:
            known = ", ".join(sorted(DATA_RESULT_MIXINS))
            ctx.warn(
                "data-result-invalid",
                pointer("components", "schemas", str(name), DATA_RESULT),
                f"{one_line(repr(value), 60)} is not one of {known}; the model gets no methods",
            )
