"""One attempt's request from a :class:`PreparedCall`: the path and query filled in, the
client's fixed headers with the call's own merged in, and the body as JSON, a form, multipart
parts or raw content (``extra_body`` merged where it can be)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx2

from ._prepared_call import PreparedCall
from ._request_defaults import RequestDefaults, merged_headers, parsed_url, timeout_extension
from ._types import NotGiven, Timeout
from ._utils import build_path, build_query, to_jsonable


def build_request(
    call: PreparedCall,
    client: httpx2.Client | httpx2.AsyncClient,
    fixed: RequestDefaults,
    timeout: Timeout,
) -> httpx2.Request:
    """The request for one attempt of ``call``, with what every request of the client shares
    (``fixed``) and the call's worked-out ``timeout``."""
    opts = call.options
    path = build_path(call.path, call.path_params)
    query = {**call.query, **opts.extra_query} if opts.extra_query else call.query
    params = build_query(query, call.unexploded)
    headers: Sequence[tuple[str, str]] | None = fixed.pairs
    if call.headers or opts.extra_headers:
        headers = merged_headers(fixed.headers, call.headers, opts.extra_headers)
    kwargs: dict[str, Any] = {}
    if not isinstance(call.json, NotGiven):
        body = to_jsonable(call.json)
        if opts.extra_body and isinstance(body, dict):
            body = {**body, **to_jsonable(opts.extra_body)}
        kwargs["json"] = body
    elif call.form is not None or call.files is not None:
        form = {**(call.form or {}), **(opts.extra_body or {})}
        data = {k: v for k, v in form.items() if not isinstance(v, NotGiven)}
        files = dict(call.files or {})
        if call.files is not None:  # multipart: binary values travel as file parts
            for key in [
                k
                for k, v in data.items()
                if isinstance(v, (bytes, bytearray)) or hasattr(v, "read")
            ]:
                files[key] = data.pop(key)
        kwargs["data"] = data
        if files:
            kwargs["files"] = files
    elif call.content is not None:
        if opts.extra_body:
            raise TypeError("extra_body cannot be combined with a raw (binary or text) body")
        kwargs["content"] = call.content
    elif opts.extra_body:  # an operation without a documented body: send the extra as JSON
        kwargs["json"] = to_jsonable(opts.extra_body)
    return client.build_request(
        call.method,
        parsed_url((fixed.root if call.host_root else fixed.base) + path),
        params=params or None,  # an empty list would still cost httpx2 a query merge
        headers=headers,
        extensions=timeout_extension(timeout, fixed),
        **kwargs,
    )
