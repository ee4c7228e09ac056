"""Drift findings in the SDK's words: which Python surface a change reaches, and whether user code
that type-checked against the old package still type-checks against the new one.

Each document is built into the IR the generator itself uses (one family at the package root), so
the names are the names the package has: ``client.<resource>.<method>(<parameter>=...)`` and
``models.<Model>.<field>``. A finding also gets a stable fingerprint (rule, operation and a
pointer with parameter positions replaced by their names) and its line in each document.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal

from generator.beside import Beside
from generator.diagnostics import escape_pointer_token, resolve_pointer, split_pointer
from generator.drift.engine import DriftReport, compare
from generator.drift.lines import LineIndex
from generator.drift.model import Change
from generator.ir.types import Family, LiteralOf, Operation, Primitive, Resource, TypeRef, UnionOf
from generator.words import snake_case

SurfaceKind = Literal["client", "resource", "method", "parameter", "model", "field"]

# Changes after which code written against the old package no longer type-checks (mypy --strict):
# the name it used is gone, an argument it must now pass is missing, a value it passed or a value
# it read no longer has the declared type.
_STOPS_TYPE_CHECKING = frozenset(
    {
        "operation-removed",
        "request-body-removed",
        "request-body-added-required",
        "request-body-became-required",
        "component-schema-removed",
        "response-property-removed",
        "response-property-became-optional",
        "response-property-became-nullable",
        "response-property-type-changed",
        # a value read into the old, narrower type (a Literal, a union) no longer fits it
        "response-property-enum-value-added",  # enums, named or not, are Literal fields
        "response-property-variant-added",
    }
    | {
        f"request-{where}-{what}"
        for where in ("parameter", "property")
        for what in (
            "removed",
            "added-required",
            "became-required",
            "became-not-nullable",
            "type-changed",
            "enum-value-removed",
            "variant-removed",
        )
    }
)


@dataclass(frozen=True, slots=True)
class Surface:
    kind: SurfaceKind
    python: str  # e.g. ``client.roles.update_role(name=...)`` or ``models.Role.name``
    resource: str = ""
    method: str = ""
    name: str = ""  # the parameter, or the field
    model: str = ""


@dataclass(frozen=True, slots=True)
class Finding:
    change: Change
    surface: Surface
    type_checks: bool  # user code that type-checked before still does
    fingerprint: str
    old_line: int | None
    new_line: int | None
    in_new: bool = True  # the pointer names a node of NEW (else of OLD: a removal)

    @property
    def line(self) -> int | None:
        """The line of the change in the document its pointer points into."""
        return self.new_line if self.in_new else self.old_line

    def to_json(self) -> dict[str, Any]:
        return {
            **self.change.to_json(),
            "fingerprint": self.fingerprint,
            "surface": {k: v for k, v in _surface_json(self.surface).items() if v},
            "still_type_checks": self.type_checks,
            "lines": {"old": self.old_line, "new": self.new_line},
        }


def _surface_json(surface: Surface) -> dict[str, str]:
    return {
        "kind": surface.kind,
        "python": surface.python,
        "resource": surface.resource,
        "method": surface.method,
        "name": surface.name,
        "model": surface.model,
    }


class SdkIndex:
    """One document as the generated package sees it (best effort: an empty index on failure)."""

    def __init__(self, doc: Any, file: str) -> None:
        self.doc = doc
        self.ops: dict[str, tuple[Resource, Operation]] = {}
        self.models: dict[str, str] = {}  # component pointer → class name
        self.family: Family | None = None
        if not isinstance(doc, dict):
            return
        try:
            from generator.document.config import FamilyConfig
            from generator.pipeline import family_builder

            config = FamilyConfig(name="api", document=file, module="", client="Api")
            builder = family_builder(doc, file, config)
            self.family = builder.build(models=False)
        except Exception:  # a document the generator refuses still gets OpenAPI-level findings
            return
        for resource in self.family.resources:
            for op in resource.operations:
                self.ops[op.pointer] = (resource, op)
        self.models = {
            ptr.lstrip("#"): str(cls) for ptr, cls in builder.ctx.catalog.by_pointer.items()
        }

    def operation(self, ptr: str) -> tuple[Resource, Operation] | None:
        return self.ops.get(ptr)


def _labels(doc: Any, file: str) -> dict[str, str]:
    """Operation label (as drift names it) → pointer of the operation in ``doc``."""
    from generator.document.refs import Resolver
    from generator.drift.operations import index_operations

    try:
        views = index_operations(doc, file, Resolver(doc, file, error_id="drift-invalid-ref"))
    except Exception:
        return {}
    return {view.label: view.pointer for view in views.values()}


def compare_in_sdk_words(
    old_doc: Any, new_doc: Any, old_file: str, new_file: str
) -> tuple[DriftReport, list[Finding]]:
    """The drift report of two documents and its findings in the SDK's words. The documents
    are compared on a second core (:class:`~generator.beside.Beside`) while this one builds
    both packages' surfaces: about the time of the longer of the two, not their sum."""
    with Beside(lambda: compare(old_doc, new_doc, old_file=old_file, new_file=new_file)) as cmp:
        mapper = SurfaceMapper(old_doc, new_doc, old_file, new_file)
        report = cmp.result()
    return report, mapper.findings(report)


