"""Nothing in a hostile document becomes code.

One document builder puts the same string into every slot document text can reach generated
files by: titles, descriptions, summaries, server URL and variables, tag names, path keys,
operationIds, parameter names (query, header, cookie), component and property names, enum values,
defaults, examples, discriminator values, patterns, response descriptions, security scheme header
names and extension values. The package generated from it is compared with the package of the
same document built around a benign string:

* every generated Python file compiles;
* the hostile package holds no statement kind (at module, class or function level), no callee
  and no import that the benign package does not: document text never adds code;
* importing every module in a subprocess creates no canary file, though the strings carry
  ``__import__('os').system('touch CANARY')`` in each quoting style.

Hypothesis varies the string (bounded); a fixed list covers quotes, triple quotes, backslashes,
newlines, ``#``, Jinja syntax, U+2028/U+2029, NUL (as the JSON escape) and very long text.
"""

from __future__ import annotations

import ast
import itertools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.diagnostics import CodegenError
from tests.helpers import TYPED_PACKAGE, check_clean_and_typed, run_python
from tests.helpers import generate_package as generate_into
from tests.kept_trees import compile_once

PACKAGE = TYPED_PACKAGE  # its runtime is in the mypy seed
CANARY_NAME = "CANARY_CREATED"


def payloads(canary: Path) -> list[str]:
    """Strings that would run code if any slot pasted them into source unescaped."""
    cmd = f"__import__('os').system('touch {canary}')"
    return [
        cmd,
        f'"; {cmd}; "',
        f"'; {cmd}; '",
        f'"""\n{cmd}\n"""',
        f"'''\n{cmd}\n'''",
        f"\\\n{cmd}",
        f"\\'; {cmd} #",
        f'\\"; {cmd} #',
        f"x\n{cmd}\n#",
        f"x\u2028{cmd}\u2029",
        f"x\r{cmd}",
        f"{{{{ {cmd} }}}}{{% if true %}}{cmd}{{% endif %}}",
        f"{{{{ ''.__class__.__mro__[1].__subclasses__() }}}}{cmd}",
        f"x\x00{cmd}",
        f"x\ufeff\x0b\x0c\x1b[31m{cmd}",
        f"</script><!-- `{cmd}` [a](javascript:{cmd}) | *x* {{ }}",
        "é" * 300 + cmd + "\U0001f600" * 100,
        "A" * 5000 + cmd,
    ]


