"""Schemas: give every object schema a class name of ours, in one flat catalogue.

Every object schema with properties, wherever it stands, is hoisted into a flat catalogue under a
:class:`~generator.ir.naming.ClassName` allocated here, and all references are rewritten to those
names; :mod:`generator.ir.type_map` maps schemas to types over it, and :mod:`generator.ir.models`
turns it into model IR, so no class is named twice.

Every class is named in one pass before the IR is built (:mod:`generator.ir.naming_pass`); the
catalogue is then frozen, and anything that would name a class late raises :class:`NotNamed`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from generator.diagnostics import (
    Diagnostic,
    error,
    join_pointer,
    one_line,
    resolve_pointer,
    split_pointer,
)
from generator.document.schema_facts import FactsMemo, SchemaFacts, facts
from generator.ir.naming import ClassName, Namespace, rename_reason
from generator.words import pascal_case

_COMPONENT_PREFIX = "#/components/schemas/"
# References inside the catalogue use their own prefix, so a catalogue name can never be confused
# with a document component of the same spelling; the model emitter maps them back.
CATALOG_PREFIX = "#/x-catalog/"
# Schemas that are only a reference to the next one, in a row: each is a class; no document
# needs this many, and a longer chain is refused with its start (see _break_alias_cycles).
MAX_ALIAS_CHAIN = 256
MAX_DEPTH = 64


def is_class(f: SchemaFacts) -> bool:
    """Whether a schema becomes a class of its own (rather than an inline type expression)."""
    return f.ref is None and (bool(f.properties) or (f.all_of is not None and len(f.all_of) > 1))


def _is_map_of_refs(f: SchemaFacts) -> bool:
    """``{type: object, additionalProperties: {$ref}}``: hoisted, so that a map that refers back
    to its owner becomes a named RootModel (the model generator loses the value type inline)."""
    if f.properties or f.ref is not None or f.types != ("object",) or f.null_type:
        return False
    return isinstance(f.additional, dict) and facts(f.additional).ref is not None


class NotNamed(LookupError):
    """A class would be named after the naming pass: something typed a schema after the
    catalogue was frozen. A defect of the generator, never of the document."""


class SchemaCatalog:
    """The flat model catalogue of one document: named by the naming pass, then frozen and read
    by the IR builder."""

    def __init__(self, doc: dict[str, Any], file: str) -> None:
        self.doc = doc
        self.file = file
        self.ns = Namespace()
        self.models: dict[ClassName, Any] = {}
        self.by_pointer: dict[str, ClassName] = {}
        self.pointers: dict[ClassName, str] = {}  # where in the document each class comes from
        # a class hoisted from inside another class's schema → that class (the package defines
        # the two in one module)
        self.owners: dict[ClassName, ClassName] = {}
        self.diagnostics: list[Diagnostic] = []
        self.facts = FactsMemo()
        self.frozen = False
        comps = doc.get("components")
        components = comps.get("schemas") if isinstance(comps, dict) else None
        if not isinstance(components, dict):
            components = {}
        # component names are claimed first (they are the public ones), and a name the document
        # spells exactly as a class name is kept for that schema
        self.ns.keep_exact([str(n) for n in components if ClassName(str(n)) == n])
        for name in components:
            cls = self.ns.class_name(name)
            self.by_pointer[_COMPONENT_PREFIX + _escape(name)] = cls
            self.pointers[cls] = "/components/schemas/" + _escape(name)
            self._report_rename(name, cls)
        for name, schema in components.items():
            cls = self.by_pointer[_COMPONENT_PREFIX + _escape(name)]
            self.models[cls] = self._rewrite_root(schema, cls)
        self._break_alias_cycles()

    def _report_rename(self, name: str, cls: ClassName) -> None:
        plain = ClassName(name)
        found = rename_reason(name, cls, plain, self.ns.owner(plain))
        if found:
            level, reason = found
            self.diagnostics.append(
                Diagnostic(
                    "schema-renamed",
                    level,  # type: ignore[arg-type]
                    self.file,
                    "/components/schemas/" + _escape(name),
                    f"schema {one_line(repr(name), 80)} is generated as class {cls}: {reason}",
                )
            )

    def _break_alias_cycles(self) -> None:
        """Schemas that only refer to each other in a ring describe no value: they become
        unconstrained (``Any``), with a warning, instead of classes that inherit from themselves.

        Each schema names at most one other (its alias), so one walk over all of them finds
        every ring in linear time; a chain of aliases longer than :data:`MAX_ALIAS_CHAIN` is
        refused, naming where it starts (no document needs one, and each link is a class)."""
        done: set[ClassName] = set()
        for start in list(self.models):
            path: dict[ClassName, int] = {}  # this walk, in order
            cur: ClassName | None = start
            while cur is not None and cur not in done and cur not in path:
                path[cur] = len(path)
                if len(path) > MAX_ALIAS_CHAIN:
                    raise error(
                        "ref-chain-too-long",
                        self.file,
                        _COMPONENT_PREFIX.lstrip("#") + start,
                        f"schema {one_line(start, 80)} starts a chain of more than "
                        f"{MAX_ALIAS_CHAIN} schemas that only refer to the next one",
                    )
                cur = _alias_of(self.models.get(cur), self.facts)
            done.update(path)
            if cur is not None and cur in path:  # a ring: from cur back to cur
                ring = list(path)[path[cur] :]
                for name in ring:
                    self.models[name] = {}
                self.diagnostics.append(
                    Diagnostic(
                        "ref-cycle",
                        "warning",
                        self.file,
                        _COMPONENT_PREFIX.lstrip("#") + ring[0],
                        f"schemas {_ring_text(ring)} only refer to each other; typed as any value",
                    )
                )

    def freeze(self) -> None:
        """End of naming: from now on the catalogue only answers, and naming raises."""
        self.frozen = True

    # --- catalogue construction ------------------------------------------------------------

    def _rewrite_root(self, schema: Any, owner: ClassName) -> Any:
        return self._rewrite(schema, owner, 0, self.pointers.get(owner, ""))

    def hoist(
        self,
        schema: Any,
        hint: str,
        origin: str = "",
        at: str = "",
        read: SchemaFacts | None = None,
    ) -> ClassName:
        """Add an inline object schema to the catalogue under a new name derived from ``hint``
        (``origin``: the schema holding it; ``at``: where it is, when known; ``read``: its
        facts, when read already)."""
        if self.frozen:
            raise NotNamed(f"class {hint!r} hoisted after naming")
        cls = self.ns.class_name(hint)
        if origin:
            self.pointers[cls] = origin
        self.models[cls] = None  # reserve before recursing: the schema may refer to itself
        self.models[cls] = self._rewrite(schema, cls, 0, at or origin, read)
        return cls

    def ref_name(self, ref: str) -> ClassName | None:
        """The class a schema ``$ref`` names (named now if it points outside the components);
        ``None``, with an error diagnostic, when it names nothing."""
        if ref.startswith(CATALOG_PREFIX):
            return ClassName.unchecked(ref[len(CATALOG_PREFIX) :])
        ref = unquote(ref)
        if ref in self.by_pointer:
            return self.by_pointer[ref]
        if self.frozen:
            raise NotNamed(f"$ref {ref!r} was not named before building")
        try:
            target = resolve_pointer(self.doc, ref)
        except (KeyError, ValueError):
            self.diagnostics.append(
                Diagnostic("ref-dangling", "error", self.file, ref, "schema $ref names nothing")
            )
            return None
        tokens = split_pointer(ref)
        cls = self.ns.class_name(tokens[-1] if tokens else "Root")
        self.by_pointer[ref] = cls
        self.pointers[cls] = ref.lstrip("#")
        self.models[cls] = None
        self.models[cls] = self._rewrite(target, cls, 0, ref.lstrip("#"))
        return cls

    def _rewrite(
        self,
        schema: Any,
        owner: ClassName,
        depth: int,
        at: str = "",
        read: SchemaFacts | None = None,
    ) -> Any:
        """``schema`` with its ``$ref``s pointed at catalogue names and its inline objects
        hoisted; an unusable default or pattern is left out with a warning naming ``at`` (where
        the schema is in the document, when known; ``read``: the schema's facts, when known)."""
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return schema
        read = read if read is not None else self.facts(schema)
        if _SPECIAL.isdisjoint(schema):  # nothing to point, hoist or leave out: the node itself
            return schema  # (most nodes: payments' 21,000 of 36,000)
        at = at or self.pointers.get(owner, "")
        out: dict[str, Any] = {}
        problem = facts_default_problem(read) if read.default else None
        if problem:
            self._warn("default-invalid", at, f"model {owner}: {problem}")
        same = True  # every value kept as it is: what the schema says, ``out`` says
        for key, value in schema.items():
            if key not in _SPECIAL:  # most keywords: a value kept as it is
                out[key] = value
                continue
            if key == "default" and problem:
                continue
            if key == "pattern" and not self._pattern_kept(value, owner, at):
                continue
            if key in ("$defs", "definitions"):
                continue  # reachable only through $ref, which hoists what it names
            new = out[key] = self._rewrite_value(key, value, owner, depth, at)
            same = same and new is value
        if same and len(out) == len(schema):
            self.facts.same(out, read)
        else:  # other children, or a keyword left out: read from the few that may differ
            self.facts.rewritten(out, read)
        return out

    def _rewrite_value(self, key: str, value: Any, owner: ClassName, depth: int, at: str) -> Any:
        """``value`` of keyword ``key`` (one of :data:`_SPECIAL`) rewritten."""
        if key == "$ref" and isinstance(value, str):
            name = self.ref_name(value) if value.startswith("#") else None
            return CATALOG_PREFIX + name if name else value
        if key == "properties" and isinstance(value, dict):
            return {
                prop: self._child(
                    sub, owner, pascal_case(prop) or "Field", depth, _under(at, key, prop)
                )
                for prop, sub in value.items()
            }
        if key in ("items", "additionalProperties", "unevaluatedProperties", "contains"):
            suffix = "Item" if key in ("items", "contains") else "Value"
            return self._child(value, owner, suffix, depth, _under(at, key))
        if key == "prefixItems" and isinstance(value, list):
            return [
                self._child(v, owner, f"Item{i}", depth, _under(at, key, i))
                for i, v in enumerate(value)
            ]
        if key in ("oneOf", "anyOf") and isinstance(value, list):
            return [
                self._child(v, owner, f"Option{i + 1}", depth, _under(at, key, i))
                for i, v in enumerate(value)
            ]
        if key == "allOf" and isinstance(value, list):
            return [
                self._rewrite(v, owner, depth + 1, _under(at, key, i)) for i, v in enumerate(value)
            ]
        if key == "discriminator" and isinstance(value, dict):
            return self._rewrite_discriminator(value)
        if key in ("not", "if", "then", "else"):
            return self._rewrite(value, owner, depth + 1, _under(at, key))
        return value

    def _pattern_kept(self, value: Any, owner: ClassName, at: str) -> bool:
        """Whether a ``pattern`` stays in the model: an invalid regex is an error, one pydantic
        cannot run is a warning and is left unchecked."""
        if pattern_usable(value):
            return True
        if not pattern_valid(value):
            raise error(
                "pattern-invalid",
                self.file,
                at,
                f"model {owner}: pattern {one_line(repr(value), 60)} is not a regular "
                "expression in any dialect; fix it in the document or an overlay",
            )
        self._warn(
            "pattern-unsupported",
            at,
            f"model {owner}: pattern {one_line(value, 60)} is not a regular "
            "expression pydantic can run (look-around, back-references); not checked",
        )
        return False

    def _warn(self, id: str, at: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(id, "warning", self.file, at, message))

    def _child(self, sub: Any, owner: ClassName, suffix: str, depth: int, at: str) -> Any:
        f = (self.facts.get(id(sub)) or self.facts(sub)) if isinstance(sub, dict) else None
        if f is not None and (is_class(f) or _is_map_of_refs(f)):
            origin = self.pointers.get(owner, "")  # the schema holding this inline one
            cls = self.hoist(sub, owner + suffix, origin, at, f)
            self.owners[cls] = owner
            return {"$ref": CATALOG_PREFIX + cls}
        return self._rewrite(sub, owner, depth + 1, at, f)

    def _rewrite_discriminator(self, disc: dict[str, Any]) -> dict[str, Any]:
        out = dict(disc)
        mapping = disc.get("mapping")
        if isinstance(mapping, dict):
            out["mapping"] = {key: self._variant(target) for key, target in mapping.items()}
        if "defaultMapping" in disc:  # OpenAPI 3.2: the variant of an absent or unmapped value
            out["defaultMapping"] = self._variant(disc["defaultMapping"])
        return out

    def _variant(self, target: Any) -> Any:
        """A discriminator target (a schema name or a reference) as a catalogue reference."""
        if not isinstance(target, str):
            return target
        ref = target if target.startswith("#") else _COMPONENT_PREFIX + _escape(target)
        name = self.ref_name(ref)
        return CATALOG_PREFIX + name if name else target


# The keywords :meth:`SchemaCatalog._rewrite` looks at: every other value is kept as it is.
_SPECIAL = frozenset(
    {"$ref", "properties", "items", "additionalProperties", "unevaluatedProperties", "contains",
     "prefixItems", "oneOf", "anyOf", "allOf", "discriminator", "not", "if", "then", "else",
     "default", "pattern", "$defs", "definitions"}
)  # fmt: skip
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$")
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


@functools.lru_cache(maxsize=4096)
def _pattern_usable(pattern: str) -> bool:
    from pydantic_core import SchemaValidator, core_schema

    try:
        SchemaValidator(core_schema.str_schema(pattern=pattern))
    except Exception:  # any failure to build means the generated model would not import
        return False
    return True


def pattern_valid(pattern: Any) -> bool:
    """Whether ``pattern`` is a regular expression at all (ECMA-262 features such as ``\\p{L}``
    and look-around included, through the ``regex`` module), usable by pydantic or not."""
    import regex

    try:
        regex.compile(pattern)
    except (regex.error, TypeError, ValueError, OverflowError, RecursionError):
        return False
    return True


def pattern_usable(pattern: Any) -> bool:
    """Whether a ``pattern`` builds in pydantic (Rust regex syntax), as generated models need."""
    return isinstance(pattern, str) and _pattern_usable(pattern)


def default_problem(schema: Any) -> str | None:
    """Why a schema's ``default`` is not a value of the schema (``None`` when it is, or absent).

    Generated code states defaults as Python values of the field's type, so a default of the
    wrong type, outside the enum or not in its format would not type-check; it is dropped.
    """
    return facts_default_problem(facts(schema)) if isinstance(schema, dict) else None


def facts_default_problem(f: SchemaFacts) -> str | None:
    """:func:`default_problem` of a schema already read."""
    if not f.default:
        return None
    value = f.default[0]
    types = f.types
    shown = one_line(repr(value), 40)
    if value is None:
        return None if f.nullable or not types else f"default null for a non-nullable {types[0]}"
    if f.enum and value not in f.enum:
        return f"default {shown} is not one of the enum values"
    if types and not any(
        isinstance(value, _JSON_TYPES.get(t, object))
        and (t == "boolean" or not isinstance(value, bool))
        for t in types
    ):
        return f"default {shown} is not of type {'/'.join(types)}"
    if f.format == "uuid" and isinstance(value, str) and not _UUID.match(value):
        return f"default {shown} is not a UUID"
    return None


def _under(at: str, *tokens: str | int) -> str:
    """The pointer below ``at``; unknown (``""``) stays unknown."""
    if not at:
        return ""
    if len(tokens) == 2:  # a keyword and a name: most names need no escaping
        key, name = tokens
        if isinstance(name, str) and "~" not in name and "/" not in name:
            return f"{at}/{key}/{name}"
    return join_pointer(at, *tokens)


def _ring_text(ring: list[ClassName]) -> str:
    """``A -> B -> A``; a long ring by its first and last names and its length."""
    names = [*ring, ring[0]] if len(ring) <= 6 else [*ring[:3], "…", ring[-1], ring[0]]
    size = f" ({len(ring)} schemas)" if len(ring) > 6 else ""
    return " -> ".join(one_line(n, 60) for n in names) + size


def _alias_of(schema: Any, read: FactsMemo) -> ClassName | None:
    """The catalogue class a schema is nothing but a reference to (``$ref`` or one ``allOf``)."""
    if not isinstance(schema, dict):
        return None
    f = read(schema)
    if any(k not in _ALIAS_KEYWORDS for k in f.keywords):
        return None
    ref = f.ref
    if ref is None and f.all_of is not None and len(f.all_of) == 1:
        ref = facts(f.all_of[0]).ref if isinstance(f.all_of[0], dict) else None
    if ref is None or not ref.startswith(CATALOG_PREFIX):
        return None
    return ClassName.unchecked(ref[len(CATALOG_PREFIX) :])


# what a schema that only refers to another may say besides (annotations and nullability)
_ALIAS_KEYWORDS = frozenset({"description", "title", "$ref", "allOf", "nullable", "deprecated"})


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def is_scalar_like(f: SchemaFacts) -> bool:
    """A named schema that is really a scalar, enum or list alias: used inline, not as a model."""
    if is_class(f) or f.discriminator is not None:
        return False
    if f.one_of is not None or f.any_of is not None or f.all_of is not None:
        return False
    if "object" in f.types or f.additional is not None:
        return False
    return bool(f.types) or f.enum is not None or bool(f.const)


def property_of(models: Mapping[Any, Any], schema: Any, key: str, depth: int = 0) -> Any:
    """The schema of property ``key`` of a catalogue schema, looked up through catalogue
    ``$ref``s and ``allOf`` members too: a response is often a shared base (a list envelope)
    extended with its items."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    f = facts(schema)
    if f.ref is not None and f.ref.startswith(CATALOG_PREFIX):
        return property_of(models, models.get(f.ref[len(CATALOG_PREFIX) :]), key, depth + 1)
    if f.properties is not None and key in f.properties:
        return f.properties[key]
    for member in reversed(f.all_of or ()):  # later ones override
        found = property_of(models, member, key, depth + 1)
        if found is not None:
            return found
    return None
