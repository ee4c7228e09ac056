"""Request building helpers: paths, query strings, JSON bodies; pure functions."""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import pydantic

from ._types import NOT_GIVEN, NotGiven

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def build_path(template: str, params: Mapping[str, object]) -> str:
    """Fill ``{name}`` placeholders with percent-encoded values (never ``str.format``)."""
    parts = _template_parts(template)
    if len(parts) == 1:
        return template
    out = list(parts)
    for i in range(1, len(parts), 2):  # the odd parts are the placeholders' names
        value = params[parts[i]]
        # An int is digits and a sign: nothing to encode (the commonest path parameter).
        out[i] = str(value) if type(value) is int else _segment(parts[i], value)
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def _template_parts(template: str) -> tuple[str, ...]:
    """``/a/{id}/b`` as ``["/a/", "id", "/b"]``: literal text and placeholder names, alternating
    (split once per template; a generated client has a few hundred)."""
    return tuple(_PLACEHOLDER.split(template))


def _segment(name: str, value: object) -> str:
    if value is None or value == "":
        raise ValueError(f"path parameter {name!r} must not be empty")
    text = quote(_scalar(value), safe="")
    # "." and ".." would be resolved away as dot segments and change the endpoint.
    return text.replace(".", "%2E") if text in (".", "..") else text


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    return str(value)


def build_query(
    params: Mapping[str, object], unexploded: frozenset[str] = frozenset()
) -> list[tuple[str, str | int | float | bool | None]]:
    """Query pairs, omitting not-given values; lists repeat the key (form style, explode),
    or are joined with commas for the parameters in ``unexploded`` (``explode: false``)."""
    pairs: list[tuple[str, str | int | float | bool | None]] = []
    for key, value in params.items():
        if value is NOT_GIVEN or value is None or isinstance(value, NotGiven):
            continue
        if isinstance(value, (list, tuple)):
            if key in unexploded:
                pairs.append((key, ",".join(_scalar(v) for v in value)))
            else:
                pairs.extend((key, _scalar(v)) for v in value)
        elif isinstance(value, Mapping):
            pairs.extend((f"{key}[{k}]", _scalar(v)) for k, v in value.items())
        else:
            pairs.append((key, _scalar(value)))
    return pairs


def build_headers(params: Mapping[str, object]) -> dict[str, str]:
    return {
        k: _scalar(v) for k, v in params.items() if not isinstance(v, NotGiven) and v is not None
    }


def strip_not_given(fields: Mapping[str, object]) -> dict[str, object]:
    """Drop omitted fields; explicit ``None`` stays and is sent as JSON null."""
    return {k: v for k, v in fields.items() if not isinstance(v, NotGiven)}


def form_fields(value: object) -> dict[str, object]:
    """A form body given whole (a model or a mapping) as its fields, by wire name."""
    if isinstance(value, pydantic.BaseModel):
        return dict(value.model_dump(mode="python", by_alias=True, exclude_unset=True))
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    raise TypeError(f"a form body must be a model or a mapping, not {type(value).__name__}")


def querystring_fields(value: object) -> dict[str, object]:
    """The whole query string given as one object (OpenAPI 3.2 ``in: querystring``, form
    encoded) as its fields by wire name; nothing when it is not given."""
    if isinstance(value, NotGiven) or value is None:
        return {}
    return form_fields(value)


