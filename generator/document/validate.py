"""Structural validation of an OpenAPI document with openapi-pydantic (3.0, 3.1 and 3.2).

Errors become diagnostics pointing at the offending node. Errors a client can live without are
worked around in place, each with a warning: an invalid schema keyword is dropped (draft-4 tuple
``items: [...]`` becomes ``prefixItems``), an invalid parameter is left out. :func:`validate`
returns those warnings beside the document. Anything else is fatal.
Swagger 2.0 is recognised and refused with a message that says so.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from generator.diagnostics import CodegenError, Diagnostic, one_line, pointer
from generator.document.openapi_paths import ADDITIONAL, additional_method_problem, path_operations

_MAX_ROUNDS = 8
_SCHEMA_CONTAINERS = frozenset(
    {"schema", "properties", "items", "allOf", "anyOf", "oneOf", "not", "additionalProperties",
     "prefixItems", "patternProperties", "$defs", "definitions", "contains", "if", "then", "else",
     "dependentSchemas", "propertyNames", "unevaluatedItems", "unevaluatedProperties"}
)  # fmt: skip


def openapi_version(doc: Any, file: str) -> str:
    if not isinstance(doc, dict):
        raise _fail(file, "", "not an OpenAPI document: the top level is not a mapping")
    if "swagger" in doc:
        raise _fail(
            file,
            "/swagger",
            f"Swagger {one_line(doc.get('swagger'), 20)} is not supported; "
            "convert the document to OpenAPI 3.0 or 3.1 first",
            "swagger-unsupported",
        )
    version = doc.get("openapi")
    if not isinstance(version, str):
        raise _fail(file, "/openapi", "not an OpenAPI document: `openapi` version is missing")
    if not version.startswith(("3.0.", "3.1.", "3.2.")) and version not in ("3.0", "3.1", "3.2"):
        raise _fail(
            file, "/openapi", f"OpenAPI {one_line(version, 20)} is not supported (3.0, 3.1, 3.2)"
        )
    paths = doc.get("paths")
    # a document of models only (no `paths`, but components or webhooks) is generated with a
    # warning; one with nothing to generate is not an API description
    has_other = any(isinstance(doc.get(k), dict) and doc[k] for k in ("components", "webhooks"))
    if not isinstance(paths, dict) and not (paths is None and has_other):
        raise _fail(file, "/paths", "`paths` must be a mapping of path keys to path items")
    return version


def validate(doc: dict[str, Any], file: str) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Validate against the OpenAPI object model of the document's version.

    Returns the document (worked around where a client can live without a part) and a warning
    per workaround."""
    version = openapi_version(doc, file)
    if version.startswith("3.0"):
        from openapi_pydantic.v3.v3_0 import OpenAPI as Model30

        model: Any = Model30
    else:
        from openapi_pydantic.v3.v3_1 import OpenAPI as Model31

        model = Model31
    if version.startswith("3.2"):
        # openapi-pydantic has no 3.2 model: 3.2 is 3.1 plus fields it keeps as extras
        # (``itemSchema``, ``$self``, tag ``parent``/``kind``); the ``query`` method and
        # ``additionalOperations`` are checked here as operations of their own.
        _check_32_operations(doc, file)
        hidden = _querystring_parameters(doc)
        for p in hidden:  # validated as the query parameter with ``content`` it otherwise is
            p["in"] = "query"
        try:
            checked, repairs = _validate(model, {**doc, "openapi": "3.1.0"}, file)
        finally:
            for p in hidden:
                p["in"] = "querystring"
        return {**checked, "openapi": version}, repairs
    return _validate(model, doc, file)


def _validate(
    model: Any, doc: dict[str, Any], file: str
) -> tuple[dict[str, Any], list[Diagnostic]]:
    repairs: list[Diagnostic] = []
    for _ in range(_MAX_ROUNDS):
        try:
            model.model_validate(doc)
        except ValidationError as exc:
            errors = exc.errors()
            fixes = _repairs(doc, errors)
            if not fixes:
                raise CodegenError([_diagnostic(doc, file, e) for e in errors[:20]]) from None
            repairs.extend(
                Diagnostic("openapi-repaired", "warning", file, ptr, message)
                for ptr, message in fixes
            )
        except RecursionError:
            raise _fail(file, "", "document nests too deeply to validate") from None
        else:
            return doc, repairs
    raise _fail(file, "", "document has too many invalid parts to work around")


