"""The rule book: every drift rule id with its level and reasoning, filled by the rule modules.

It sits below the pairs the checks receive (``context``), which look rules up here by id, and below
the check registry (``registry``), so registering a rule never imports the comparer that runs it.
"""

from __future__ import annotations

from generator.drift.model import ChangeLevel, Rule

RULES: dict[str, Rule] = {}


def define(id: str, level: ChangeLevel, doc: str) -> Rule:
    """Register one rule; ids are unique across all rule modules."""
    if id in RULES:
        raise ValueError(f"drift rule {id!r} is defined twice")
    rule = Rule(id, level, " ".join(doc.split()))
    RULES[id] = rule
    return rule
