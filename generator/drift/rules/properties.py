"""Object properties appearing, disappearing, and changing between required and optional.

Requests are objects the caller builds and the client sends; responses are objects the client
parses and the caller reads. Properties marked ``readOnly`` are left out of requests and those
marked ``writeOnly`` out of responses, as the generated models do.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.drift.context import Finding, SchemaPair
from generator.drift.registry import define, schema_check
from generator.drift.schema_view import Sub, ViewBuilder

REQUEST_PROPERTY_ADDED = define(
    "request-property-added",
    "info",
    """A new optional request property: the generated model gains an optional field with a
    default, so every existing call still type-checks and sends what it sent before.""",
)
REQUEST_PROPERTY_ADDED_REQUIRED = define(
    "request-property-added-required",
    "breaking",
    """A new required request property: constructing the request model without it is a
    TypeError (and a mypy error), and a request built the old way is rejected by the server.""",
)
REQUEST_PROPERTY_REMOVED = define(
    "request-property-removed",
    "breaking",
    """The generated request model loses the field, so code that sets it stops type-checking
    and fails at run time with an unexpected keyword argument; the server would ignore or
    reject it anyway.""",
)
REQUEST_PROPERTY_BECAME_REQUIRED = define(
    "request-property-became-required",
    "breaking",
    """Callers that omitted the property now build an invalid request: the field loses its
    default in the model and the server rejects requests without it.""",
)
REQUEST_PROPERTY_BECAME_OPTIONAL = define(
    "request-property-became-optional",
    "info",
    """The field gains a default; code that always sets it keeps working.""",
)
RESPONSE_PROPERTY_ADDED = define(
    "response-property-added",
    "info",
    """The response model gains a field; code that does not read it is unaffected.""",
)
RESPONSE_PROPERTY_REMOVED = define(
    "response-property-removed",
    "breaking",
    """Code that reads the field gets an AttributeError (and a mypy error) with the regenerated
    client, or a missing value from a server that no longer sends it.""",
)
RESPONSE_PROPERTY_BECAME_OPTIONAL = define(
    "response-property-became-optional",
    "breaking",
    """A field that was always present may now be absent: its type widens to include the
    "not given" value, so code that used it directly stops type-checking and can fail when the
    server omits it.""",
)
RESPONSE_PROPERTY_BECAME_REQUIRED = define(
    "response-property-became-required",
    "info",
    """The server now promises the field; code that handled its absence keeps working.""",
)


def _hidden(builder: ViewBuilder, sub: Sub, pair: SchemaPair) -> bool:
    """readOnly properties are not part of a request, writeOnly ones not part of a response."""
    view = builder.view(sub.node, sub.pointer)
    return view.read_only if pair.direction == "request" else view.write_only


@schema_check
def property_presence(pair: SchemaPair) -> Iterator[Finding]:
    """Properties added or removed, and required-ness changed, on two object schemas."""
    old, new = pair.old, pair.new
    if not (old.object_like and new.object_like):
        return
    for name, nsub in new.properties.items():
        if _hidden(pair.new_views, nsub, pair):
            continue
        osub = old.properties.get(name)
        now_required = name in new.required
        if osub is None or _hidden(pair.old_views, osub, pair):
            if pair.direction == "request" and now_required:
                yield pair.property_finding("added-required", name, nsub, "required property added")
            else:
                yield pair.property_finding("added", name, nsub, "property added")
            continue
        was_required = name in old.required
        if was_required and not now_required:
            yield pair.property_finding("became-optional", name, nsub, "property became optional")
        elif now_required and not was_required:
            yield pair.property_finding("became-required", name, nsub, "property became required")
    for name, osub in old.properties.items():
        if name not in new.properties and not _hidden(pair.old_views, osub, pair):
            yield pair.property_finding("removed", name, osub, "property removed")