def to_jsonable(value: Any) -> Any:
    """Models, dates and containers as plain JSON values (models by alias, unset fields left
    out)."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items() if not isinstance(v, NotGiven)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    return value


def resolve_credential(value: str | None, env: str, param: str) -> str:
    """The credential from the argument or the environment; missing is an error now, not a 401
    later."""
    import os

    from ._exceptions import ConfigurationError

    credential = value if value is not None else os.environ.get(env)
    if not credential or not credential.strip():
        raise ConfigurationError(
            f"missing credential: pass {param}=... or set the {env} environment variable"
        )
    if any(c in credential for c in "\r\n\x00"):
        raise ConfigurationError(f"{param} contains a line break or NUL; refusing to send it")
    return credential


def resolve_base_url(
    value: str | None,
    env: str,
    template: str,
    variables: Mapping[str, str | None],
    defaults: Mapping[str, str],
) -> str:
    """An explicit base URL, else the environment's, else the server template with its variables.

    A URL given as an origin only (``https://acme.example``, no path) keeps the server's own base
    path (SCIM's ``/api``, the data API's ``/cubejs-api``): one tenant host serves every family.
    A path that names something (the chat API's account and agent) must then be given as its
    keyword arguments. A URL with any path, ``/`` included, is used exactly as given.

    Without a URL, a variable's ``default`` in a document is an example (``your-tenant``), not
    configuration: a credential must never travel to a host nobody chose. So every variable must
    be given, except a base path (a default starting with ``/``), part of the API, not the host.
    """
    import os

    from ._exceptions import ConfigurationError

    given = value or (os.environ.get(env, "") if env else "")
    if given:
        if not template or urlsplit(given).path:
            return given
        missing = _missing(template, variables, defaults, path_only=True)
        if missing:
            raise ConfigurationError(
                f"{given} is a host only and the API's path needs {_args(missing)}: pass them, "
                "or give the base URL in full; the document's example values are never used"
            )
        return given + urlsplit(_expand_server(template, variables, defaults)).path
    if not template:
        raise ConfigurationError(
            f"no server URL is known: pass base_url=... or set {env or 'base_url'}"
        )
    missing = _missing(template, variables, defaults, path_only=False)
    if missing:
        raise ConfigurationError(
            f"no server chosen: pass base_url=... (or set {env or 'base_url'}), or "
            f"{_args(missing)}; the document's example values are never used as a host"
        )
    return _expand_server(template, variables, defaults)


def _missing(
    template: str,
    variables: Mapping[str, str | None],
    defaults: Mapping[str, str],
    *,
    path_only: bool,
) -> list[str]:
    """The template's variables the caller must give: all but a base path (a default starting
    with ``/``, part of the API); with ``path_only``, only those after the host."""
    host_end = _host_end(template) if path_only else 0
    return list(
        dict.fromkeys(
            match.group(1)
            for match in _PLACEHOLDER.finditer(template)
            if match.start() >= host_end
            and variables.get(match.group(1)) is None
            and not defaults.get(match.group(1), "").startswith("/")
        )
    )


def _args(names: list[str]) -> str:
    return ", ".join(f"{_snake(name)}=..." for name in names)


def _host_end(template: str) -> int:
    scheme_end = template.find("://")
    host_end = template.find("/", scheme_end + 3) if scheme_end >= 0 else -1
    return len(template) if host_end < 0 else host_end


def _expand_server(
    template: str, variables: Mapping[str, str | None], defaults: Mapping[str, str]
) -> str:
    """The server template with its variables, each checked for where it stands in the URL."""
    from ._exceptions import ConfigurationError

    host_end = _host_end(template)

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        given = variables.get(name)
        chosen = given if given is not None else defaults.get(name, "")
        in_host = match.start() < host_end
        if in_host and not defaults.get(name, "").startswith("/"):
            # Part of the host name: a DNS label, nothing that could move the request elsewhere.
            if not _HOST_PART.fullmatch(chosen):
                raise ConfigurationError(
                    f"server variable {name!r} must be a host name part (letters, digits, . and -)"
                )
        elif in_host and chosen and not chosen.startswith("/"):
            raise ConfigurationError(
                f"server variable {name!r} is a base path and must start with /"
            )
        if any(c in chosen for c in "?#@ \\\r\n\t") or "/../" in chosen + "/":
            raise ConfigurationError(
                f"server variable {name!r} must not contain ? # @ .. backslashes or spaces"
            )
        return chosen

    return _PLACEHOLDER.sub(fill, template)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


_HOST_PART = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")


def cookie_header(cookies: Mapping[str, object]) -> str | NotGiven:
    """One ``Cookie`` header value for all cookie parameters given; omitted ones stay omitted."""
    pairs = [
        f"{quote(name, safe='')}={quote(_scalar(value), safe='')}"
        for name, value in cookies.items()
        if not isinstance(value, NotGiven) and value is not None
    ]
    return "; ".join(pairs) if pairs else NotGiven()
