"""Walk two schemas side by side and collect what the registered schema checks find.

Matched pairs are compared once: results are memoised per (old node, new node, direction,
subject), so a component schema used by hundreds of operations costs one walk. Recursive schemas
stop where a pair is already being walked further up, and nesting is bounded by ``MAX_DEPTH``;
a result that depended on such a cut is not memoised (it is only partial for its own position).
"""

from __future__ import annotations

from generator.drift.context import Direction, Finding, SchemaPair
from generator.drift.registry import SCHEMA_CHECKS
from generator.drift.schema_view import Sub, ViewBuilder

MAX_DEPTH = 24
_NO_CUT = 1 << 30

_MemoKey = tuple[int, int, str, str]


class SchemaComparer:
    def __init__(self, old: ViewBuilder, new: ViewBuilder) -> None:
        self.old = old
        self.new = new
        self._memo: dict[_MemoKey, tuple[Finding, ...]] = {}
        self._active: dict[_MemoKey, int] = {}

    def compare(
        self, old: Sub, new: Sub, direction: Direction, subject: str
    ) -> tuple[Finding, ...]:
        return self._walk(old, new, direction, subject, 0)[0]

    def _walk(
        self, old: Sub, new: Sub, direction: Direction, subject: str, depth: int
    ) -> tuple[tuple[Finding, ...], int]:
        """Findings for one pair, and the shallowest depth of an active pair a cycle returned to."""
        if depth > MAX_DEPTH:
            return (), _NO_CUT
        ov = self.old.view(old.node, old.pointer)
        nv = self.new.view(new.node, new.pointer)
        key = (ov.identity, nv.identity, direction, subject)
        memo = self._memo.get(key)
        if memo is not None:
            return memo, _NO_CUT
        if key in self._active:
            return (), self._active[key]
        self._active[key] = depth
        try:
            pair = SchemaPair(ov, nv, direction, subject, self.old, self.new)
            found: list[Finding] = []
            for check in SCHEMA_CHECKS:
                found.extend(check(pair))
            cut = _NO_CUT
            property_subject = f"{direction}-property"
            for step, osub, nsub, child_subject in self._children(pair, property_subject):
                child, child_cut = self._walk(osub, nsub, direction, child_subject, depth + 1)
                cut = min(cut, child_cut)
                found.extend(Finding(f.rule, f.pointer, (step, *f.path), f.text) for f in child)
        finally:
            del self._active[key]
        result = tuple(found)
        if cut >= depth:
            self._memo[key] = result
            cut = _NO_CUT
        return result, cut

    @staticmethod
    def _children(pair: SchemaPair, property_subject: str) -> list[tuple[str, Sub, Sub, str]]:
        ov, nv = pair.old, pair.new
        out: list[tuple[str, Sub, Sub, str]] = []
        if ov.object_like and nv.object_like:
            for name, nsub in nv.properties.items():
                osub = ov.properties.get(name)
                if osub is not None:
                    out.append((name, osub, nsub, property_subject))
            if ov.additional is not None and nv.additional is not None:
                out.append(("{}", ov.additional, nv.additional, pair.subject))
        if ov.items is not None and nv.items is not None:
            out.append(("[]", ov.items, nv.items, pair.subject))
        old_variants = dict(ov.variants)
        for name, nsub in nv.variants:
            osub = old_variants.get(name)
            if osub is not None:
                out.append((f"<{name}>", osub, nsub, pair.subject))
        return out
