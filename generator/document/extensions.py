"""The vendor extensions overlays add to operations, as typed frozen models.

These models are the one place the keys, types and defaults of ``x-cube-pagination`` and
``x-cube-job`` are defined: the builder reads extensions through them, and the README's reference
tables are rendered from them (:func:`reference_table`, pinned by a test).
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError
from pydantic.alias_generators import to_camel

from generator.diagnostics import join_pointer, one_line

PAGINATION = "x-cube-pagination"
JOB = "x-cube-job"
REQUEST_ID = "x-cube-request-id"
HOST_ROOT = "x-cube-host-root"
DATA_RESULT = "x-cube-data-result"
TOKEN_JOB = "x-cube-token-job"
# ``x-cube-data-result`` values: the runtime mixin each one gives a model (a closed set, so no
# document text ever becomes a class name).
DATA_RESULT_MIXINS = {"load-response": "LoadResponseMixin", "load-result": "LoadResultMixin"}

Keys = tuple[StrictStr, ...]


class _Extension(BaseModel):
    # Validators are built when a model first reads an extension: a document without them
    # (most documents given to ``generate --spec``) never pays for building them.
    model_config = ConfigDict(
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        defer_build=True,
    )


class PageSpec(_Extension):
    """How a list operation pages (one response shape; ``alternatives`` add others)."""

    style: Literal["offset", "cursor"] = Field(description="`offset` or `cursor`")
    items: Keys = Field(min_length=1, description="path to the item array in the response body")
    total: Keys = Field((), description="offset style: path to the total count")
    offset_param: StrictStr = Field("offset", description="offset style: query parameter")
    limit_param: StrictStr = Field("limit", description="page size query parameter")
    cursor_param: StrictStr = Field("after", description="cursor style: query parameter")
    next_cursor: Keys = Field(
        (), description="cursor style: path to the next cursor; absent or null ends paging"
    )
    has_more: Keys = Field(
        (), description="cursor style: path to a boolean that is false on the last page"
    )
    default_limit: StrictInt | None = Field(
        None, description="page size the server uses when the limit is omitted"
    )
    first_offset: StrictInt = Field(
        0, description="offset of the first item (1 for a 1-based `startIndex`)"
    )
    item_schema: dict[str, Any] | None = Field(
        None, description="schema of one item, when the response's own schema does not say"
    )


class PaginationSpec(PageSpec):
    """``x-cube-pagination``: the primary shape and the other shapes the endpoint may serve."""

    alternatives: tuple[PageSpec, ...] = Field(
        (), description="other response shapes: the keys above, unset ones at their defaults"
    )


class JobSpec(_Extension):
    """``x-cube-job``: an operation that submits an asynchronous job, and how to follow it."""

    status_operation: StrictStr = Field(description="operationId of the status operation")
    download_operation: StrictStr | None = Field(
        None, description="operationId of the download operation"
    )
    id_field: StrictStr = Field("id", description="job id field of the submit response")
    id_param: StrictStr | None = Field(
        None, description="path parameter of status and download (default: `idField`)"
    )
    status_field: StrictStr = Field("status", description="state field of the status response")
    success_values: Keys = Field(("completed",), description="states that end in success")
    failure_values: Keys = Field(("failed",), description="states that end in failure")
    error_field: StrictStr = Field("error", description="failure message field of the status")
    expires_field: StrictStr = Field(
        "", description="expiry time field of the submit response; polling stops before it"
    )

    @property
    def path_param(self) -> str:
        return self.id_param if self.id_param is not None else self.id_field


class ContinueWaitSpec(_Extension):
    """How the server says "not ready, ask again" in an otherwise successful answer."""

    member: StrictStr = Field("error", description="member of the JSON object answer")
    value: StrictStr = Field(
        "Continue wait", description="its value when the result is not ready yet"
    )


class RequestIdSpec(_Extension):
    """``x-cube-request-id``: the call carries a request id; polls of one call share it."""

    header: StrictStr = Field("x-request-id", description="request header carrying the id")
    span_separator: StrictStr = Field(
        "-span-", description="between the id and the poll number: `<id>-span-<n>`"
    )
    continue_wait: ContinueWaitSpec | None = Field(
        None, description="`{member, value}`: the answer that means ask again (`Continue wait`)"
    )


class TokenJobSpec(_Extension):
    """``x-cube-token-job``: one operation starts jobs (answering their tokens) and, called
    again with another action and those tokens, answers each job's status."""

    action_field: StrictStr = Field("action", description="body field choosing what the call does")
    start_action: StrictStr = Field("post", description="its value that starts jobs")
    status_action: StrictStr = Field("get", description="its value that asks their status")
    tokens_field: StrictStr = Field("tokens", description="body field of the tokens asked about")
    token_key: StrictStr = Field("token", description="token key of one job's status")
    status_key: StrictStr = Field("status", description="state key of one job's status")
    success_values: Keys = Field(("done",), description="states that end in success")
    failure_values: Keys = Field(("failed",), description="states that end in failure")


ExtensionT = TypeVar("ExtensionT", bound=_Extension)  # any extension's typed form


def parse(model: type[ExtensionT], raw: Any, at: str) -> ExtensionT | tuple[str, str]:
    """The extension as ``model``, or the JSON pointer and message of its first problem."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [str(p) for p in err["loc"]]
        where = ".".join(loc) or "value"
        return join_pointer(at, *loc), f"{one_line(where, 60)}: {one_line(err['msg'], 120)}"


def reference_table(model: type[BaseModel]) -> str:
    """A markdown table of ``model``'s keys, defaults and meaning, as the README shows it."""
    rows = ["| key | default | meaning |", "| - | - | - |"]
    for name, info in model.model_fields.items():
        key = info.alias or name
        default = "required" if info.is_required() else _shown(info.default)
        rows.append(f"| `{key}` | {default} | {info.description or ''} |")
    return "\n".join(rows)


def _shown(value: Any) -> str:
    if value is None or value in ((), ""):
        return "—"
    if isinstance(value, tuple):
        return "`[" + ", ".join(str(v) for v in value) + "]`"
    return f"`{value}`"
