"""Our own JSON Schemas for Overlay 1.0.x and 1.1.x documents, written from the specification text.

The OAI publishes informative schemas; ours encode the same rules (required fields, types, at
least one action, ``remove`` boolean, ``x-`` extensions, targets starting with ``$``, ``copy`` and
``info.description`` only from 1.1) plus two decisions of ours: an action may not carry both
``update`` and ``copy`` (the 1.1 text says each one "has no impact" when the other is given, which
cannot both hold), and ``x-cube-optional`` must be a boolean. Errors become one-line diagnostics
with the JSON pointer of the offending value.
"""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from generator.diagnostics import CodegenError, Diagnostic, one_line, pointer
from generator.overlay.model import OPTIONAL_EXTENSION
from generator.overlay.values import json_equal, json_type

INVALID = "overlay-invalid"

SUPPORTED = {"1.0": re.compile(r"^1\.0\.\d+$"), "1.1": re.compile(r"^1\.1\.\d+$")}

_EXTENSIONS = {"patternProperties": {"^x-": True}}
_ANY_JSON = ["string", "boolean", "object", "array", "number", "null"]


def overlay_schema(feature_set: str) -> dict[str, Any]:
    """The schema for one feature set (``"1.0"`` or ``"1.1"``)."""
    if feature_set not in SUPPORTED:
        raise ValueError(f"unsupported overlay feature set {feature_set!r}")
    v11 = feature_set == "1.1"
    info_props: dict[str, Any] = {"title": {"type": "string"}, "version": {"type": "string"}}
    action_props: dict[str, Any] = {
        "target": {"type": "string", "pattern": r"^\$"},
        "description": {"type": "string"},
        "update": {"type": _ANY_JSON},
        "remove": {"type": "boolean", "default": False},
        OPTIONAL_EXTENSION: {"type": "boolean"},
    }
    action: dict[str, Any] = {
        "type": "object",
        "properties": action_props,
        "required": ["target"],
        "$ref": "#/$defs/extensions",
        "unevaluatedProperties": False,
    }
    if v11:
        info_props["description"] = {"type": "string"}
        action_props["copy"] = {"type": "string", "pattern": r"^\$"}
        action["not"] = {"type": "object", "required": ["update", "copy"]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:cube-codegen:overlay:{feature_set}",
        "type": "object",
        "properties": {
            "overlay": {"type": "string", "pattern": SUPPORTED[feature_set].pattern},
            "info": {"$ref": "#/$defs/info"},
            "extends": {"type": "string", "format": "uri-reference"},
            "actions": {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"$ref": "#/$defs/action"},
            },
        },
        "required": ["overlay", "info", "actions"],
        "$ref": "#/$defs/extensions",
        "unevaluatedProperties": False,
        "$defs": {
            "info": {
                "type": "object",
                "properties": info_props,
                "required": ["title", "version"],
                "$ref": "#/$defs/extensions",
                "unevaluatedProperties": False,
            },
            "action": action,
            "extensions": _EXTENSIONS,
        },
    }


_VALIDATORS = {fs: Draft202012Validator(overlay_schema(fs)) for fs in SUPPORTED}


def feature_set_of(doc: Any, file: str) -> str:
    """Read the ``overlay`` field and pick the feature set; anything else is a one-line error."""
    if not isinstance(doc, dict):
        raise _invalid(file, "", f"an overlay document must be an object, not {json_type(doc)}")
    if "overlay" not in doc:
        raise _invalid(file, "", "'overlay' is required (the Overlay Specification version)")
    version = doc["overlay"]
    if not isinstance(version, str):
        raise _invalid(file, "/overlay", f"must be a version string, not {json_type(version)}")
    for feature_set, rx in SUPPORTED.items():
        if rx.match(version):
            return feature_set
    raise _invalid(
        file,
        "/overlay",
        f"unsupported overlay version {one_line(repr(version), 40)} (supported: 1.0.x, 1.1.x)",
    )


