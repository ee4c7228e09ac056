"""The fuzzer's parts: documents built from nothing, real documents damaged, and one audited run.

:func:`build_document` draws a small OpenAPI 3.x document (names from a pool of hostile,
unicode and reserved words or free text, nested schemas with length, range, pattern and enum
constraints, `$ref`s to components including cycles and long chains, references to files
beside it and outside its folder, request encodings). :func:`mutate_document` takes the part of
one of the project's own ``spec/*.yaml`` documents that a few paths reach and deletes, renames,
retargets and retypes what it holds. :func:`encode` writes either as JSON or YAML bytes in one
of several encodings.

:func:`run_example` lays the files out as a small project, runs ``cube-codegen generate`` on it
in a fresh interpreter (``fuzz_child.py``: memory and CPU limits, an audit hook installed before
the generator is imported, then an import of every generated module) and returns an
:class:`Outcome` whose :meth:`Outcome.problems` lists what broke a rule: a traceback, a signal, an
exit code other than 0 and 2, a stderr of more than one line with exit 2, a hang past the
timeout, a package that does not import, a file read outside the project's allowed folders, a
file written outside the output folder (by the audit log and by comparing the folders).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from tests.helpers import TYPED_PACKAGE, node_paths, stamp_by_content

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("fuzz_child.py")
SPEC_FILES = ("platform-api.yaml", "scim-api.yaml", "data-api.yaml", "chat-api.yaml")
PACKAGE = TYPED_PACKAGE  # its runtime is in the mypy seed
CANARY = "fuzz-canary: {type: string, description: secret text that must never be read}\n"

# Names with a history: keywords, builtins, what generated modules import, pydantic's own
# attributes, dunders, unicode, invisible and control characters, separators, empty, long.
NAME_POOL = [
    "id",
    "name",
    "type",
    "class",
    "def",
    "None",
    "True",
    "False",
    "self",
    "cls",
    "list",
    "dict",
    "str",
    "int",
    "float",
    "bool",
    "bytes",
    "object",
    "Any",
    "Open",
    "BaseModel",
    "Field",
    "Optional",
    "Literal",
    "Union",
    "Annotated",
    "ClassVar",
    "model_config",
    "model_fields",
    "model_dump",
    "validate",
    "schema",
    "copy",
    "json",
    "fields",
    "items",
    "keys",
    "get",
    "__init__",
    "__class__",
    "__dict__",
    "_private",
    "_",
    "__",
    "1st",
    "2",
    "with space",
    "kebab-case",
    "dotted.name",
    "slash/name",
    "CamelCase",
    "camelCase",
    "ALLCAPS",
    "snake_case",
    "é",
    "naïve",
    "Straße",
    "中文",
    "名前",
    "Ωmega",
    "emoji😀",
    "zero\u200bwidth",
    "rtl\u202eevil",
    "tab\tname",
    "new\nline",
    "quote'\"",
    "back\\slash",
    "$dollar",
    "@at",
    "{brace}",
    "",
    "import",
    "async",
    "await",
    "lambda",
    "yield",
    "match",
    "case",
    "httpx",
    "httpx2",
    "typing",
    "datetime",
    "date",
    "UUID",
    "Decimal",
    "Client",
    "AsyncClient",
    "Response",
    "Error",
    "ApiError",
    "Page",
    "client",
    "close",
    "request",
    "with_options",
    "timeout",
    "headers",
    "base_url",
    "api_key",
    "a" * 120,
    "x" * 8 + "é" * 8,
]


def _runtime_names() -> list[str]:
    """Every name the templates bind, as the generator derives them (the client constructors',
    the operation methods', the model modules' and the generated tests'): a document may use
    any of them (``strict``, ``resolve_base_url``, ``cast``, ``Unknown``)."""
    from generator.ir.bound_names import bound_names

    bound = bound_names()
    names = bound.client | bound.arguments | bound.body | bound.module
    return sorted(n for n in names if n.isidentifier() and not n.startswith("__"))


RUNTIME_NAMES = _runtime_names()
NAME_POOL += RUNTIME_NAMES
# Component names OpenAPI allows (``^[a-zA-Z0-9.\-_]+$``) from the pool above.
COMPONENT_POOL = [n for n in NAME_POOL if n and re.fullmatch(r"[A-Za-z0-9._-]+", n)]
PATTERNS = [
    "^[a-z]+$",
    r"^\d{3}-\d{4}$",
    "^(a|b)*$",
    "^[A-Z][a-z]{2,5}$",
    ".*",
    "^$",
    "(a)\\1",
    "^[^\\s]+$",
    "(?=a)a",
    "(a+)+$",
    "a{5,}b?",
    "^\u00e9+$",
    "^[a-z]{1000}$",
    "\\w{3,}",
]
BAD_PATTERNS = ["(", "[z-a]", "x{2,1}", "(?P<n>", "\\", r"^\p{L}+$", "[[:alpha:]]", "a{1000000}"]
FORMATS = [
    "date",
    "date-time",
    "time",
    "uuid",
    "email",
    "uri",
    "byte",
    "binary",
    "int32",
    "int64",
    "float",
    "double",
    "password",
    "decimal",
    "duration",
    "ipv4",
    "hostname",
    "weird-format",
]
CONTENT_TYPES = [
    "application/json",
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "text/plain",
    "application/octet-stream",
    "text/event-stream",
    "application/vnd.api+json",
    "*/*",
    "application/json; charset=utf-8",
    "application/xml",
]
BAD_CONTENT_TYPES = ["not a type", "", "application/json\n"]
STATUSES = ["200", "200", "201", "202", "204", "301", "400", "404", "default", "4XX", "5XX"]
BAD_STATUSES = ["999", "x", "20", "2XXX"]
METHODS = ["get", "post", "put", "patch", "delete", "head", "options", "trace"]
SERVERS = [
    "https://api.example.com",
    "https://api.example.com/v1/",
    "/relative/base",
    "http://{host}:{port}/v1",
    "https://api.example.com/{version}",
]
BAD_SERVERS = [
    "",
    "https://api.example.com/\nX-Injected: 1",
    "javascript:alert(1)",
    "ftp://api.example.com",
    "https://user:pass@api.example.com",
    "https://[::1]:8080",
    "http://{unclosed/v1",
]
VERSIONS = ["3.0.3", "3.0.0", "3.1.0", "3.1.1", "3.2.0"]
BAD_VERSIONS = ["2.0", "3.9.9", "3", "", "4.0.0"]
# References to files: beside the document (followed), and those a sandboxed run must never
# open: above the document's folder, outside the project, absolute, URI forms, encoded, a
# symlink that leads out, devices, remote, and malformed pointers.
FILE_REFS = [
    "other.yaml#/Thing",
    "./other.yaml#/Thing",
    "sub/../other.yaml#/Thing",
    "other.yaml#/Alias",
]
BAD_FILE_REFS = [
    "other.yaml",
    "other.yaml#/Missing",
    "other.yaml#/Loop",
    "missing.yaml#/Thing",
    "link.yaml#/fuzz-canary",
    "link.yaml",
    "../secret.yaml#/fuzz-canary",
    "../../outside/canary.yaml#/fuzz-canary",
    "%2e%2e/secret.yaml#/fuzz-canary",
    "..%2Fsecret.yaml#/fuzz-canary",
    "/etc/hostname",
    "/etc/passwd#/root",
    "file:///etc/passwd",
    "file:../secret.yaml",
    "..\\secret.yaml#/fuzz-canary",
    "/proc/self/environ",
    "/dev/zero",
    "sub",
    "http://127.0.0.1:9/x.yaml#/A",
    "https://example.com/x.yaml",
    "#/",
    "#",
    "",
    "#/components/schemas/",
    "#/paths",
    "#/components/schemas/Missing/properties/x",
]
OTHER_DOC = {
    "Thing": {"type": "object", "properties": {"v": {"type": "string", "maxLength": 9}}},
    "Alias": {"$ref": "#/Thing"},
    "Loop": {"$ref": "other.yaml#/Loop"},
}
HUGE = [10**9, 200_000_000, 2**63, 10**30]
LENGTHS: list[Any] = [0, 1, 2, 5, 64, 5000, 0, 1, 3, 10]
BAD_LENGTHS: list[Any] = [-1, 2.5, "3", None, True]
BOUNDS: list[Any] = [0, 1, -1, 10, 2.5, -(2**63), 2**64, 10**30, 100, -7]
BAD_BOUNDS: list[Any] = ["x", None, [], float("inf")]


@dataclass
class Context:
    """What a document being built knows, and its source of choices.

    Choices come from one ``random.Random`` seeded by hypothesis (uniform, unlike its own
    integers and floats, which lean to the ends of their ranges); free-form names come from
    hypothesis' text strategies. A ``hostile`` document also takes, now and then, values that
    break the specification (bad versions, patterns, lengths, references, URLs); a clean one
    takes only valid values, though still hostile names, so that many runs reach exit 0.
    """

    data: st.DataObject
    rnd: random.Random
    version: str
    components: list[str]
    hostile: bool

    def chance(self, p: float = 0.5) -> bool:
        return self.rnd.random() < p

    def pick(self, values: list[Any]) -> Any:
        return self.rnd.choice(values)

    def pick_or_bad(self, good: list[Any], bad: list[Any], p: float = 0.08) -> Any:
        """A valid value, or in a hostile document with chance ``p``, an invalid one."""
        return self.pick(bad) if self.hostile and self.chance(p) else self.pick(good)

    def count(self, low: int, high: int) -> int:
        return self.rnd.randint(low, high)

    def name(self) -> str:
        roll = self.rnd.random()
        if roll < 0.45:
            return str(self.pick(NAME_POOL))
        if roll < 0.8:
            return str(
                self.data.draw(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,15}", fullmatch=True))
            )
        alphabet = st.characters(codec="utf-8", exclude_categories=("Cs",))
        return str(self.data.draw(st.text(alphabet, max_size=12)))

    def component_name(self) -> str:
        if self.hostile and self.chance(0.3):
            return self.name()
        if self.chance(0.5):
            return str(self.pick(COMPONENT_POOL))
        return str(self.data.draw(st.from_regex(r"[A-Za-z0-9._-]{1,20}", fullmatch=True)))


def _random(data: st.DataObject) -> random.Random:
    """Uniform choices from a seed hypothesis draws: its own choice sequences, replayed and
    spliced between examples, made runs in a row near copies of each other."""
    return random.Random(data.draw(st.integers(0, 2**64 - 1)))


def _ref(ctx: Context) -> dict[str, Any]:
    if ctx.components and ctx.chance(0.8):
        return {"$ref": "#/components/schemas/" + _escape(ctx.pick(ctx.components))}
    if ctx.hostile and ctx.chance(0.5):
        if ctx.chance(0.3):
            return {"$ref": "#/components/schemas/" + _escape(ctx.name())}
        return {"$ref": ctx.pick(BAD_FILE_REFS)}
    return {"$ref": ctx.pick(FILE_REFS)}


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _nullable(ctx: Context, schema: dict[str, Any]) -> dict[str, Any]:
    if not ctx.chance(0.15):
        return schema
    if ctx.version.startswith("3.0"):
        return {**schema, "nullable": True}
    kind = schema.get("type")
    return {**schema, "type": [kind, "null"]} if isinstance(kind, str) else schema


def _length(ctx: Context) -> Any:
    return ctx.pick(HUGE) if ctx.chance(0.05) else ctx.pick_or_bad(LENGTHS, BAD_LENGTHS)


def _string(ctx: Context) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if ctx.chance(0.3):
        schema["minLength"] = _length(ctx)
    if ctx.chance(0.3):
        schema["maxLength"] = _length(ctx)
    if ctx.chance(0.25):
        schema["pattern"] = ctx.pick_or_bad(PATTERNS, BAD_PATTERNS, 0.3)
    if ctx.chance(0.25):
        schema["format"] = ctx.pick(FORMATS)
    if ctx.chance(0.2):
        schema["enum"] = [ctx.name() for _ in range(ctx.count(1 if not ctx.hostile else 0, 5))]
    if ctx.chance(0.1):
        schema["default"] = ctx.pick_or_bad([ctx.name()], [3, None, [], {"a": 1}], 0.5)
    if ctx.chance(0.05):
        schema["const"] = ctx.name()
    return schema


def _number(ctx: Context, kind: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": kind}
    for key in ("minimum", "maximum"):
        if ctx.chance(0.25):
            schema[key] = ctx.pick_or_bad(BOUNDS, BAD_BOUNDS)
    if ctx.chance(0.1):
        schema["multipleOf"] = ctx.pick_or_bad([1, 2, 7, 0.5, 0.01], [0, -1, "x"], 0.3)
    if ctx.chance(0.15):
        key = ctx.pick(["exclusiveMinimum", "exclusiveMaximum"])
        if ctx.version.startswith("3.0"):
            schema[key] = ctx.pick_or_bad([True, False], [0, 5], 0.3)
        else:
            schema[key] = ctx.pick_or_bad(BOUNDS, [True, "x"], 0.3)
    if ctx.chance(0.2):
        schema["format"] = ctx.pick(["int32", "int64", "float", "double", "uint8", "x"])
    if ctx.chance(0.15):
        schema["enum"] = [ctx.rnd.randint(-(2**65), 2**65) for _ in range(ctx.count(1, 4))]
    if ctx.chance(0.05):
        schema["default"] = ctx.pick_or_bad([0, 1], [1.5, "1", None, 2**70], 0.5)
    return schema


def schema(ctx: Context, depth: int) -> dict[str, Any]:
    leaves = ["string", "string", "integer", "number", "boolean", "ref", "ref", "empty", "null"]
    kinds = [*leaves, "array", "array", "object", "object", "object", "allOf", "oneOf", "anyOf"]
    kind = ctx.pick(kinds if depth > 0 else leaves)
    if depth > 0 and ctx.chance(0.004):
        kind = "deep"
    node: dict[str, Any]
    if kind == "string":
        node = _string(ctx)
    elif kind in ("integer", "number"):
        node = _number(ctx, kind)
    elif kind == "boolean":
        node = {"type": "boolean"}
    elif kind == "ref":
        return _ref(ctx)
    elif kind == "empty":
        node = {}
    elif kind == "null":
        node = {"type": "null"} if ctx.version >= "3.1" else {"type": "string", "nullable": True}
    elif kind == "array":
        node = {"type": "array", "items": schema(ctx, depth - 1)}
        if ctx.hostile and ctx.chance(0.1):
            del node["items"]
        for key in ("minItems", "maxItems"):
            if ctx.chance(0.15):
                node[key] = _length(ctx)
        if ctx.chance(0.1):
            node["uniqueItems"] = True
    elif kind == "object":
        node = _object(ctx, depth)
    elif kind == "deep":  # nesting far past what a hand-written document holds
        node = schema(ctx, 0)
        for _ in range(ctx.pick_or_bad([5, 20, 60], [150, 300], 0.5)):
            node = ctx.pick(
                [{"type": "array", "items": node}, {"type": "object", "properties": {"n": node}}]
            )
    else:
        members = [schema(ctx, depth - 1) for _ in range(ctx.count(1, 3))]
        node = {kind: members}
        if kind == "oneOf" and ctx.hostile and ctx.chance(0.3):
            node["discriminator"] = {"propertyName": ctx.pick(["kind", "type", ctx.name()])}
    if ctx.chance(0.15):
        node["description"] = ctx.name()
    if ctx.chance(0.1):
        node["title"] = ctx.name()
    if ctx.chance(0.05):
        node[ctx.pick(["readOnly", "writeOnly", "deprecated"])] = True
    if ctx.chance(0.05):
        node["example"] = ctx.pick([ctx.name(), 1, None, {"x": [1]}])
    return _nullable(ctx, node)


def _object(ctx: Context, depth: int) -> dict[str, Any]:
    props = {ctx.name(): schema(ctx, depth - 1) for _ in range(ctx.count(0, 4))}
    node: dict[str, Any] = {"type": "object", "properties": props}
    if props and ctx.chance(0.5):
        node["required"] = ctx.rnd.sample(sorted(props), ctx.count(1, len(props)))
    if ctx.hostile and ctx.chance(0.1):
        node.setdefault("required", []).append(ctx.name())
    if ctx.chance(0.2):
        node["additionalProperties"] = ctx.pick([True, False, {"type": "integer"}, _ref(ctx)])
    if ctx.chance(0.05):
        node[ctx.pick(["minProperties", "maxProperties"])] = _length(ctx)
    return node


def _parameters(ctx: Context, template_names: list[str]) -> list[Any]:
    params: list[Any] = []
    for name in template_names:
        if not ctx.hostile or ctx.chance(0.9):
            params.append({"name": name, "in": "path", "required": True, "schema": schema(ctx, 0)})
    for _ in range(ctx.count(0, 3)):
        where = ctx.pick_or_bad(["query", "query", "header", "cookie"], ["path", "body", "x"])
        param: dict[str, Any] = {"name": ctx.name(), "in": where, "schema": schema(ctx, 1)}
        if ctx.chance(0.3):
            param["required"] = ctx.pick_or_bad([True, False], ["yes", 1])
        if where == "query" and ctx.chance(0.15):
            param["style"] = ctx.pick_or_bad(["form", "deepObject", "pipeDelimited"], ["x"])
            param["explode"] = ctx.chance()
        params.append(param)
    if ctx.hostile and ctx.chance(0.1):
        params.append({"$ref": "#/components/parameters/" + _escape(ctx.name())})
    return params


def _content(ctx: Context, depth: int) -> dict[str, Any]:
    content: dict[str, Any] = {}
    for _ in range(ctx.count(1, 2)):
        media = ctx.pick_or_bad(CONTENT_TYPES, BAD_CONTENT_TYPES)
        body: dict[str, Any] = {"schema": schema(ctx, depth)}
        if media in ("multipart/form-data", "application/x-www-form-urlencoded"):
            body["schema"] = _object(ctx, depth)
            props = list(body["schema"]["properties"])
            if props and ctx.chance(0.5):
                body["encoding"] = {
                    ctx.pick(props): {
                        "contentType": ctx.pick_or_bad(["image/png", "application/json"], ["x"]),
                        "style": ctx.pick(["form", "deepObject"]),
                        "explode": ctx.chance(),
                    }
                }
        content[media] = body
    return content


def _operation(ctx: Context, params: list[str], method: str) -> dict[str, Any]:
    op: dict[str, Any] = {"responses": {}}
    if ctx.chance(0.85):
        op["operationId"] = ctx.name()
    if ctx.chance(0.3):
        op["tags"] = [ctx.name()]
    if ctx.chance(0.2):
        op["summary"] = ctx.name()
    op["parameters"] = _parameters(ctx, params)
    if method in ("post", "put", "patch", "query") or (ctx.hostile and ctx.chance(0.1)):
        op["requestBody"] = {"content": _content(ctx, 2), "required": ctx.chance()}
    for _ in range(ctx.count(1 if not ctx.hostile else 0, 3)):
        response: dict[str, Any] = {"description": ctx.name()}
        if ctx.chance(0.7):
            response["content"] = _content(ctx, 2)
        op["responses"][ctx.pick_or_bad(STATUSES, BAD_STATUSES)] = response
    if ctx.chance(0.1):
        op["security"] = [{ctx.pick_or_bad(["key", "bearer"], [ctx.name()], 0.5): []}]
    return op


def _chain(ctx: Context, components: dict[str, Any]) -> None:
    """A chain of schemas that only refer on (``Chain0`` → ``Chain1`` → …), maybe closed."""
    length = ctx.pick_or_bad([1, 2, 3, 10, 60, 400], [2000, 10000], 0.05)
    for i in range(length):
        components[f"Chain{i}"] = {"$ref": f"#/components/schemas/Chain{i + 1}"}
    end = ctx.pick_or_bad(["schema"], ["cycle", "missing", "self"], 0.6)
    if end == "schema":
        components[f"Chain{length}"] = schema(ctx, 1)
    elif end == "cycle":
        components[f"Chain{length}"] = {"$ref": "#/components/schemas/Chain0"}
    elif end == "self":
        components[f"Chain{length}"] = {"$ref": f"#/components/schemas/Chain{length}"}
    ctx.components.append("Chain0")


def build_document(data: st.DataObject) -> tuple[dict[str, Any], dict[str, bytes]]:
    """A small OpenAPI document, and the files placed beside it (``other.yaml``)."""
    rnd = _random(data)
    hostile = rnd.random() < 0.5
    ctx = Context(data, rnd, "", [], hostile)
    ctx.version = ctx.pick_or_bad(VERSIONS, BAD_VERSIONS, 0.05)
    comp_names = list(dict.fromkeys(ctx.component_name() for _ in range(ctx.count(0, 5))))
    ctx.components = list(comp_names)
    components: dict[str, Any] = {}
    for name in comp_names:  # a component may refer to any other, itself included: cycles
        components[name] = schema(ctx, 3)
    if ctx.chance(0.15):
        _chain(ctx, components)
    paths: dict[str, Any] = {}
    for _ in range(ctx.count(1, 3)):
        segments = [ctx.name() for _ in range(ctx.count(1, 3))]
        idents = st.from_regex(r"[a-z_][a-zA-Z0-9_]{0,10}", fullmatch=True)
        params = list(
            dict.fromkeys(
                ctx.name() if hostile else str(data.draw(idents)) for _ in range(ctx.count(0, 2))
            )
        )
        template = "/" + "/".join([*segments, *("{" + p + "}" for p in params)])
        if hostile and ctx.chance(0.05):
            template = ctx.pick(["", "no-slash", "/a//b", "/{unclosed", "/{}/x"])
        item = paths.setdefault(template, {})
        methods = ctx.rnd.sample(METHODS, ctx.count(1, 2))
        if ctx.version.startswith("3.2") and ctx.chance(0.1):
            methods.append("query")
        for method in methods:
            item[method] = _operation(ctx, params, method)
    doc: dict[str, Any] = {
        "openapi": ctx.version,
        "info": {"title": ctx.name() or "t", "version": ctx.pick(["1.0", "1", "v1.2.3"])},
        "paths": paths,
        "components": {"schemas": components},
    }
    if ctx.chance(0.5):
        url = ctx.pick_or_bad(SERVERS, BAD_SERVERS, 0.3)
        server: dict[str, Any] = {"url": url}
        if ctx.chance(0.4):  # server variables named like what the client binds
            names = list(dict.fromkeys(ctx.pick(RUNTIME_NAMES) for _ in range(ctx.count(1, 3))))
            server["url"] = "https://" + ".".join("{" + n + "}" for n in names) + ".example/"
            server["variables"] = {n: {"default": "x"} for n in names}
        elif "{" in url:
            server["variables"] = {
                "host": {"default": ctx.pick_or_bad(["localhost"], ["", "a b", "x\ny"], 0.5)},
                "port": {"default": "8080", "enum": ctx.pick_or_bad([["8080"]], [["1"], []])},
                "version": {"default": ctx.pick(["v1", "é"])},
            }
        doc["servers"] = [server]
    if ctx.chance(0.3):
        doc["components"]["securitySchemes"] = {
            "key": {
                "type": "apiKey",
                "in": ctx.pick(["header", "query", "cookie"]),
                "name": ctx.name() if hostile else "X-Key",
            },
            "bearer": {"type": "http", "scheme": ctx.pick_or_bad(["bearer", "basic"], ["x"])},
        }
        doc["security"] = [{ctx.pick(["key", "bearer"]): []}]
    if ctx.chance(0.1):
        doc["tags"] = [{"name": ctx.name()} for _ in range(ctx.count(1, 3))]
    files = {"other.yaml": yaml.safe_dump(OTHER_DOC).encode()}
    return doc, files


# --- mutating the project's own documents --------------------------------------------------

_loaded: dict[str, dict[str, Any]] = {}


def real_document(name: str) -> dict[str, Any]:
    """``spec/NAME`` as the generator reads it (cached: the platform document is 290 kB)."""
    if name not in _loaded:
        from generator.document.loader import load_document

        _loaded[name] = load_document(ROOT / "spec" / name)
    return _loaded[name]


def reachable(doc: dict[str, Any], path_keys: list[str]) -> dict[str, Any]:
    """``doc`` with only ``path_keys`` of its paths and the components they lead to."""
    out = {k: copy.deepcopy(v) for k, v in doc.items() if k not in ("paths", "components")}
    out["paths"] = {k: copy.deepcopy(doc["paths"][k]) for k in path_keys}
    source = doc.get("components") or {}
    comps: dict[str, dict[str, Any]] = {}
    stack: list[Any] = [out["paths"]]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/"):
                parts = ref.split("/", 3)
                if len(parts) == 4:
                    kind, name = parts[2], parts[3]
                    target = (source.get(kind) or {}).get(name)
                    if target is not None and name not in comps.setdefault(kind, {}):
                        comps[kind][name] = copy.deepcopy(target)
                        stack.append(comps[kind][name])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    if source.get("securitySchemes"):
        comps["securitySchemes"] = copy.deepcopy(source["securitySchemes"])
    out["components"] = comps
    return out


def _nodes(doc: Any, limit: int = 3000) -> list[tuple[Any, ...]]:
    return node_paths(doc, limit)


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


RETYPED: list[Any] = [None, 0, -1, 1.5, "", "x", [], {}, True, "object", ["a"], {"$ref": "#"}]
TYPE_NAMES = ["string", "integer", "number", "boolean", "array", "object", "null", "file", "x"]


def mutate_document(data: st.DataObject, base: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``base`` changed one to four times; the changes, in words (for a failure's message)."""
    doc = copy.deepcopy(base)
    done: list[str] = []
    rnd = _random(data)
    ctx = Context(data, rnd, str(doc.get("openapi", "3.0.3")), [], hostile=True)
    ctx.components = list(((doc.get("components") or {}).get("schemas") or {}).keys())
    kinds = [
        "delete",
        "rename",
        "retarget",
        "retarget",
        "retype",
        "type",
        "insert-ref",
        "constraint",
        "duplicate",
        "swap",
    ]
    for _ in range(ctx.count(1, 4)):
        nodes = _nodes(doc)
        if not nodes:
            break
        path = ctx.pick(nodes)
        kind = ctx.pick(kinds)
        if kind == "retarget":
            path = ctx.pick([p for p in nodes if p[-1] == "$ref"] or [path])
        elif kind == "type":
            path = ctx.pick([p for p in nodes if p[-1] == "type"] or [path])
        parent, key = _at(doc, path[:-1]), path[-1]
        if kind == "retarget":
            parent[key] = _ref(ctx)["$ref"]
        elif kind == "delete":
            del parent[key]
        elif kind == "rename" and isinstance(parent, dict):
            parent[ctx.name()] = parent.pop(key)
        elif kind == "retype":
            parent[key] = copy.deepcopy(ctx.pick(RETYPED))
        elif kind == "type":
            parent[key] = ctx.pick(TYPE_NAMES)
        elif kind == "insert-ref":
            parent[key] = _ref(ctx)
        elif kind == "constraint" and isinstance(parent[key], dict):
            keyword = ctx.pick(
                [
                    "minLength",
                    "maxLength",
                    "minItems",
                    "maxItems",
                    "maximum",
                    "pattern",
                    "enum",
                    "format",
                ]
            )
            parent[key][keyword] = ctx.pick([*HUGE, -1, 0, "(", "[z-a]", "^a+$", [], ["x"], "x"])
        elif kind == "duplicate":
            value = copy.deepcopy(parent[key])
            if isinstance(parent, list):
                parent.append(value)
            else:
                parent[f"{key}_copy"] = value
        elif kind == "swap":
            other = ctx.pick(nodes)
            if other[: len(path)] != path:
                parent[key] = copy.deepcopy(_at(doc, other))
        else:
            continue
        done.append(f"{kind} {'/'.join(map(str, path))}")
    return doc, done


def real_base(data: st.DataObject) -> tuple[dict[str, Any], str]:
    """A few paths of one of the project's documents and what they use; which, in words."""
    rnd = _random(data)
    name = rnd.choice(SPEC_FILES)
    doc = real_document(name)
    keys = sorted(doc.get("paths") or {})
    chosen = rnd.sample(keys, min(len(keys), rnd.randint(1, 3)))
    return reachable(doc, chosen), f"{name} paths {chosen}"


# --- encodings -----------------------------------------------------------------------------


ALIAS_BOMB = "x-laughs:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"  {c}: &{c} [{', '.join(['*' + p] * 9)}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)
# Whole-text damage no structured document can carry: YAML's own features and syntax errors.
YAML_DAMAGE = {
    "duplicate-key": lambda t: t + "openapi: 3.0.3\n",
    "yaml11-keys": lambda t: t + "x-keys: {1: a, true: b, yes: c, on: d, null: e, 1.0: f}\n",
    "python-tag": lambda t: t + 'x-tag: !!python/object/apply:os.system ["touch /tmp/FUZZ"]\n',
    "custom-tag": lambda t: t + "x-tag: !include /etc/passwd\n",
    "alias-bomb": lambda t: t + ALIAS_BOMB,
    "flow-nesting": lambda t: t + "x-deep: " + "[" * 40000 + "]" * 40000 + "\n",
    "block-nesting": lambda t: t + "x-deep:\n" + "".join(" " * i + "- \n" for i in range(1, 400)),
    "merge-key": lambda t: t + "x-base: &base {type: string}\nx-merged: {<<: *base, a: 1}\n",
    "tab-indent": lambda t: t.replace("\n  ", "\n\t", 1),
}
JSON_DAMAGE = {
    "duplicate-key": lambda t: t.replace("{", '{"openapi": "3.0.3", ', 1),
    "nan": lambda t: t.replace("{", '{"x-n": NaN, ', 1),
    "flow-nesting": lambda t: t.replace("{", '{"x-deep": ' + "[" * 40000 + "]" * 40000 + ", ", 1),
    "trailing-comma": lambda t: t.replace("}", ",}", 1),
    "comment": lambda t: "// comment\n" + t,
}
BYTE_DAMAGE = {
    "truncated": lambda b, r: b[: r.randint(0, len(b))],
    "nul": lambda b, r: b[: (i := r.randint(0, len(b)))] + b"\x00" + b[i:],
    "invalid-utf8": lambda b, r: b[: (i := r.randint(0, len(b)))] + b"\xff\xfe" + b[i:],
    "inner-bom": lambda b, r: b + b"\xef\xbb\xbfx-after-bom: 1\n",
    "empty": lambda b, r: b"",
}


def encode(data: st.DataObject, doc: Any) -> tuple[str, bytes, str]:
    """A file name and the bytes of ``doc`` in one of the formats and encodings, now and then
    damaged as text or bytes; how, in words."""
    rnd = _random(data)
    form = rnd.choice(["json", "json-ascii", "yaml", "yaml", "yml-crlf"])
    if form.startswith("json"):
        text = json.dumps(doc, ensure_ascii=form == "json-ascii", indent=rnd.choice([None, 1]))
        name = "api.json"
    else:
        text = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=1000)
        name = "api.yaml"
    how = form
    if rnd.random() < 0.12:
        table = JSON_DAMAGE if form.startswith("json") else YAML_DAMAGE
        damage = rnd.choice(sorted(table))
        text, how = table[damage](text), f"{how}+{damage}"
    if form == "yml-crlf":
        text, name = text.replace("\n", "\r\n"), "api.yml"
    encoding = "utf-8"
    if rnd.random() < 0.15:
        encoding = rnd.choice(["utf-8-sig", "utf-16", "latin-1", "cp1252"])
    try:
        raw = text.encode(encoding)
    except UnicodeEncodeError:
        raw, encoding = text.encode("utf-8", "surrogatepass"), "utf-8"
    how += f"/{encoding}"
    if rnd.random() < 0.04:
        damage = rnd.choice(sorted(BYTE_DAMAGE))
        raw, how = BYTE_DAMAGE[damage](raw, rnd), f"{how}+{damage}"
    return name, raw, how


