"""Which properties of a request object are sent together, as its ``oneOf``/``anyOf``/``allOf``/
``not`` keywords state it: the rule a generated method checks before sending."""

from __future__ import annotations

from typing import Any

from generator.ir.context import obj
from generator.ir.types import Rule

_RULE_KEYS = ("oneOf", "anyOf", "allOf", "not")
_RULE_NOTES = frozenset({"description", "title", "$comment"})


def body_rule(model: Any) -> Rule | None:
    """The rule a request object's ``oneOf``/``anyOf``/``allOf``/``not`` keywords state about which
    of its own properties are sent together, or None when it has none (or states more than that).

    ``{properties: {a, b}, oneOf: [{required: [a]}, {required: [b]}]}`` is "exactly one of a, b".
    """
    schema = obj(model)
    props = obj(schema.get("properties"))
    if not props or not any(k in schema for k in _RULE_KEYS):
        return None
    parts = []
    for key in _RULE_KEYS:
        if key in schema:
            part = _rule({key: schema[key]}, frozenset(props))
            if part is None:
                return None
            parts.append(part)
    return parts[0] if len(parts) == 1 else Rule("allOf", rules=tuple(parts))


def _rule(node: Any, props: frozenset[str]) -> Rule | None:
    """A presence rule for a schema that only says which of ``props`` are required, else None."""
    if not isinstance(node, dict) or set(node) - _RULE_NOTES - {"required", *_RULE_KEYS}:
        return None
    parts: list[Rule] = []
    req = node.get("required")
    if req is not None:
        if not isinstance(req, list) or not all(isinstance(r, str) and r in props for r in req):
            return None
        parts.append(Rule("required", names=tuple(req)))
    if "not" in node:
        inner = _rule(node["not"], props)
        if inner is None:
            return None
        parts.append(Rule("not", rules=(inner,)))
    for key in ("oneOf", "anyOf", "allOf"):
        if key not in node:
            continue
        branches = node[key]
        if not isinstance(branches, list) or not branches:
            return None
        subs = [_rule(b, props) for b in branches]
        if any(s is None for s in subs):
            return None
        parts.append(Rule(key, rules=tuple(s for s in subs if s is not None)))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Rule("allOf", rules=tuple(parts))