def hostile_doc(s: str) -> dict[str, Any]:
    """An OpenAPI 3.1 document with ``s`` in every slot that reaches generated files."""
    text_schema = {"type": "string", "description": s, "title": s, "example": s, "x-note": s}
    thing = {
        "type": "object",
        "title": s,
        "description": s,
        "required": ["id"],
        "properties": {
            "id": {"type": "integer", "description": s},
            s: {**text_schema, "default": s, "enum": [s, s + "2", "plain"]},
            "kind": {"type": "string", "const": s},
            "code": {"type": "string", "pattern": "^" + _regex_escape(s) + "$", "maxLength": 9000},
            "raw": {"type": "string", "pattern": _as_pattern(s)},
            "nested": {
                "type": "object",
                "description": s,
                "properties": {s + "_inner": {"type": "string", "description": s}},
            },
        },
        "example": {s: s},
        "x-extension": {s: [s]},
    }
    other = {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"type": "string", "const": "other"}, "n": {"type": "integer"}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": s, "description": s, "version": "1.0", "x-logo": s},
        "servers": [
            {
                "url": "https://api.example.com/{region}/" + _server_safe(s),
                "description": s,
                "variables": {"region": {"default": s, "description": s}},
            }
        ],
        "tags": [{"name": s, "description": s}],
        "security": [{"key": []}],
        "paths": {
            "/things/{thing_id}/" + _url_safe(s): {
                "summary": s,
                "description": s,
                "parameters": [
                    {
                        "name": "thing_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer"},
                    }
                ],
                "get": {
                    "operationId": s,
                    "summary": s,
                    "description": s,
                    "tags": [s],
                    "x-anything": s,
                    "x-cube-pagination": {
                        "style": "offset",
                        "items": [s, "data"],
                        "total": [s],
                        "offsetParam": s,
                        "limitParam": s,
                        "defaultLimit": 5,
                        "alternatives": [
                            {"style": "cursor", "items": [s], "cursorParam": s, "nextCursor": [s]}
                        ],
                    },
                    "parameters": [
                        {"name": s, "in": "query", "description": s, "schema": text_schema},
                        {"name": s, "in": "header", "schema": {"type": "string", "default": s}},
                        {"name": s, "in": "cookie", "schema": {"type": "string", "enum": [s]}},
                    ],
                    "responses": {
                        "200": {
                            "description": s,
                            "headers": {s: {"description": s, "schema": {"type": "string"}}},
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Wrapper"},
                                    "example": s,
                                }
                            },
                        },
                        "404": {"description": s},
                    },
                },
                "post": {
                    "x-cube-job": {
                        "idField": s,
                        "idParam": "thing_id",
                        "statusOperation": s,
                        "downloadOperation": s,
                        "statusField": s,
                        "successValues": [s],
                        "failureValues": [s, "failed"],
                        "errorField": s,
                        "expiresField": s,
                    },
                    "operationId": s + "_post",
                    "summary": s,
                    "tags": [s],
                    "requestBody": {
                        "required": True,
                        "description": s,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": f"#/components/schemas/{_ptr(s)}"}
                            }
                        },
                    },
                    "responses": {
                        "201": {
                            "description": s,
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        }
                    },
                },
                "put": {
                    "operationId": s + "_upload",
                    "tags": [s],
                    "requestBody": {
                        "content": {
                            "multipart/form-data": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        s: {"type": "string", "format": "binary", "description": s}
                                    },
                                }
                            }
                        }
                    },
                    "responses": {
                        "200": {
                            "description": s,
                            "content": {"text/csv": {"schema": {"type": "string"}}},
                        }
                    },
                },
            }
        },
        "components": {
            "schemas": {
                s: thing,
                "Other": other,
                "Wrapper": {
                    "type": "object",
                    "description": s,
                    "properties": {
                        "item": {
                            "oneOf": [
                                {"$ref": f"#/components/schemas/{_ptr(s)}"},
                                {"$ref": "#/components/schemas/Other"},
                            ],
                            "discriminator": {
                                "propertyName": "kind",
                                "mapping": {
                                    s: f"#/components/schemas/{_ptr(s)}",
                                    "other": "#/components/schemas/Other",
                                },
                            },
                        }
                    },
                },
            },
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": s}},
        },
    }


def _ptr(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _url_safe(s: str) -> str:
    """Path keys and URLs keep their shape (a leading ``/``) but carry the text otherwise."""
    return s.replace("?", "%3F").replace("#", "%23")


def _server_safe(s: str) -> str:
    """A server URL carries the text without its control characters: a URL holding one is
    broken input, refused with its pointer (``tests/document/test_broken_input.py``)."""
    return "".join(c for c in _url_safe(s) if c >= " " and c != "\x7f")


def _as_pattern(s: str) -> str:
    """The text as a pattern when it is a regular expression; escaped when it is not (a pattern
    that is no regular expression is broken input: ``tests/document/test_broken_input.py``)."""
    from generator.ir.schemas import pattern_valid

    return s if pattern_valid(s) else _regex_escape(s)


def _regex_escape(s: str) -> str:
    import re

    return re.escape(s)


def generate_package(doc: dict[str, Any], out: Path) -> dict[str, str]:
    return generate_into(doc, out, PACKAGE)


# --- the shape of a package: what kinds of code it holds, never what names or text --------------

_NESTING = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.If)
_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class FileFacts:
    """What one Python file holds, before the package-wide names are folded in: statement kinds
    by nesting, called names, imports, and the classes and functions it defines."""

    statements: frozenset[str]
    calls: frozenset[str]
    imports: frozenset[str]
    imports_from: frozenset[tuple[str | None, str]]
    defined: frozenset[str]


# by source text: the runtime's files are the same in every package, so each is walked once
_FACTS: dict[str, FileFacts] = {}