# --- one audited run -----------------------------------------------------------------------


def _timeout() -> float:
    return float(os.environ.get("FUZZ_TIMEOUT", "30"))


MEMORY_BYTES = int(os.environ.get("FUZZ_MEMORY_MB", "3072")) * 1024 * 1024


_RECOVERY = re.compile(r"cube-codegen: (set aside |removed |finished an interrupted )")


@dataclass
class Outcome:
    label: str
    folder: Path
    rc: int | None
    stderr: str
    seconds: float
    reads_outside: list[str]
    writes_outside: list[str]
    package: str

    @property
    def out(self) -> Path:
        return self.folder / "project" / "out"

    def problems(self) -> list[str]:
        found: list[str] = []
        if self.rc is None:
            found.append(f"hang: no exit within {_timeout():.0f} s")
        elif self.rc < 0:
            found.append(f"crash: killed by signal {-self.rc}")
        elif self.rc == 3:
            found.append("import: the generated package does not import")
        elif self.rc not in (0, 2):
            found.append(f"crash: exit code {self.rc}")
        if "Traceback (most recent call last)" in self.stderr and self.rc != 3:
            found.append("crash: a traceback on stderr")
        lines = self.stderr.strip("\n").split("\n") if self.stderr.strip() else []
        # what the command did about run state left before it (planted records set aside) is
        # said first, one line each; the input's own verdict is still one line
        lines = [line for line in lines if not _RECOVERY.match(line)]
        if self.rc == 2 and len(lines) != 1:
            found.append(f"diagnostic: exit 2 with {len(lines)} lines on stderr")
        if self.rc == 2 and "[format-failed]" in self.stderr:
            found.append("internal: the formatter refused the generated code")
        if self.rc == 0 and not (self.out / self.package / "__init__.py").is_file():
            found.append("package: exit 0 without a package")
        found += [f"leak: read {p}" for p in self.reads_outside]
        found += [f"leak: wrote {p}" for p in self.writes_outside]
        return found

    def describe(self) -> str:
        return (
            f"{self.label}\n  input kept in {self.folder}\n  rc={self.rc} in {self.seconds:.1f} s"
            f"\n  stderr: {self.stderr[-3000:]!r}"
        )