def _check_32_operations(doc: dict[str, Any], file: str) -> None:
    """The operations openapi-pydantic keeps as extras: ``query`` and ``additionalOperations``."""
    from openapi_pydantic.v3.v3_1 import Operation

    paths = doc.get("paths")
    for path, item in paths.items() if isinstance(paths, dict) else ():
        if not isinstance(item, dict):
            continue
        found: list[tuple[tuple[str, ...], Any]] = []
        if "query" in item:
            found.append((("query",), item["query"]))
        extra = item.get(ADDITIONAL)
        if ADDITIONAL in item and not isinstance(extra, dict):
            raise _fail(file, pointer("paths", path, ADDITIONAL), "must be a mapping")
        for name, op in extra.items() if isinstance(extra, dict) else ():
            problem = additional_method_problem(name)
            if problem is not None:
                where = pointer("paths", path, ADDITIONAL, name)
                raise _fail(file, where, f"{one_line(name, 40)} {problem}")
            found.append(((ADDITIONAL, name), op))
        for keys, op in found:
            try:
                Operation.model_validate(op)
            except ValidationError as exc:
                err = exc.errors()[0]
                where = pointer("paths", path, *keys, *err["loc"])
                raise _fail(file, where, f"{err['msg']} (OpenAPI object model)") from None


def _querystring_parameters(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAPI 3.2's ``in: querystring`` parameters, where parameters are written."""
    lists: list[Any] = list(_obj(_obj(doc.get("components")).get("parameters")).values())
    for item in _obj(doc.get("paths")).values():
        lists.extend(_list(_obj(item).get("parameters")))
        for _, _, op in path_operations(item):
            lists.extend(_list(_obj(op).get("parameters")))
    return [p for p in lists if isinstance(p, dict) and p.get("in") == "querystring"]


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _real_tokens(doc: Any, loc: Any) -> list[str]:
    """The error location as document keys: openapi-pydantic adds union branch names (model and
    type names) to ``loc``; a token is kept when it is a key of the node reached so far, or when
    it does not look like such a branch name (a missing required field)."""
    out: list[str] = []
    node: Any = doc
    for raw in loc:
        token = str(raw)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and isinstance(raw, int) and 0 <= raw < len(node):
            node = node[raw]
        elif isinstance(raw, int) or _is_model_token(token):
            continue
        else:
            node = None
        out.append(token)
    return out


def _repairs(doc: dict[str, Any], errors: list[Any]) -> list[tuple[str, str]]:
    """Apply the workarounds ``errors`` allow; ``[]`` when one of them has none."""
    targets: dict[tuple[str, ...], str] = {}
    top: list[tuple[str, str]] = []
    for err in errors:
        tokens = _real_tokens(doc, err["loc"])
        if tokens == ["paths"] and "paths" not in doc:
            doc["paths"] = {}
            top.append(("/paths", "no `paths`: only models are generated"))
            continue
        if tokens[:1] == ["info"] and "info" not in doc:
            doc["info"] = {"title": "API", "version": "0"}
            top.append(("/info", "no `info` object: the API is called `API`, version 0"))
            continue
        target = _repair_target(doc, tokens)
        if target is None:
            return []
        targets.setdefault(target, one_line(our_words(err, tokens), 120))
    # an error inside another error's target is fixed with it; deepest first keeps indexes valid
    chosen = [t for t in targets if not any(o != t and o[: len(t)] == t for o in targets)]
    out = top
    for target in sorted(chosen, key=_sort_key, reverse=True):
        out.append((pointer(*target), _apply(doc, target, targets[target])))
    return out


def _sort_key(tokens: tuple[str, ...]) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(t)) if t.isascii() and t.isdigit() else (1, t) for t in tokens)


def _resolves(doc: Any, tokens: tuple[str, ...]) -> bool:
    node = doc
    for t in tokens:
        if isinstance(node, dict) and t in node:
            node = node[t]
        elif isinstance(node, list) and t.isascii() and t.isdigit() and int(t) < len(node):
            node = node[int(t)]
        else:
            return False
    return True


