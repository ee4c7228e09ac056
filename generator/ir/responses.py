"""An operation's responses: the success it returns, the errors it raises, and the streamed
kinds (JSON lines, server-sent events, downloads)."""

from __future__ import annotations

import dataclasses
from typing import Any

from generator.diagnostics import join_pointer, one_line
from generator.document.openapi_paths import ITEM_SCHEMA_KEYS
from generator.ir.context import BuildContext, obj
from generator.ir.media import RESPONSE_KINDS, pick_media, response_kind
from generator.ir.types import ANY, NONE, JsonLines, Primitive, Response

# A JSON-lines media type names the schema of one line (ITEM_SCHEMA_KEYS); these two extensions
# say how errors and the end are marked.
ERROR_LINE_EXTENSION = "x-cube-error-line"
FINAL_LINE_EXTENSION = "x-cube-final-line"


@dataclasses.dataclass(frozen=True)
class Ranked:
    """One response of an operation as written (``status``, ``pointer``), typed; ``response``
    is ``None`` when the status is not an HTTP status code."""

    status: str
    pointer: str
    response: Response | None
    success: bool = False


def responses(ctx: BuildContext, ranked: list[Ranked]) -> tuple[Response, tuple[Response, ...]]:
    """The success response (the first 2XX, else a lone ``default``) and the 4XX/5XX errors."""
    errors: list[Response] = []
    for r in ranked:
        if r.response is None:
            ctx.warn(
                "response-status-invalid",
                r.pointer,
                f"{one_line(r.status, 40)} is not an HTTP status code; response ignored",
            )
        elif not r.success and r.response.status[:1] in ("4", "5"):
            errors.append(r.response)
    return success_of(ranked), tuple(errors)


def success_of(ranked: list[Ranked]) -> Response:
    """The response a call returns: the first success, else an empty 200."""
    return next((r.response for r in ranked if r.success and r.response), EMPTY)


EMPTY = Response("200", "empty", None, NONE)


def ranked_responses(ctx: BuildContext, op: dict[str, Any], ptr: str, hint: str) -> list[Ranked]:
    """Every response :func:`responses` reads, typed, best status first (a ``$ref`` that names
    no object is skipped)."""
    raw = obj(op.get("responses"))
    out: list[Ranked] = []
    any_success = False
    for status, resp in sorted(raw.items(), key=lambda kv: status_rank(kv[0])):
        code = str(status).upper()
        r_ptr = join_pointer(ptr, "responses", status)
        if status_rank(status)[0] >= 1000 and code != "DEFAULT":
            out.append(Ranked(str(status), r_ptr, None))
            continue
        r, _ = ctx.resolver.resolve(resp, r_ptr)
        if not isinstance(r, dict):
            continue
        is_success = code.startswith("2") or (
            code == "DEFAULT" and not any_success and not any(str(s).startswith("2") for s in raw)
        )
        any_success = any_success or is_success
        name = hint + ("Response" if is_success else f"Error{code.title()}")
        response = _response(ctx, code.lower() if code == "DEFAULT" else code, r, name, r_ptr)
        out.append(Ranked(str(status), r_ptr, response, is_success))
    return out


def status_rank(status: object) -> tuple[int, str]:
    """Sort key of a response status: numbers, then ``4XX`` ranges after their codes, then the
    rest (``default``, nonsense) at 1000."""
    s = str(status).upper()
    if s.isascii() and s.isdigit():
        return int(s), s
    if len(s) == 3 and s.endswith("XX") and s[0].isascii() and s[0].isdigit():
        return int(s[0]) * 100 + 99, s
    return 1000, s


def _response(ctx: BuildContext, status: str, r: dict[str, Any], name: str, ptr: str) -> Response:
    content = r.get("content")
    desc = one_line(r.get("description", ""))
    if not isinstance(content, dict) or not content:
        return Response(status, "empty", None, NONE, desc)
    lines = _json_lines(ctx, status, content, name, desc, join_pointer(ptr, "content"))
    if lines is not None:
        return lines
    media, kind = pick_media(list(content), RESPONSE_KINDS)
    if kind != "json":
        t = Primitive("str") if kind in ("text", "event-stream") else Primitive("bytes")
        # Error bodies are JSON, so JSON stays acceptable at a lower preference.
        accept = ", ".join(m for m in content if response_kind(m) == kind)
        accept += ", application/json;q=0.5"
        item_schema = obj(content.get(media)).get("itemSchema")
        item = ctx.types.type_of(item_schema, name + "Item") if item_schema else ANY
        return Response(status, kind, media, t, desc, accept=accept, item_type=item)
    schema = (content.get(media) or {}).get("schema")
    return Response(status, "json", media, ctx.types.type_of(schema, name), desc)


def _json_lines(
    ctx: BuildContext, status: str, content: dict[str, Any], name: str, desc: str, ptr: str
) -> Response | None:
    """A response whose body is one JSON value per line, typed by its media type's item
    schema. The other media types stay acceptable: servers often label such a body
    ``application/json``."""
    for media, raw in content.items():
        spec = obj(raw)
        key = next((k for k in ITEM_SCHEMA_KEYS if k in spec), None)
        if key is None or response_kind(media) == "event-stream":
            continue  # an event stream's itemSchema types its events, not lines
        at = join_pointer(ptr, media)
        item, _ = ctx.resolver.resolve(spec[key], join_pointer(at, key))
        error = obj(spec.get(ERROR_LINE_EXTENSION))
        final = obj(spec.get(FINAL_LINE_EXTENSION))
        without = error.get("without")
        rules = JsonLines(
            error_member=str(error.get("member", "")),
            error_without=tuple(str(w) for w in without) if isinstance(without, list) else (),
            final_member=str(final.get("member", "")),
            final_value=str(final.get("value", "")),
        )
        hint = name.removesuffix("Response") + "Line"
        # The document's JSON media types stay acceptable, listed first: servers often label
        # the lines as JSON, and mock servers cannot write a JSON-lines media type.
        others = [m for m in content if m != media and response_kind(m) == "json"]
        accept = ", ".join([*others, media])
        item_type = ctx.types.type_of(item, hint)
        return Response(status, "json-lines", media, item_type, desc, accept=accept, lines=rules)
    return None