class SurfaceMapper:
    def __init__(self, old_doc: Any, new_doc: Any, old_file: str = "", new_file: str = "") -> None:
        self.old, self.new = SdkIndex(old_doc, old_file), SdkIndex(new_doc, new_file)
        self.old_labels, self.new_labels = _labels(old_doc, old_file), _labels(new_doc, new_file)
        self.old_lines, self.new_lines = LineIndex.of_file(old_file), LineIndex.of_file(new_file)

    def findings(self, report: DriftReport) -> list[Finding]:
        return [self.finding(c) for c in report.changes]

    def finding(self, change: Change) -> Finding:
        surface = self.surface(change)
        type_checks = change.id not in _STOPS_TYPE_CHECKING
        if change.id == "operation-id-changed":
            type_checks = not self._method_renamed(change)
        elif change.id.endswith("-type-changed") and surface.kind == "parameter":
            old_new = self._argument_types(change, surface)
            if old_new is not None:
                type_checks = _accepts(old_new[1], old_new[0])
        return Finding(
            change,
            surface,
            type_checks,
            self.fingerprint(change),
            self.old_lines.line(change.pointer),
            self.new_lines.line(change.pointer),
            _exists(self.new.doc, change.pointer),
        )

    def _op(self, label: str | None) -> tuple[Resource, Operation] | None:
        if label is None:
            return None
        for labels, index in ((self.new_labels, self.new), (self.old_labels, self.old)):
            ptr = labels.get(label)
            found = index.operation(ptr) if ptr else None
            if found:
                return found
        return None

    def _argument_types(self, change: Change, surface: Surface) -> tuple[TypeRef, TypeRef] | None:
        """The argument's type in the old and in the new package, when both have it."""
        label = change.operation or ""
        found: list[TypeRef] = []
        for labels, index in ((self.old_labels, self.old), (self.new_labels, self.new)):
            op = index.operation(labels.get(label, ""))
            t = _argument_type(op[1], surface.name) if op else None
            if t is None:
                return None
            found.append(t)
        return found[0], found[1]

    def _method_renamed(self, change: Change) -> bool:
        old = self.old_labels.get(change.operation or "")
        new = self.new_labels.get(change.operation or "")
        old_op, new_op = self.old.operation(old or ""), self.new.operation(new or "")
        return bool(old_op and new_op and old_op[1].py_name != new_op[1].py_name)

    def surface(self, change: Change) -> Surface:
        found = self._op(change.operation)
        tokens = _tokens(change.pointer)
        if found is None:
            return self._model_surface(change, tokens) or Surface("client", "client")
        resource, op = found
        method = f"client.{resource.attr}.{op.py_name}"
        base = {"resource": str(resource.attr), "method": str(op.py_name)}
        if change.id.startswith("request-parameter-"):
            name = self._parameter_name(change, op)
            return Surface("parameter", f"{method}({name}=...)", name=name, **base)
        if change.id.startswith("request-property-"):
            field = self._body_field(change, op, tokens)
            if field:
                return Surface("parameter", f"{method}({field}=...)", name=field, **base)
        if change.id.startswith(("request-property-", "response-property-")):
            model = self._model_surface(change, tokens)
            if model:
                return Surface(model.kind, model.python, name=model.name, model=model.model, **base)
        if change.id.startswith("operation-") or change.id.startswith(
            ("request-body-", "request-media-", "response-", "path-parameter-")
        ):
            return Surface("method", f"{method}()", **base)
        return Surface("resource", f"client.{resource.attr}", resource=str(resource.attr))

    def _parameter_name(self, change: Change, op: Operation) -> str:
        for doc in (self.new.doc, self.old.doc):
            param = _parameter_at(doc, change.pointer)
            if param:
                for p in op.parameters:
                    if (p.location, p.name) == (param.get("in"), param.get("name")):
                        return str(p.py_name)
                return snake_case(str(param.get("name", "")))
        return "?"

    def _body_field(self, change: Change, op: Operation, tokens: list[str]) -> str:
        """The keyword argument a top-level property of a flattened request body became."""
        if op.body is None or op.body.fields is None or len(tokens) < 2:
            return ""
        if tokens[-2] != "properties":
            return ""
        owner = "/" + "/".join(escape_pointer_token(t) for t in tokens[:-2])
        for index in (self.new, self.old):
            body_schema = _body_schema(index.doc, op)
            if body_schema is not None and body_schema in (owner, f"#{owner}"):
                break
        else:
            if "requestBody" not in tokens:
                return ""
        for f in op.body.fields:
            if f.name == tokens[-1]:
                return str(f.py_name)
        return snake_case(tokens[-1])

    def _model_surface(self, change: Change, tokens: list[str]) -> Surface | None:
        if len(tokens) < 3 or tokens[:2] != ["components", "schemas"]:
            return None
        ptr = "/components/schemas/" + escape_pointer_token(tokens[2])
        model = self.new.models.get(ptr) or self.old.models.get(ptr) or tokens[2]
        if len(tokens) >= 5 and tokens[3] == "properties":
            field = snake_case(tokens[4])
            return Surface("field", f"models.{model}.{field}", name=field, model=model)
        return Surface("model", f"models.{model}", model=model)

    def fingerprint(self, change: Change) -> str:
        """Stable across runs and across reordering: parameter positions become their names."""
        ptr = change.pointer
        for doc in (self.new.doc, self.old.doc):
            param = _parameter_at(doc, ptr)
            if param:
                tokens = _tokens(ptr)
                at = tokens.index("parameters")
                tokens[at + 1] = f"{param.get('in')}:{param.get('name')}"
                ptr = "/" + "/".join(escape_pointer_token(t) for t in tokens)
                break
        digest = hashlib.sha256(
            "\0".join((change.id, change.operation or "", ptr)).encode("utf-8")
        ).hexdigest()
        return digest[:16]