def _repair_target(doc: Any, tokens: list[str]) -> tuple[str, ...] | None:
    """The node to drop or replace for an error at ``tokens``: a schema part, or a parameter."""
    start = None  # the length of the path to the outermost schema holding the error
    if tokens[:2] == ["components", "schemas"] and len(tokens) > 2:
        start = 3
    elif "schema" in tokens[1:]:
        start = tokens.index("schema", 1) + 1
    path = tuple(tokens)
    while path and not _resolves(doc, path):
        path = path[:-1]
    if start is not None and len(path) >= start:
        if len(path) > start and path[-2] in ("type", "required", "enum"):
            path = path[:-1]  # repair the keyword, not one entry of its list
        return path
    for i in range(len(tokens) - 1, 0, -1):
        if tokens[i - 1] == "parameters" and tokens[i].isdigit() and tokens[0] == "paths":
            return tuple(tokens[: i + 1])
    return None


_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def _apply(doc: Any, target: tuple[str, ...], reason: str) -> str:
    parent: Any = doc
    for t in target[:-1]:
        parent = parent[int(t)] if isinstance(parent, list) else parent[t]
    key = target[-1]
    if isinstance(parent, list):
        if target[-2] == "parameters" and "schema" not in target:
            del parent[int(key)]
            return f"invalid parameter left out: {reason}"
        parent[int(key)] = {}
        return f"invalid schema replaced by an unconstrained one: {reason}"
    value = parent[key]
    if key == "type" and (value is None or (isinstance(value, list) and None in value)):
        parent[key] = "null" if value is None else ["null" if v is None else v for v in value]
        return "unquoted `null` in `type` read as the type name `null`"
    if key == "items" and isinstance(value, list):
        del parent[key]
        parent["prefixItems"] = [v if isinstance(v, (dict, bool)) else {} for v in value]
        parent.setdefault("minItems", len(value))
        parent.setdefault("maxItems", len(value))
        return "draft-4 tuple `items: [...]` read as `prefixItems`"
    root = len(target) == 3 and target[:2] == ("components", "schemas")
    if root or key == "schema" or target[-2] in _SCHEMA_MAPS:
        parent[key] = {}
        return f"invalid schema replaced by an unconstrained one: {reason}"
    del parent[key]
    return f"invalid schema keyword `{one_line(key, 40)}` ignored: {reason}"


def _diagnostic(doc: Any, file: str, err: Any) -> Diagnostic:
    loc = _real_tokens(doc, err["loc"])
    message = f"{our_words(err, loc)} (OpenAPI object model)"
    return Diagnostic("openapi-invalid", "error", file, pointer(*loc), message)


_TYPE_WORDS = {
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "dict_type": "must be a mapping",
    "model_type": "must be a mapping",
    "model_attributes_type": "must be a mapping",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "set_type": "must be a list",
    "none_required": "must be null",
    "url_parsing": "is not a valid URL",
    "url_type": "must be a URL string",
    "string_pattern_mismatch": "does not have the required form",
    "string_too_short": "is too short",
    "too_short": "has too few entries",
    "greater_than_equal": "is below the allowed minimum",
    "frozen_set_type": "must be a list",
}


def our_words(err: Any, loc: list[str] | None = None) -> str:
    """A validation error in the project's words, never the library's: what is wrong with the
    value at its location. ``err`` is one entry of a pydantic ``ValidationError.errors()``."""
    kind = str(err.get("type", ""))
    tokens = [str(t) for t in (loc if loc is not None else err.get("loc", ()))]
    name = tokens[-1] if tokens else "value"
    if tokens == ["openapi"]:
        return "`openapi` must be a full version such as 3.0.3 or 3.1.0"
    if kind == "missing":
        return f"required field `{one_line(name, 60)}` is missing"
    if kind == "extra_forbidden":
        return f"`{one_line(name, 60)}` is not allowed here"
    if kind in ("literal_error", "enum"):
        expected = one_line((err.get("ctx") or {}).get("expected", ""), 120)
        return f"must be one of {expected}" if expected else "is not one of the allowed values"
    if kind in ("value_error", "assertion_error"):
        reason = (err.get("ctx") or {}).get("error")
        return f"is not valid: {one_line(reason, 160)}" if reason else "is not valid here"
    if kind in _TYPE_WORDS:
        return _TYPE_WORDS[kind]
    return "does not have the shape this OpenAPI object needs"


def _is_model_token(token: str) -> bool:
    """A union branch name openapi-pydantic puts in ``loc``: ``Reference``, ``str-enum[X]``."""
    return token[:1].isupper() or "[" in token or token in ("function-after", "function-before")


def _fail(file: str, ptr: str, message: str, id: str = "openapi-invalid") -> CodegenError:
    return CodegenError(Diagnostic(id, "error", file, ptr, message))