def _tree(folder: Path) -> dict[str, str]:
    """Every entry below ``folder`` (symlinks not followed): a digest of files, kinds of others."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                found[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                found[rel] = "dir"
    return found


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


# --- run state another user (or a cloned repository) planted -------------------------------

STATE = Path(".cache") / "cube-codegen"  # the example's run state: $XDG_CACHE_HOME is .cache


def _forged_template() -> tuple[str, bytes]:
    """An entry of the compiled-template cache for a real template, carrying code that writes
    beside the victim: what anyone could make from the public templates."""
    import jinja2

    from generator import TEMPLATES

    name = "family/client.py.jinja"
    filename = os.path.normpath(os.path.join(str(TEMPLATES), name))
    cache = jinja2.BytecodeCache()
    bucket = jinja2.bccache.Bucket(
        jinja2.Environment(),
        cache.get_cache_key(name, filename),
        cache.get_source_checksum((TEMPLATES / name).read_text(encoding="utf-8")),
    )
    bucket.code = compile("open('VICTIM/pwned', 'w').write('ran')", filename, "exec")
    return f"templates/{bucket.key}.cache", bucket.bytecode_to_string()


PLANTS: list[tuple[str, bytes | None]] = [
    ("txn/intent-x.json", json.dumps({"paths": ["VICTIM"]}).encode()),
    (
        "txn/intent-y.json",
        json.dumps(
            {
                "version": 2,
                "what": "generate",
                "token": "y",
                "places": [{"base": "", "target": "../../outside/victim"}],
            }
        ).encode(),
    ),
    (
        "txn/journal.json",
        json.dumps(
            {
                "what": "update",
                "swaps": [
                    {
                        "target": "OUTSIDE/other",
                        "staged": "VICTIM",
                        "backup": "OUTSIDE/got",
                        "inode": 0,
                    }
                ],
            }
        ).encode(),
    ),
    ("txn/journal.json", b'{"swaps": [{}]}'),
    ("txn/journal.json", b"\xff\xfe not json"),
    (
        "txn/journal.json",
        json.dumps(
            {
                "version": 2,
                "token": "z",
                "swaps": [{"base": "OUTSIDE", "target": "victim", "inode": 1}],
            }
        ).encode(),
    ),
    ("txn/lock", None),  # a symbolic link to a file outside: refused, never created
    ("key", b"short"),
    _forged_template(),
]


def plant_run_state(data: st.DataObject) -> list[tuple[str, bytes | None]]:
    """None, one or two planted run-state files (see :data:`PLANTS`)."""
    rnd = _random(data)
    if rnd.random() < 0.6:
        return []
    return rnd.sample(PLANTS, rnd.randint(1, 2))


def _prepare_state(folder: Path, project: Path, plants: list[tuple[str, bytes | None]]) -> None:
    """The example's private run state: the derived names (made once by this process) and what
    was planted; a victim folder outside the project that nothing may touch."""
    from generator.ir.bound_names import keep_in

    victim = folder / "outside" / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine", encoding="utf-8")
    state = project / STATE
    for sub in ("names", "txn", "templates"):
        (state / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
    for path in (project / ".cache", state):
        path.chmod(0o700)
    keep_in(state)
    for rel, data in plants:
        target = state / rel
        if data is None:
            target.symlink_to(folder / "outside" / "made-by-a-link")
            continue
        text = data.replace(b"VICTIM", os.fsencode(victim))
        target.write_bytes(text.replace(b"OUTSIDE", os.fsencode(folder / "outside")))
        target.chmod(0o600)


def run_example(
    folder: Path,
    files: dict[str, bytes],
    main: str,
    label: str,
    package: str = PACKAGE,
    plants: list[tuple[str, bytes | None]] = (),  # type: ignore[assignment]
) -> Outcome:
    """Lay ``files`` out as a project in ``folder``, run the generator on ``main``, judge it.

    ``folder/project/spec/`` holds the files and a symlink ``link.yaml`` leading out of the
    project; ``folder/project/secret.yaml`` lies in the project but above the document's folder
    (its `$ref`s may not reach it); ``folder/outside/canary.yaml`` lies outside the project.
    """
    project = folder / "project"
    spec = project / "spec"
    (spec / "sub").mkdir(parents=True)
    (folder / "outside").mkdir()
    (folder / "outside" / "canary.yaml").write_text(CANARY, encoding="utf-8")
    (project / "secret.yaml").write_text(CANARY, encoding="utf-8")
    (spec / "link.yaml").symlink_to(folder / "outside" / "canary.yaml")
    for name, data in files.items():
        (spec / name).write_bytes(data)
    _prepare_state(folder, project, list(plants))
    if plants:
        label += " + planted " + ", ".join(rel for rel, _ in plants)
    tmp = project / "tmp"
    tmp.mkdir()
    log = folder / "audit.log"
    job = {
        "argv": [
            "generate",
            "--spec",
            f"spec/{main}",
            "--out",
            "out",
            "--package",
            package,
            "--quiet",
        ],
        "out": str(project / "out"),
        "package": package,
        "log": str(log),
        "memory_bytes": MEMORY_BYTES,
        "cpu_seconds": int(_timeout()) + 5,
    }
    (folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
    before = {"outside": _tree(folder / "outside"), "spec": _tree(spec)}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUBE_", "PYTHON"))}
    env.update(TMPDIR=str(tmp), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    if sys.pycache_prefix:  # read (never written) the modules this process compiled: about
        env["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix  # 0.3 of an example's 1.7 CPU s
    env["XDG_CACHE_HOME"] = str(project / ".cache")  # outside any project: the user's cache
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-P", str(CHILD), str(folder / "job.json")],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a hang is ended with everything it started (ruff)
    )
    rc: int | None
    try:
        _, err = proc.communicate(timeout=_timeout())
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        rc = None
    seconds = time.monotonic() - started
    reads, writes = _judge_log(log, project)
    after = {"outside": _tree(folder / "outside"), "spec": _tree(spec)}
    for where in ("outside", "spec"):
        for rel in sorted(set(before[where]) | set(after[where])):
            if before[where].get(rel) != after[where].get(rel):
                writes.append(f"{where}/{rel} changed on disk")
    extra = sorted(
        p.name
        for p in project.iterdir()
        if p.name not in ("spec", "secret.yaml", "tmp", "out", ".cache")
    )
    writes += [f"project/{n} left behind" for n in extra]
    state = project / ".cache" / "cube-codegen"
    # a finished run leaves no scratch copy and no journal; one that refused the run state
    # (a planted lock that is a link) touched nothing in it, planted records included
    refused = b"[run-state-refused]" in err
    for sub in ("scratch", "txn"):
        if (state / sub).is_dir() and rc is not None and not refused:
            writes += [f".cache/cube-codegen/{sub}/{p.name} left behind"
                       for p in (state / sub).iterdir() if p.name != "lock"]  # fmt: skip
    writes += [f"tmp/{p.name} left behind" for p in tmp.iterdir()]
    return Outcome(
        label, folder, rc, err.decode("utf-8", "replace"), seconds, reads, writes, package
    )


def _judge_log(
    log: Path, project: Path, compiled: str | None = sys.pycache_prefix
) -> tuple[list[str], list[str]]:
    """Reads outside the allowed folders and writes outside the output, from the audit log.
    ``compiled`` is the bytecode folder the child reads (``PYTHONPYCACHEPREFIX``): its ``.pyc``
    files are the import system's reads of allowed modules, anything else there is not."""
    real = os.path.realpath
    project_s = real(project)
    root = real(ROOT)
    out = os.path.join(project_s, "out")
    staging = [os.path.join(project_s, ".out.txn-"), os.path.join(project_s, ".out.was-")]
    tmp = os.path.join(project_s, "tmp")
    state = os.path.join(project_s, ".cache", "cube-codegen")  # the tool's own run state
    read_roots = sorted(
        {
            real(ROOT / "generator"),
            real(ROOT / "templates"),
            real(CHILD),  # read back for a traceback's lines
            real(sys.prefix),
            real(sys.base_prefix),
            real(sys.exec_prefix),
            os.path.join(project_s, "spec"),
            out,
            tmp,
            state,
        }
    )
    reads: set[str] = set()
    writes: set[str] = set()
    if not log.is_file():
        return [], []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            kind, event, path = json.loads(line)
        except ValueError:
            continue  # a line cut short by a kill
        if re.fullmatch(r"<[^<>/]*>", os.path.basename(path)):
            continue  # "<string>", "<frozen ...>": a traceback looking up lines of no file
        resolved = real(path)
        if _under(os.path.abspath(path), [state]):
            continue  # the run state's own files are opened without following a link
        if kind == "read":
            if compiled and event == "open" and resolved.endswith(".pyc"):
                if _under(resolved, [real(compiled)]):
                    continue  # a module compiled by the suite, read by the import system
            if resolved == project_s:
                continue  # the output's parent: opened for the run's lock, listed for staging
            if resolved == root and event != "open":
                continue  # the import system lists the folder the .venv's .pth file names
            if not _under(resolved, read_roots) and not resolved.startswith(tuple(staging)):
                reads.add(f"{resolved} ({event})")
        else:
            inside = _under(resolved, [out, tmp, state]) or resolved.startswith(tuple(staging))
            existing_parent = event == "os.mkdir" and any(
                where.startswith(resolved + "/") for where in (out, state)
            )
            if not inside and not existing_parent:
                writes.add(f"{resolved} ({event})")
    return sorted(reads), sorted(writes)


def clean(outcome: Outcome) -> None:
    shutil.rmtree(outcome.folder, ignore_errors=True)


def lint_problems(outcome: Outcome, mypy_cache: Path) -> list[str]:
    """``ruff check``, ``ruff format --check`` and ``mypy --strict`` on a generated package."""
    tool = Path(sys.executable).with_name
    found = []
    stamp_by_content(outcome.out)
    for args in (
        [str(tool("ruff")), "check", "--no-cache", "."],
        [str(tool("ruff")), "format", "--check", "--no-cache", "."],
        [str(tool("mypy")), "--strict", "--cache-dir", str(mypy_cache), outcome.package, "tests"],
    ):
        proc = subprocess.run(
            args, cwd=outcome.out, capture_output=True, text=True, timeout=600, check=False
        )
        if proc.returncode != 0:
            text = re.sub(r"\s+", " ", (proc.stdout + proc.stderr)[-600:])
            found.append(f"lint: {Path(args[0]).name} {args[1]}: {text}")
    return found
