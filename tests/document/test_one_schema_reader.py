"""Type mapping, test samples and drift read schema keywords only through
:mod:`generator.document.schema_facts`: none of them reads ``node.get("nullable")``,
``node["type"]`` or ``"exclusiveMinimum" in node`` itself, so they cannot drift apart on what a
schema says (3.0 ``nullable`` against 3.1 type lists, exclusive bounds as flags or numbers...)."""

from __future__ import annotations

import ast

import pytest

from generator.document.schema_facts import BOUND_KEYWORDS
from tests.helpers import ROOT

READERS = (
    "generator/ir/schemas.py",
    "generator/ir/samples.py",
    "generator/ir/sample_book.py",
    "generator/drift/schema_view.py",
    "generator/drift/schema_walk.py",
)
# the keywords the one reading answers for
KEYWORDS = frozenset(
    {
        *BOUND_KEYWORDS,
        "type",
        "nullable",
        "enum",
        "const",
        "default",
        "format",
        "pattern",
        "title",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "allOf",
        "oneOf",
        "anyOf",
        "discriminator",
        "$ref",
        "readOnly",
        "writeOnly",
    }
)


# nullability and exclusive bounds, spelled two ways each: read by no other module at all
FOLDED = frozenset({"nullable", "exclusiveMinimum", "exclusiveMaximum"})
VIEW = "generator/document/schema_facts.py"


def _keyword(node: ast.AST | None, keywords: frozenset[str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in keywords:
        return node.value
    return None


def raw_reads(source: str, keywords: frozenset[str] = KEYWORDS) -> list[str]:
    """``line: code`` of each place ``source`` reads one of ``keywords`` from a mapping itself:
    ``x.get("kw")``, ``x["kw"]`` (not an assignment to it) and ``"kw" in x``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        hit = None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and node.args
        ):
            hit = _keyword(node.args[0], keywords)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            hit = _keyword(node.slice, keywords)
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            hit = _keyword(node.left, keywords)
        if hit is not None:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", READERS)
def test_reader_reads_no_schema_keyword_itself(path: str) -> None:
    found = raw_reads((ROOT / path).read_text(encoding="utf-8"))
    assert found == [], f"{path} reads schema keywords itself; use schema_facts:\n" + "\n".join(
        found
    )


def test_no_module_reads_nullability_or_exclusive_bounds_itself() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{hit}"
        for path in sorted((ROOT / "generator").rglob("*.py"))
        if path.relative_to(ROOT).as_posix() != VIEW
        for hit in raw_reads(path.read_text(encoding="utf-8"), FOLDED)
    ]
    assert found == [], "read these through generator.document.schema_facts:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "snippet",
    [
        'nullable = schema.get("nullable") is True',
        'kind = schema["type"]',
        'exclusive = "exclusiveMinimum" in schema',
        'members = node.get("oneOf", [])',
        'if "$ref" not in node: pass',
    ],
)
def test_a_raw_read_is_found(snippet: str) -> None:
    assert len(raw_reads(snippet)) == 1


@pytest.mark.parametrize(
    "snippet",
    [
        'out = {"$ref": target}',  # building a node is not reading one
        'if key in ("items", "additionalProperties"): pass',  # a rewrite's key dispatch
        'value[name] = key; text = disc.get("mapping")',
        'out["type"] = "object"',
    ],
)
def test_other_code_is_not_a_raw_read(snippet: str) -> None:
    assert raw_reads(snippet) == []