def file_facts(text: str, rel: str) -> FileFacts:
    """``text`` compiled, and one pass over its syntax tree (kept by text: a file is compiled
    and walked once per run)."""
    known = _FACTS.get(text)
    if known is not None:
        return known
    statements: set[str] = set()
    calls: set[str] = set()
    imports: set[str] = set()
    imports_from: set[tuple[str | None, str]] = set()
    defined: set[str] = set()
    tree = ast.parse(text, rel)
    compile(tree, rel, "exec")  # the whole compiler, symbol tables included: the file compiles
    stack: list[tuple[tuple[str, ...], ast.AST]] = [((), tree)]
    while stack:
        ctx, parent = stack.pop()
        for node in ast.iter_child_nodes(parent):
            stack.append(((*ctx, type(node).__name__) if isinstance(node, _NESTING) else ctx, node))
            if isinstance(node, ast.stmt):
                statements.add("/".join((*ctx, type(node).__name__)))
                if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
                    statements.add("/".join((*ctx, "Expr", type(node.value).__name__)))
            if isinstance(node, _DEFINITIONS):
                defined.add(node.name)
            elif isinstance(node, ast.Call):
                f = node.func
                calls.add(f.id if isinstance(f, ast.Name) else getattr(f, "attr", type(f).__name__))
            elif isinstance(node, ast.Import):
                imports.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                imports_from.update((node.module, a.name) for a in node.names)
            elif (  # TypedDict twins written functionally (wire names that are not identifiers)
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "TypedDict"
            ):
                defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
    facts = FileFacts(
        frozenset(statements), frozenset(calls), frozenset(imports), frozenset(imports_from),
        frozenset(defined),
    )  # fmt: skip
    _FACTS[text] = facts
    return facts


def shape(files: dict[str, str]) -> dict[str, set[str]]:
    """Statement kinds by nesting, called names and imports of a package's Python files.

    Calls of classes and functions the package defines itself count as one callee ``<own>``: their
    names come from the document (operations, tags, schemas), their bodies are checked as well.
    """
    facts = [file_facts(text, rel) for rel, text in files.items() if rel.endswith(".py")]
    own = set().union(*(f.defined for f in facts))
    # resource modules are named after tags, model class modules after schemas (imported
    # relatively, by bare name, too); the runtime modules keep fixed names
    named = [
        rel
        for rel in files
        if rel.endswith(".py") and ("/resources/" in rel or "/_classes/" in rel)
    ]
    modules = {rel.removesuffix(".py").replace("/", ".") for rel in named}
    modules |= {rel.rsplit("/", 1)[-1].removesuffix(".py") for rel in named}
    modules |= {f"_classes.{rel.rsplit('/', 1)[-1].removesuffix('.py')}" for rel in named}
    statements: set[str] = set()
    callees: set[str] = set()
    imports: set[str] = set()
    for f in facts:
        statements |= f.statements
        callees.update("<own>" if name in own else name for name in f.calls)
        imports |= f.imports
        imports.update(
            f"{'<own>' if module in modules else module}:{'<own>' if name in own else name}"
            for module, name in f.imports_from
        )
    return {"statements": statements, "callees": callees, "imports": imports}


@pytest.fixture(scope="module")
def benign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    out = tmp_path_factory.mktemp("benign") / "dist"
    return shape(generate_package(hostile_doc("Benign words"), out))


def check_package(files: dict[str, str], benign: dict[str, set[str]]) -> None:
    for rel, text in files.items():
        if rel.endswith(".py"):
            file_facts(text, rel)  # compiles it (once per text)
            assert "\x00" not in text and "\u2028" not in text and "\u2029" not in text, rel
    # pyproject.toml stays a TOML document with the same tables and keys
    project = tomllib.loads(files["pyproject.toml"])
    assert sorted(project) == ["build-system", "project", "tool"], sorted(project)
    assert sorted(project["project"]) == [
        "classifiers", "dependencies", "description", "name", "optional-dependencies", "readme",
        "requires-python", "version",
    ]  # fmt: skip
    got = shape(files)
    for key in ("statements", "callees", "imports"):
        extra = got[key] - benign[key]
        assert not extra, f"document text added {key}: {sorted(extra)[:10]}"


def import_all(outs: list[Path], canary: Path) -> None:
    """Import every module of each package in ``outs`` (all named :data:`PACKAGE`) in one fresh
    interpreter, one package after the other, the modules of one forgotten before the next: the
    canary is looked for after each, so a finding names its package."""
    code = (
        "import importlib, os, pkgutil, sys\n"
        "for out in sys.argv[1:]:\n"
        "    sys.path.insert(0, out)\n"
        f"    pkg = importlib.import_module({PACKAGE!r})\n"
        f"    for m in pkgutil.walk_packages(pkg.__path__, {PACKAGE + '.'!r}):\n"
        "        importlib.import_module(m.name)\n"
        f"    from {PACKAGE} import models\n"
        "    for name in models.__all__:\n"
        "        obj = getattr(models, name)\n"
        "        if hasattr(obj, 'model_json_schema'):\n"
        "            obj.model_json_schema()\n"
        f"    if os.path.exists({str(canary)!r}):\n"
        "        sys.exit(f'importing the package in {out} ran code from the document')\n"
        "    sys.path.remove(out)\n"
        f"    for name in [n for n in sys.modules if n.split('.')[0] == {PACKAGE!r}]:\n"
        "        del sys.modules[name]\n"
    )
    compile_once(outs)  # the runtime's text is the same in every package: compiled once
    run_python(code, outs[0].parent, *map(str, outs))
    assert not canary.exists(), "importing the package ran code from the document"


