"""``cube-codegen drift``: a semantic comparison of two OpenAPI documents, rated from the point of
view of code that uses the generated client (breaking, warning, info)."""

from __future__ import annotations

from generator.drift.engine import DriftReport, check_document, compare
from generator.drift.model import LEVELS, Change, ChangeLevel, Rule
from generator.drift.registry import RULES

__all__ = [
    "LEVELS",
    "RULES",
    "Change",
    "ChangeLevel",
    "DriftReport",
    "Rule",
    "check_document",
    "compare",
]