def validate_overlay_document(doc: Any, file: str) -> str:
    """Validate a parsed overlay document; returns its feature set or raises CodegenError."""
    feature_set = feature_set_of(doc, file)
    errors = sorted(_VALIDATORS[feature_set].iter_errors(doc), key=_order)
    if errors:
        # dict.fromkeys: jsonschema reports "required" once per missing name, each listing all.
        diagnostics = dict.fromkeys(d for e in errors for d in _describe(e, doc, file, feature_set))
        raise CodegenError(list(diagnostics))
    return feature_set


def _order(error: ValidationError) -> tuple[str, ...]:
    return tuple(f"{t:08d}" if isinstance(t, int) else t for t in error.absolute_path)


def _invalid(file: str, ptr: str, message: str) -> CodegenError:
    return CodegenError(Diagnostic(INVALID, "error", file, ptr, message))


def _diag(file: str, ptr: str, message: str) -> Diagnostic:
    return Diagnostic(INVALID, "error", file, ptr, message)


def _describe(error: ValidationError, doc: Any, file: str, feature_set: str) -> list[Diagnostic]:
    """Turn one schema error into diagnostics a person can act on without reading the schema."""
    tokens = list(error.absolute_path)
    value = error.instance
    keyword = error.validator
    if keyword == "required" and isinstance(value, dict):
        wanted: list[str] = list(error.validator_value)  # type: ignore[arg-type]
        missing = [name for name in wanted if name not in value]
        return [_diag(file, pointer(*tokens), f"'{name}' is required") for name in missing]
    if keyword == "unevaluatedProperties" and isinstance(value, dict):
        return _unknown_properties(error, value, file, tokens, feature_set)
    if keyword == "uniqueItems" and isinstance(value, list):
        return [_duplicate(value, file, tokens)]
    return [_diag(file, pointer(*tokens), _message(error, tokens, feature_set))]


def _message(error: ValidationError, tokens: list[Any], feature_set: str) -> str:
    value = error.instance
    keyword = error.validator
    message = one_line(error.message)
    if keyword == "type":
        expected = error.validator_value
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        message = f"must be {_article(wanted)}, not {json_type(value)}"
    elif keyword == "minItems":
        message = "must contain at least one action"
    elif keyword == "pattern" and tokens and tokens[-1] in ("target", "copy"):
        message = f"{one_line(repr(value), 80)} is not a JSONPath query: it must start with '$'"
    elif keyword == "pattern" and tokens == ["overlay"]:
        message = f"version {one_line(repr(value), 40)} does not match {feature_set}.x"
    elif keyword == "not" and tokens and tokens[0] == "actions":
        message = "an action cannot have both 'update' and 'copy'"
    return message


def _article(wanted: str) -> str:
    return {"object": "an object", "array": "an array", "integer": "an integer"}.get(
        wanted, f"a {wanted}" if " or " not in wanted else wanted
    )


def _unknown_properties(
    error: ValidationError, value: dict[str, Any], file: str, tokens: list[Any], feature_set: str
) -> list[Diagnostic]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    known = set(schema.get("properties", {}))
    out = []
    for name in value:
        if name in known or name.startswith("x-"):
            continue
        message = f"unknown property '{one_line(name, 60)}'"
        if feature_set == "1.0" and name in ("copy", "description"):
            message += " in overlay 1.0.x (added in 1.1.0)"
        else:
            allowed = ", ".join(sorted(known))
            message += f" (allowed: {allowed} and x- extensions)"
        out.append(_diag(file, pointer(*tokens, name), message))
    return out or [_diag(file, pointer(*tokens), one_line(error.message))]


def _duplicate(actions: list[Any], file: str, tokens: list[Any]) -> Diagnostic:
    for later, item in enumerate(actions):
        for earlier in range(later):
            if json_equal(actions[earlier], item):
                message = f"action #{later} repeats action #{earlier}; actions must be unique"
                return _diag(file, pointer(*tokens, later), message)
    return _diag(file, pointer(*tokens), "actions must be unique")
