"""Drift rules, one family per module; importing this package registers all of them."""

from __future__ import annotations

from generator.drift.rules import (
    components,
    constraints,
    defaults,
    enums,
    operations,
    parameters,
    properties,
    request_body,
    response_headers,
    responses,
    schema_types,
    security,
    servers,
    variants,
)

__all__ = [
    "components",
    "constraints",
    "defaults",
    "enums",
    "operations",
    "parameters",
    "properties",
    "request_body",
    "response_headers",
    "responses",
    "schema_types",
    "security",
    "servers",
    "variants",
]
