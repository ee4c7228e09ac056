"""Path, query, header and cookie parameters: presence, required-ness, location, deprecation,
and (through the schema rules) their types and enums.

Parameters match by location and name (header names case-insensitively); path parameters match
by position, so renaming ``{id}`` to ``{deploymentId}`` is not a removal.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.diagnostics import join_pointer
from generator.drift.context import OperationPair
from generator.drift.model import Change
from generator.drift.operations import ParamView
from generator.drift.registry import define, operation_check

PARAMETER_ADDED = define(
    "request-parameter-added",
    "info",
    """A new optional keyword argument with a default: existing calls are unchanged.""",
)
PARAMETER_ADDED_REQUIRED = define(
    "request-parameter-added-required",
    "breaking",
    """A new required argument: every existing call lacks it (TypeError, mypy error) and the
    server rejects requests without it.""",
)
PARAMETER_REMOVED = define(
    "request-parameter-removed",
    "breaking",
    """The keyword argument disappears from the generated method, so calls that pass it fail
    with an unexpected keyword argument.""",
)
PARAMETER_BECAME_REQUIRED = define(
    "request-parameter-became-required",
    "breaking",
    """The argument loses its default: calls that omitted it stop type-checking and the server
    rejects them.""",
)
PARAMETER_BECAME_OPTIONAL = define(
    "request-parameter-became-optional",
    "info",
    """The argument gains a default; calls that pass it keep working.""",
)
PARAMETER_LOCATION_CHANGED = define(
    "request-parameter-location-changed",
    "warning",
    """Same name, new location (query to header, say): the generated method keeps the keyword
    argument and sends it in the new place, so calling code still works, but anything that
    builds raw requests, caches or proxies by URL, or relies on the old placement changes.""",
)
PARAMETER_DEPRECATED = define(
    "request-parameter-deprecated",
    "warning",
    """Still accepted; callers should stop passing it before it is removed.""",
)


def _where(param: ParamView) -> str:
    return f"{param.location} parameter `{param.name}`"


@operation_check
def parameters(op: OperationPair) -> Iterator[Change]:
    old, new = op.old.parameters, op.new.parameters
    removed = {k: p for k, p in old.items() if k not in new}
    added = {k: p for k, p in new.items() if k not in old}
    for key, param in list(added.items()):
        moved = next(
            (
                k
                for k, p in removed.items()
                if p.name.lower() == param.name.lower() and k[0] != "path"
            ),
            None,
        )
        if moved is not None and key[0] != "path":
            was = removed.pop(moved)
            del added[key]
            yield op.change(
                PARAMETER_LOCATION_CHANGED,
                param.pointer,
                f"{_where(param)}: moved from {was.location} to {param.location}",
            )
    for param in added.values():
        if param.required:
            yield op.change(
                PARAMETER_ADDED_REQUIRED,
                param.pointer,
                f"{_where(param)}: required parameter added",
            )
        else:
            yield op.change(PARAMETER_ADDED, param.pointer, f"{_where(param)}: parameter added")
    for param in removed.values():
        yield op.change(PARAMETER_REMOVED, param.pointer, f"{_where(param)}: parameter removed")
    for key, param in new.items():
        before = old.get(key)
        if before is None:
            continue
        if param.required and not before.required:
            yield op.change(
                PARAMETER_BECAME_REQUIRED,
                join_pointer(param.pointer, "required"),
                f"{_where(param)}: became required",
            )
        elif before.required and not param.required:
            yield op.change(
                PARAMETER_BECAME_OPTIONAL, param.pointer, f"{_where(param)}: became optional"
            )
        if param.deprecated and not before.deprecated:
            yield op.change(
                PARAMETER_DEPRECATED,
                join_pointer(param.pointer, "deprecated"),
                f"{_where(param)}: deprecated",
            )
        if before.schema is not None and param.schema is not None:
            op.compare_schemas(
                before.schema, param.schema, "request", "request-parameter", _where(param)
            )
