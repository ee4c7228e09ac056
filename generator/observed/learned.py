"""Findings turned into overlay actions, each carrying its evidence (``x-observed``).

- a field the document does not list: the property is added to its object schema, typed as
  seen (``integer``, ``string`` with its format, ...);
- an enum value it does not list: the value is added to the enum (of the schema that has it);
- a null it does not allow: the field's schema gets ``nullable: true``;
- a required field missing: the name is removed from ``required`` (``x-cube-optional``, so the
  action is quiet once the document stops requiring it);
- a union variant it does not list: an object variant tagged with the seen value is added.

Targets are written as JSONPath with every name quoted (``$['components']['schemas']['X']``):
a name from a record never becomes anything but a quoted string, in the target or as a YAML key.
Each schema an action changes is marked ``x-cube-observed: true`` (the generated tests replay
it); the retirement of redundant actions (:mod:`generator.overlay.retire`) ignores the mark, so it
finds them once the service's own document has what they add.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from generator.observed.check import Finding
from generator.observed.locate import Path
from generator.observed.records import Observation

TITLE = "Learned from what the service sends"
MARK = "x-cube-observed"
"""Set on each schema a learned action changes: the generated tests replay a body built from
it (:mod:`generator.emit.testcases`); retirement ignores it (:mod:`generator.overlay.retire`)."""
FILE_NAME = "learned.overlay.yaml"


def jsonpath(path: Path) -> str:
    """A normalized JSONPath (RFC 9535) selecting exactly the node at ``path``."""
    parts = ["$"]
    for token in path:
        if isinstance(token, int):
            parts.append(f"[{token}]")
        else:
            text = token.replace("\\", "\\\\").replace("'", "\\'")
            parts.append(f"['{text}']")
    return "".join(parts)


def _string(text: str) -> str:
    """A normalized-path string literal, for a filter's comparison value."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def evidence(obs: Observation) -> dict[str, Any]:
    return {
        "count": obs.count,
        "first": obs.first,
        "last": obs.last,
        "versions": list(obs.versions),
    }


def seen_schema(types: Iterable[tuple[str, str | None]]) -> dict[str, Any]:
    """The schema of a new property from the JSON types (and formats) seen for it."""
    names: list[str] = []
    fmt: str | None = None
    for kind, form in types:
        if kind not in names:
            names.append(kind)
        fmt = fmt or form
    nullable = "null" in names
    names = [n for n in names if n != "null"]
    if "integer" in names and "number" in names:
        names.remove("integer")
    schema: dict[str, Any] = {}
    if len(names) == 1:
        schema["type"] = names[0]
    elif names:
        schema["type"] = names
    if names == ["string"] and fmt:
        schema["format"] = fmt
    if names == ["array"]:
        schema["items"] = {}
    if nullable and names:
        schema["nullable"] = True
    return schema


def _where(obs: Observation) -> str:
    return f"{obs.method} {obs.path} ({obs.status} {obs.media_type}) at {obs.pointer or '/'}"


def actions(findings: Iterable[Finding]) -> list[dict[str, Any]]:
    """One overlay action per finding to learn (new fields seen with several types: one)."""
    out: list[dict[str, Any]] = []
    fields: dict[tuple[Path, str], list[Finding]] = {}
    for f in findings:
        if f.status != "learn":
            continue
        if f.obs.kind == "property-unknown" and f.site.owner is not None:
            fields.setdefault((f.site.owner, f.site.name), []).append(f)
        else:
            action = _action(f)
            if action is not None:
                out.append(action)
    for (owner, name), group in fields.items():
        first = group[0].obs
        schema = seen_schema((g.obs.seen.type, g.obs.seen.format) for g in group)
        merged = first
        for g in group[1:]:
            merged = _merged(merged, g.obs)
        out.append(
            {
                "target": jsonpath((*owner, "properties")),
                "description": f"Observed: responses of {_where(first)} carry this field, "
                "which the document does not list.",
                "update": {name: {**schema, MARK: True}},
                "x-observed": evidence(merged),
            }
        )
    return out


def _merged(a: Observation, b: Observation) -> Observation:
    from dataclasses import replace

    return replace(
        a,
        count=a.count + b.count,
        first=min(a.first, b.first),
        last=max(a.last, b.last),
        versions=tuple(sorted({*a.versions, *b.versions})),
    )


def _action(f: Finding) -> dict[str, Any] | None:
    obs, site = f.obs, f.site
    base = {"x-observed": evidence(obs)}
    if obs.kind == "enum-value-unknown" and site.node is not None:
        return {
            "target": jsonpath(site.node),
            "description": f"Observed: responses of {_where(obs)} carry a value the enum lacks.",
            "update": {"enum": [obs.seen.value], MARK: True},
            **base,
        }
    if obs.kind == "null-not-allowed" and site.node is not None:
        return {
            "target": jsonpath(site.node),
            "description": f"Observed: responses of {_where(obs)} carry null here.",
            "update": {"nullable": True, MARK: True},
            **base,
        }
    if obs.kind == "required-missing" and site.owner is not None:
        return {
            "target": f"{jsonpath((*site.owner, 'required'))}[?@ == {_string(site.name)}]",
            "description": f"Observed: responses of {_where(obs)} leave this required field out.",
            "remove": True,
            "x-cube-optional": True,
            **base,
        }
    if obs.kind == "union-variant-unknown" and site.owner is not None:
        variant = {
            "type": "object",
            "required": [site.name],
            "properties": {site.name: {"type": obs.seen.type, "enum": [obs.seen.value]}},
        }
        return {
            "target": jsonpath(site.owner),
            "description": f"Observed: responses of {_where(obs)} carry a variant the union lacks.",
            "update": [variant],
            **base,
        }
    return None


def overlay_document(existing: dict[str, Any] | None, new: list[dict[str, Any]]) -> dict[str, Any]:
    """The learned overlay: ``existing`` (if any) with ``new`` actions appended."""
    doc: dict[str, Any] = (
        dict(existing)
        if existing
        else {"overlay": "1.0.0", "info": {"title": TITLE, "version": "1.0.0"}}
    )
    doc["actions"] = [*(doc.get("actions") or []), *new]
    return doc