def _argument_type(op: Operation, name: str) -> TypeRef | None:
    for p in op.parameters:
        if p.py_name == name:
            return p.type
    if op.body is not None and op.body.fields is not None:
        for f in op.body.fields:
            if f.py_name == name:
                return f.type
    return None


def _members(t: TypeRef) -> tuple[TypeRef, ...]:
    return tuple(m for u in t.members for m in _members(u)) if isinstance(t, UnionOf) else (t,)


def _accepts(new: TypeRef, old: TypeRef) -> bool:
    """Whether every value of the old argument type is still a value of the new one (the rules
    mypy applies: a union accepts its members, ``float`` accepts ``int``, ``Any`` everything)."""
    targets = _members(new)
    if Primitive("Any") in targets:
        return True

    def fits(member: TypeRef) -> bool:
        if member in targets:
            return True
        if member == Primitive("int") and Primitive("float") in targets:
            return True
        if isinstance(member, LiteralOf):
            return all(
                LiteralOf((v,)) in targets
                or any(isinstance(t, LiteralOf) and v in t.values for t in targets)
                or Primitive(_LITERAL_BASE[type(v)]) in targets
                for v in member.values
            )
        return False

    return all(fits(m) for m in _members(old))


_LITERAL_BASE: dict[type, Any] = {str: "str", int: "int", bool: "bool"}


def _exists(doc: Any, ptr: str) -> bool:
    try:
        resolve_pointer(doc, ptr)
    except (KeyError, ValueError, IndexError, TypeError):
        return False
    return True


def _tokens(ptr: str) -> list[str]:
    try:
        return split_pointer(ptr)
    except ValueError:
        return []


def _parameter_at(doc: Any, ptr: str) -> dict[str, Any] | None:
    tokens = _tokens(ptr)
    if "parameters" not in tokens:
        return None
    at = tokens.index("parameters")
    if at + 1 >= len(tokens) or not tokens[at + 1].isdigit():
        return None
    try:
        param = resolve_pointer(
            doc, "/" + "/".join(escape_pointer_token(t) for t in tokens[: at + 2])
        )
    except (KeyError, ValueError, IndexError, TypeError):
        return None
    if isinstance(param, dict) and "$ref" in param and isinstance(param["$ref"], str):
        try:
            param = resolve_pointer(doc, param["$ref"].lstrip("#"))
        except (KeyError, ValueError, IndexError, TypeError):
            return None
    return param if isinstance(param, dict) else None


def _body_schema(doc: Any, op: Operation) -> str | None:
    """The ``$ref`` of the operation's request body schema, when it is one."""
    try:
        node = resolve_pointer(doc, op.pointer)
        body = node.get("requestBody", {})
        if "$ref" in body:
            body = resolve_pointer(doc, body["$ref"].lstrip("#"))
        schema = body["content"][op.body.media_type if op.body else ""]["schema"]
    except (KeyError, ValueError, IndexError, TypeError, AttributeError):
        return None
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    return ref if isinstance(ref, str) else None
