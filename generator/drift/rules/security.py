"""Security schemes (document-wide) and the security requirements of each operation.

A requirement list is a set of alternatives, each a set of schemes that must all be satisfied.
A caller's configured credentials work when some alternative is a subset of them, so a change
breaks callers when an alternative that used to work has no new alternative inside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.diagnostics import join_pointer, one_line, pointer
from generator.drift.context import DocumentPair, OperationPair
from generator.drift.model import Change
from generator.drift.registry import define, document_check, operation_check

SCHEME_ADDED = define(
    "security-scheme-added",
    "info",
    """A new way to authenticate; the client gains an option, nothing existing changes.""",
)
SCHEME_REMOVED = define(
    "security-scheme-removed",
    "breaking",
    """The client loses the credential option for that scheme; code that configures it fails,
    and the server no longer accepts it.""",
)
SCHEME_CHANGED = define(
    "security-scheme-changed",
    "warning",
    """Same scheme name, different mechanism (type, HTTP scheme, or where an API key goes): the
    regenerated client sends the credential the new way by itself, but the credential itself
    may need to change (a bearer token is not a basic password).""",
)
REQUIREMENT_ADDED = define(
    "security-requirement-added",
    "breaking",
    """The operation now needs credentials it did not need (it was anonymous, or needs another
    scheme on top): callers configured as before get 401.""",
)
REQUIREMENT_REMOVED = define(
    "security-requirement-removed",
    "breaking",
    """A way of authenticating this operation accepted before is gone: callers using only
    those credentials get 401.""",
)
ALTERNATIVE_ADDED = define(
    "security-alternative-added",
    "info",
    """One more acceptable way to authenticate, or none needed any more: every caller that
    could call before still can.""",
)
SCOPE_ADDED = define(
    "security-scope-added",
    "warning",
    """The operation needs an extra OAuth scope: code is unchanged, but tokens issued without
    the scope now get 403.""",
)

_SCHEME_FIELDS = ("type", "scheme", "in", "name")


def _schemes(doc: dict[str, Any]) -> dict[str, Any]:
    components = doc.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, dict) else None
    return schemes if isinstance(schemes, dict) else {}


def _shape(scheme: Any) -> tuple[str, ...]:
    if not isinstance(scheme, dict):
        return ()
    return tuple(
        str(scheme.get(f, "")).lower() if f == "scheme" else str(scheme.get(f, ""))
        for f in _SCHEME_FIELDS
    )


@document_check
def security_schemes(docs: DocumentPair) -> Iterator[Change]:
    old, new = _schemes(docs.old), _schemes(docs.new)
    for name in new:
        ptr = pointer("components", "securitySchemes", name)
        if name not in old:
            yield docs.change(SCHEME_ADDED, ptr, f"security scheme {one_line(name, 80)} added")
        else:
            old_node, _ = docs.old_resolver.resolve(old[name], ptr)
            new_node, _ = docs.new_resolver.resolve(new[name], ptr)
            if _shape(old_node) != _shape(new_node):
                yield docs.change(
                    SCHEME_CHANGED,
                    ptr,
                    f"security scheme {one_line(name, 80)} changed how it is sent",
                )
    for name in old:
        if name not in new:
            ptr = pointer("components", "securitySchemes", name)
            yield docs.change(SCHEME_REMOVED, ptr, f"security scheme {one_line(name, 80)} removed")


Alternatives = dict[frozenset[str], dict[str, frozenset[str]]]


def effective_security(
    doc: dict[str, Any], op: dict[str, Any], op_ptr: str
) -> tuple[Alternatives, str]:
    """The operation's alternatives (scheme set to scopes per scheme) and where they are written."""
    if "security" in op:
        raw, ptr = op["security"], join_pointer(op_ptr, "security")
    else:
        raw, ptr = doc.get("security"), "/security"
    alternatives: Alternatives = {}
    if isinstance(raw, list):
        for requirement in raw:
            if isinstance(requirement, dict):
                scopes = {
                    str(k): frozenset(str(s) for s in v) if isinstance(v, list) else frozenset()
                    for k, v in requirement.items()
                }
                alternatives[frozenset(scopes)] = scopes
    if not alternatives:
        alternatives[frozenset()] = {}  # no requirement: anonymous access
    return alternatives, ptr


def _names(schemes: frozenset[str]) -> str:
    return " + ".join(sorted(schemes)) or "no credentials"


@operation_check
def security_requirements(op: OperationPair) -> Iterator[Change]:
    old, _ = effective_security(op.docs.old, op.old.node, op.old.pointer)
    new, new_ptr = effective_security(op.docs.new, op.new.node, op.new.pointer)
    explained: set[frozenset[str]] = set()
    for alt in sorted(old, key=sorted):
        if any(candidate <= alt for candidate in new):
            continue
        wider = sorted((n for n in new if alt < n), key=sorted)
        if not alt or wider:
            extra = wider[0] - alt if wider else min(new, key=len)
            explained.update(wider[:1])
            yield op.change(
                REQUIREMENT_ADDED,
                new_ptr,
                f"now requires {_names(frozenset(extra))} (was {_names(alt)})",
            )
        else:
            yield op.change(REQUIREMENT_REMOVED, new_ptr, f"no longer accepts {_names(alt)}")
    for alt in sorted(new, key=sorted):
        if alt not in old and alt not in explained:
            yield op.change(ALTERNATIVE_ADDED, new_ptr, f"now also accepts {_names(alt)}")
        elif alt in old:
            for scheme, scopes in sorted(new[alt].items()):
                added = scopes - old[alt].get(scheme, frozenset())
                if added:
                    text = ", ".join(sorted(added))
                    yield op.change(
                        SCOPE_ADDED,
                        new_ptr,
                        f"scheme {one_line(scheme, 60)} now needs scope {one_line(text, 120)}",
                    )