def test_fixed_hostile_strings(tmp_path: Path, benign: dict[str, set[str]]) -> None:
    canary = tmp_path / CANARY_NAME
    outs = []
    for i, s in enumerate(payloads(canary)):
        out = tmp_path / f"case{i}"
        try:
            files = generate_package(hostile_doc(s), out)
        except CodegenError as exc:  # pragma: no cover - a failure here is the finding
            pytest.fail(f"case {i} ({s[:40]!r}) not generated: {exc.summary()}")
        check_package(files, benign)
        outs.append(out)
    import_all(outs, canary)


_FRAGMENTS = [
    '"', "'", '"""', "'''", "\\", "\n", "\r\n", "#", "{{", "}}", "{%", "%}", "{#", "\u2028",
    "\u2029", "\x00", "\t", "`", "$", "${x}", "%s", "\\u0000", "\\N{BULLET}", "__import__",
    "(", ")", ":", ";", "=", "-", ".", "/", "~", "{x}", "\U0001f600", "é", "class", "None",
]  # fmt: skip


@st.composite
def hostile_strings(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.one_of(
                st.sampled_from(_FRAGMENTS),
                st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8),
            ),
            min_size=1,
            max_size=12,
        )
    )
    return "".join(parts)


def _never_code(
    tmp_path_factory: pytest.TempPathFactory, benign: dict[str, set[str]], s: str
) -> None:
    out = tmp_path_factory.mktemp("hyp") / "dist"
    try:
        files = generate_package(hostile_doc(s), out)
    except CodegenError as exc:
        # only a diagnostic is acceptable, and it must be about the document, not a crash
        internal = {"models-failed", "models-name-lost", "format-failed"}
        assert all(d.id not in internal and d.message for d in exc.diagnostics), exc.summary()
        return
    check_package(files, benign)


_STRINGS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}


@pytest.mark.slow
@settings(max_examples=12, **_STRINGS)
@given(s=hostile_strings())
def test_generated_strings_never_become_code(
    tmp_path_factory: pytest.TempPathFactory, benign: dict[str, set[str]], s: str
) -> None:
    """12 strings in make test (on top of the fixed ones), 60 more with make test-heavy."""
    _never_code(tmp_path_factory, benign, s)


@pytest.mark.heavy
@settings(max_examples=60, **_STRINGS)
@given(s=hostile_strings())
def test_more_generated_strings_never_become_code(
    tmp_path_factory: pytest.TempPathFactory, benign: dict[str, set[str]], s: str
) -> None:
    _never_code(tmp_path_factory, benign, s)


@pytest.mark.slow
def test_hypothesis_strings_import_without_side_effects(tmp_path: Path) -> None:
    """Five drawn strings, each ending in code that would leave a canary if run, each in its own
    package; the packages are imported in one fresh interpreter (:func:`import_all`: the canary
    is looked for after each, so a finding names its package, and here its string)."""
    canary = tmp_path / CANARY_NAME
    made: dict[Path, str] = {}
    tries = itertools.count()

    @settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(s=hostile_strings())
    def generate(s: str) -> None:
        s = s + f"__import__('os').system('touch {canary}')"
        out = tmp_path / f"case{next(tries)}" / "dist"
        try:
            generate_package(hostile_doc(s), out)
        except CodegenError:
            return
        made[out] = s

    generate()
    if not made:  # every string refused with a diagnostic: nothing to import
        return
    try:
        import_all(list(made), canary)
    except AssertionError as exc:
        strings = "\n".join(f"{out}: {s!r}" for out, s in made.items())
        raise AssertionError(f"{exc}\nthe strings by package:\n{strings}") from None


# --- names that collide: with each other after sanitising, with Python, with our own code ------


