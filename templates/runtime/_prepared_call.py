"""What one call sends, as the generated methods hand it to the client: :class:`PreparedCall`
(method, path template and values, query, headers, body) and the caller's per-call overrides,
:class:`RequestOptions`. Both are made on every call, so they are built with one dict update
each (a frozen dataclass's own ``__init__`` would set each field through ``object.__setattr__``);
assigning to a field afterwards still raises."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ._limits import Limits
from ._types import NOT_GIVEN, Body, Headers, NotGiven, Query, Timeout

__all__ = ["PreparedCall", "RequestOptions"]


@dataclass(frozen=True)
class RequestOptions:
    """Per-call overrides every generated method accepts."""

    extra_headers: Headers | None = None
    extra_query: Query | None = None
    extra_body: Body | None = None
    timeout: Timeout | NotGiven = NOT_GIVEN
    max_retries: int | NotGiven = NOT_GIVEN
    limits: Limits | None = None

    def __init__(
        self,
        extra_headers: Headers | None = None,
        extra_query: Query | None = None,
        extra_body: Body | None = None,
        timeout: Timeout | NotGiven = NOT_GIVEN,
        max_retries: int | NotGiven = NOT_GIVEN,
        limits: Limits | None = None,
    ) -> None:
        # Made on every call: one dict update (see the module).
        self.__dict__.update(
            extra_headers=extra_headers,
            extra_query=extra_query,
            extra_body=extra_body,
            timeout=timeout,
            max_retries=max_retries,
            limits=limits,
        )


_NO_OPTIONS = RequestOptions()


@dataclass(frozen=True)
class PreparedCall:
    """Everything needed to (re-)send one call; pagination re-sends it with new query values."""

    method: str
    path: str
    path_params: Mapping[str, object] = field(default_factory=dict)
    query: Mapping[str, object] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    json: object = NOT_GIVEN
    content: bytes | str | None = None
    form: Mapping[str, object] | None = None
    files: Mapping[str, Any] | None = None
    options: RequestOptions = _NO_OPTIONS
    # Query parameters whose arrays are comma-joined (``explode: false``) instead of repeated.
    unexploded: frozenset[str] = frozenset()
    # Sent to the host's root (``/livez``), outside the base URL's path (``/cubejs-api``).
    host_root: bool = False

    def __init__(
        self,
        method: str,
        path: str,
        path_params: Mapping[str, object] | None = None,
        query: Mapping[str, object] | None = None,
        headers: Mapping[str, str] | None = None,
        json: object = NOT_GIVEN,
        content: bytes | str | None = None,
        form: Mapping[str, object] | None = None,
        files: Mapping[str, Any] | None = None,
        options: RequestOptions = _NO_OPTIONS,
        unexploded: frozenset[str] = frozenset(),
        host_root: bool = False,
    ) -> None:
        # Made on every call: see RequestOptions.__init__.
        self.__dict__.update(
            method=method,
            path=path,
            path_params={} if path_params is None else path_params,
            query={} if query is None else query,
            headers={} if headers is None else headers,
            json=json,
            content=content,
            form=form,
            files=files,
            options=options,
            unexploded=unexploded,
            host_root=host_root,
        )

    def with_query(self, **changes: object) -> PreparedCall:
        """A copy with query values changed; a ``NOT_GIVEN`` value removes that parameter."""
        return replace(self, query={**self.query, **changes})