def colliding_doc() -> dict[str, Any]:
    obj = {"type": "object", "properties": {"x": {"type": "string"}}}
    weird_props = {
        name: {"type": "string"}
        for name in (
            "a-b", "a_b", "aB", "AB", "class", "self", "model_config", "model_fields", "schema",
            "json", "copy", "dict", "field", "fields", "validate", "construct", "123", "",
            "_private", "__dunder__", "None", "True", "list", "type", "id", "from", "import",
        )
    }  # fmt: skip
    names = (
        "Pet", "pet", "PET", "Client", "Response", "Field", "BaseModel", "Literal", "Any",
        "list", "dict", "class", "None", "True", "self", "model_config", "a.b.c", "a-b-c", "a_b_c",
        "RootModel", "Enum", "Annotated", "AwareDatetime", "NotGiven", "Resource", "Count1",
    )  # fmt: skip
    schemas: dict[str, Any] = {n: obj for n in names}
    schemas.update(
        {
            "Weird": {"type": "object", "properties": weird_props, "required": ["a-b", "class"]},
            "Enumy": {"type": "string", "enum": ["a-b", "a_b", "A B", "a b", "", "1", "class"]},
            "Node": {
                "type": "object",
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                    "partner": {"$ref": "#/components/schemas/Partner"},
                },
            },
            "Partner": {
                "type": ["object", "null"],
                "properties": {"node": {"$ref": "#/components/schemas/Node"}},
            },
            "Nullable30": {"type": "object", "properties": {"v": {"type": "string"}}},
            "Tuple": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "Const": {
                "type": "object",
                "properties": {"k": {"const": "fixed"}, "r": {"const": 1.5}},
            },
            # a constrained union branch the model library would name ``Count1`` itself
            "Holder": {
                "type": "object",
                "properties": {
                    "count": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
                    "count1": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
                    "mine": {"$ref": "#/components/schemas/Count1"},
                },
            },
        }
    )

    def op(op_id: str | None, tag: str, **extra: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"tags": [tag], "responses": {"204": {"description": "ok"}}}
        if op_id is not None:
            out["operationId"] = op_id
        out.update(extra)
        return out

    params = [
        {"name": n, "in": "query", "schema": {"type": "string"}}
        for n in ("self", "timeout", "extra_headers", "body", "class", "a-b", "a_b", "max_retries")
    ]

    def body(media: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"required": True, "content": {media: {"schema": schema}}}

    def reply(media: str) -> dict[str, Any]:
        return {"200": {"description": "ok", "content": {media: {"schema": {"type": "string"}}}}}

    return {
        "openapi": "3.1.0",
        "info": {"title": "Collisions", "version": "1"},
        "paths": {
            "/pets": {
                "get": op(None, "Client", parameters=params),
                "post": op(None, "Client", requestBody=body("application/octet-stream", {})),
            },
            "/pets/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {}}],
                "get": op("get-pet", "pets"),
                "put": op("get_pet", "pets", requestBody=body("text/csv", {"type": "string"})),
                "patch": op("getPet", "pets", requestBody=body("application/pdf", {})),
                "delete": op("getPet", "pets"),
            },
            "/forms": {
                "post": op(
                    "close",
                    "with_raw_response",
                    requestBody=body(
                        "multipart/form-data",
                        {"type": "object", "properties": {"file": {"format": "binary"}}},
                    ),
                ),
                "put": op(
                    "copy",
                    "class",
                    requestBody=body(
                        "application/x-www-form-urlencoded",
                        {"type": "object", "properties": {"a": {"type": "string"}}},
                    ),
                ),
            },
            "/events": {"get": op("stream", "", responses=reply("text/event-stream"))},
            "/report": {"get": op("report", "Response", responses=reply("application/pdf"))},
            "/csv": {"get": op("csv", "Response", responses=reply("text/csv"))},
            "/nodes": {
                "get": op(
                    "nodes",
                    "pets",
                    responses={
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "array",
                                        "items": {
                                            "anyOf": [
                                                {"$ref": "#/components/schemas/Node"},
                                                {"$ref": "#/components/schemas/Holder"},
                                                {"$ref": "#/components/schemas/Weird"},
                                            ]
                                        },
                                    }
                                }
                            },
                        }
                    },
                )
            },
        },
        "webhooks": {"ping": {"post": op("ping", "hooks")}},
        "components": {"schemas": schemas},
    }


@pytest.mark.slow
def test_colliding_names_give_a_clean_typed_package(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    generate_package(colliding_doc(), out)
    check_clean_and_typed(out, PACKAGE, tmp_path / "mypy", "--extend-ignore", "RUF036")
    import_all([out], tmp_path / CANARY_NAME)
    # our ``Count1`` is the component, not a union branch named like it
    run_python(
        f"from {PACKAGE} import models\n"
        "ann = str(models.Holder.model_fields['mine'].annotation)\n"
        "assert 'Count1' in ann and 'x' in models.Count1.model_fields, ann\n",
        out,
    )
