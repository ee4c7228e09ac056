"""Schema catalogue → model IR (:class:`~generator.ir.types.Model`,
:class:`~generator.ir.types.ValueModel`).

Every class name comes from the catalogue (:mod:`generator.ir.schemas`), every attribute name
from a :class:`~generator.ir.naming.Namespace`, every type from the type map
(:mod:`generator.ir.type_map`), so a model, the client methods that use it and the runtime all
agree on one name per thing.
``templates/family/models.py.jinja`` renders the result; nothing after it renames anything.
"""

from __future__ import annotations

import dataclasses
import fractions
import math
from typing import Any

from generator.diagnostics import one_line
from generator.document.extensions import DATA_RESULT, DATA_RESULT_MIXINS
from generator.document.schema_facts import facts
from generator.ir.naming import ClassName, Namespace, PythonIdentifier, identifier_text
from generator.ir.placement import module_names
from generator.ir.schemas import CATALOG_PREFIX
from generator.ir.type_map import TypeMap, union_of
from generator.ir.types import (
    ANY,
    NONE,
    DictOf,
    ListOf,
    LiteralOf,
    Model,
    ModelField,
    ModelKind,
    ModelRef,
    Primitive,
    Scalar,
    TypeRef,
    UnionOf,
    ValueModel,
)
from generator.words import pascal_case

# Names a pydantic model already has, and the module the models import: an attribute named like
# one would shadow it.
_PYDANTIC_NAMES = frozenset(
    {"model_config", "model_fields", "model_computed_fields", "model_extra", "model_fields_set",
     "model_construct", "model_copy", "model_dump", "model_dump_json", "model_json_schema",
     "model_parametrized_name", "model_post_init", "model_rebuild", "model_validate",
     "model_validate_json", "model_validate_strings", "copy", "dict", "json", "parse_obj",
     "parse_raw", "parse_file", "from_orm", "construct", "schema", "schema_json", "validate",
     "update_forward_refs", "fields", "root",
     # names the models module uses in annotations
     "datetime", "str", "int", "float", "bool", "bytes", "list"}
)  # fmt: skip
_LENGTH = {"minLength": "min_length", "maxLength": "max_length"}
_ITEMS = {"minItems": "min_length", "maxItems": "max_length"}
_NUMBER = {"minimum": "ge", "maximum": "le", "multipleOf": "multiple_of"}
_STRING = {**_LENGTH, "pattern": "pattern"}
# The keywords a field's constraints come from: its own bounds and pattern, and what names its
# scalar source (a reference, a union with null); a field schema with none of them has none
_CONSTRAINED = frozenset(
    {*_STRING, *_ITEMS, *_NUMBER, "exclusiveMinimum", "exclusiveMaximum", "$ref", "oneOf", "anyOf"}
)


def build_models(
    types: TypeMap,
    typed: dict[ClassName, ClassTypes],
    inputs: dict[ClassName, ClassName] | None = None,
) -> tuple[ModelKind, ...]:
    """One model per catalogue entry, from its types (:func:`type_classes`), with the names of
    the TypedDict twins ``inputs`` names (:func:`input_names`)."""
    done = {
        name: _model(types, name, schema, typed[name])
        for name, schema in types.catalog.models.items()
    }
    return _placed(_ordered(done), inputs or {}, types.catalog.owners)


def input_names(
    classes: dict[ClassName, ClassTypes], roots: set[ClassName], names: Namespace
) -> dict[ClassName, ClassName]:
    """Object classes a request can carry (``roots`` and every class they reach) get a TypedDict
    twin, so a caller may pass a plain dict keyed by wire names: its name, by class, in class
    order. ``names`` is the catalogue's class namespace, so the twin's name collides with no
    class."""
    reached: set[ClassName] = set()
    stack = sorted(roots)
    while stack:
        name = stack.pop()
        typed = classes.get(name)
        if name in reached or typed is None:
            continue
        reached.add(name)
        members = typed[2] if isinstance(typed, tuple) else [typed]
        stack += sorted({r for t in members for r in refs_of(t)} - {name})
    objects = sorted(n for n in reached if isinstance(classes[n], tuple))
    return {n: names.class_name(n + "Param") for n in objects}


def _placed(
    models: tuple[ModelKind, ...],
    inputs: dict[ClassName, ClassName],
    owners: dict[ClassName, ClassName],
) -> tuple[ModelKind, ...]:
    """Each class with its module (:func:`~generator.ir.placement.module_names`), the classes
    it names (a package loads a class, and the classes it reaches, when first used) and its
    TypedDict twin's name, if it has one."""
    refs = {
        m.name: (
            frozenset(r for f in m.fields for r in refs_of(f.type))
            if isinstance(m, Model)
            else refs_of(m.type)
        )
        - {m.name}
        for m in models
    }
    modules = module_names(models, refs, owners)
    placed = []
    for m in models:
        named = tuple(sorted(refs[m.name]))
        done: ModelKind
        if isinstance(m, Model) and m.name in inputs:
            done = dataclasses.replace(
                m, module=modules[m.name], refs=named, input_name=inputs[m.name]
            )
        else:
            done = dataclasses.replace(m, module=modules[m.name], refs=named)
        placed.append(done)
    return tuple(placed)


def _ordered(models: dict[ClassName, ModelKind]) -> tuple[ModelKind, ...]:
    """Classes by name, value classes last and after the value classes they name: a class's
    base (``RootModel[A | B]``) is evaluated when it is defined, annotations later. A value class
    that reaches itself through value classes is marked ``recursive``."""
    values = {n: m for n, m in models.items() if isinstance(m, ValueModel)}
    deps = {n: sorted(d for d in refs_of(m.type) if d in values) for n, m in values.items()}
    out = [models[n] for n in sorted(models) if n not in values]
    placed: set[ClassName] = set()

    def reaches(start: ClassName) -> bool:
        stack, seen = list(deps[start]), set()
        while stack:
            cur = stack.pop()
            if cur == start:
                return True
            if cur not in seen:
                seen.add(cur)
                stack.extend(deps[cur])
        return False

    def place(name: ClassName, path: frozenset[ClassName]) -> None:
        if name in placed or name in path:
            return
        for dep in deps[name]:
            place(dep, path | {name})
        placed.add(name)
        model = values[name]
        out.append(dataclasses.replace(model, recursive=True) if reaches(name) else model)

    for name in sorted(values):
        place(name, frozenset())
    return tuple(out)


# pydantic builds a model's validator by recursing from class to referenced class; measured on
# pydantic 2.14, a chain of N classes needs up to about 10 N Python frames. Packages whose chains
# reach past this many classes raise the interpreter's recursion limit when imported.
CHAIN_FRAMES = 16
DEEP_CHAIN = 40


def recursion_limit(models: tuple[ModelKind, ...]) -> int:
    """The recursion limit the models need (0 when the default serves): from the longest chain
    of references, counting every class of a reference cycle (strongly connected component).
    ``models`` are placed (:func:`build_models`): each lists the other classes it names."""
    graph = {m.name: list(m.refs) for m in models}  # a class naming itself adds no length
    longest = _longest_chain(graph)
    return 1000 + CHAIN_FRAMES * longest if longest > DEEP_CHAIN else 0


def _longest_chain(graph: dict[ClassName, list[ClassName]]) -> int:
    """Classes on the longest path of the graph with each cycle counted whole (Tarjan's
    components, then the longest path over their acyclic graph); iterative, for big graphs."""
    index: dict[ClassName, int] = {}
    low: dict[ClassName, int] = {}
    comp: dict[ClassName, int] = {}
    sizes: list[int] = []
    stack: list[ClassName] = []
    succs = {node: [s for s in targets if s in graph] for node, targets in graph.items()}
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
            succ = succs[node]
            if i < len(succ):
                work.append((node, i + 1))
                nxt = succ[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt not in comp:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                size = 0
                while True:
                    top = stack.pop()
                    comp[top] = len(sizes)
                    size += 1
                    if top == node:
                        break
                sizes.append(size)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    # components are numbered in reverse topological order: successors first
    best = [0] * len(sizes)
    members: list[list[ClassName]] = [[] for _ in sizes]
    for node, c in comp.items():
        members[c].append(node)
    for c, nodes in enumerate(members):
        after = [best[comp[s]] for n in nodes for s in graph[n] if s in comp and comp[s] != c]
        best[c] = sizes[c] + max(after, default=0)
    return max(best, default=0)


_NO_REFS: frozenset[ClassName] = frozenset()


def refs_of(t: TypeRef) -> frozenset[ClassName]:
    """The classes a type names, walked each time: a type is small, and walking it costs less
    than hashing it as a memo key would."""
    if isinstance(t, (Primitive, LiteralOf)):
        return _NO_REFS
    if isinstance(t, ModelRef):
        return frozenset((t.name,))
    if isinstance(t, UnionOf):
        found = _NO_REFS
        for member in t.members:
            more = refs_of(member)
            if more:
                found = found | more if found else more
        return found
    if isinstance(t, ListOf):
        return refs_of(t.item)
    if isinstance(t, DictOf):
        return refs_of(t.value)
    return _NO_REFS


def _attribute(names: Namespace, wire: str) -> PythonIdentifier:
    """A field's attribute name; one that would shadow a pydantic member gets a trailing
    underscore (``schema`` → ``schema_``), as a keyword does; a collision after that a number."""
    base = identifier_text(wire, "field", False)
    if base in _PYDANTIC_NAMES:
        base += "_"
    return PythonIdentifier.unchecked(names.claim(base, sep="_"))


def _model(types: TypeMap, name: ClassName, schema: Any, typed: ClassTypes) -> ModelKind:
    description = one_line(schema.get("description", ""), 400) if isinstance(schema, dict) else ""
    if not isinstance(typed, tuple):
        return ValueModel(name, typed, description)
    props, required, field_types = typed
    names = Namespace(_PYDANTIC_NAMES)
    fields = tuple(
        _field(types, prop, sub, t, prop in required, names)
        for (prop, sub), t in zip(props.items(), field_types, strict=True)
    )
    extra = schema.get("additionalProperties")
    by_wire = {f.name: f.py_name for f in fields}
    one_of = tuple(tuple(by_wire[p] for p in group) for group in constraint_groups(schema))
    mixin = DATA_RESULT_MIXINS.get(str(schema.get(DATA_RESULT, "")))
    return Model(
        name, fields, description, extra is True or isinstance(extra, dict), one_of, mixin=mixin
    )


# A class's properties, required names and property types, or the value type of one without
ClassTypes = tuple[dict[str, Any], list[str], list[TypeRef]] | TypeRef


def type_classes(types: TypeMap) -> dict[ClassName, ClassTypes]:
    """Every catalogue class typed, in catalogue order, classes named on the way included: the
    naming pass's walk over the models."""
    done: dict[ClassName, ClassTypes] = {}
    while pending := [n for n in types.catalog.models if n not in done]:
        for name in pending:
            done[name] = _class_types(types, name, types.catalog.models[name])
    return done


def _class_types(types: TypeMap, name: ClassName, schema: Any) -> ClassTypes:
    """A class's properties (its ``allOf`` members' included), required names and property
    types; the value type of a class without properties."""
    if not isinstance(schema, dict):
        return ANY
    props, required = collect_properties(schema, types.catalog.models)
    if not props:
        return _root_type(types, schema, name)
    hints = [name + (pascal_case(prop) or "Field") for prop in props]
    return (
        props,
        required,
        [types.type_of(sub, h) for sub, h in zip(props.values(), hints, strict=True)],
    )


def _root_type(types: TypeMap, schema: dict[str, Any], name: ClassName) -> TypeRef:
    """The value type of a non-object schema; unions are built here (``type_of`` would make the
    union a class of its own)."""
    nullable = types.facts(schema).nullable_keyword
    for key in ("oneOf", "anyOf"):
        members = schema.get(key)
        if isinstance(members, list) and members:
            members = _default_first(schema, members)
            options = [types.type_of(m, f"{name}Option{i + 1}") for i, m in enumerate(members)]
            return union_of([*options, NONE] if nullable else options)
    if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) > 1:
        return ANY  # members without properties: nothing a class could hold
    plain = {k: v for k, v in schema.items() if k not in ("discriminator", "allOf")}
    return types.type_of(plain, name + "Value")


def _default_first(schema: dict[str, Any], members: list[Any]) -> list[Any]:
    """The union's members with the discriminator's ``defaultMapping`` variant first (added when
    it is not a member): a value that fits several variants, as one without the discriminating
    property does, validates as the earliest one."""
    target = _mapping(schema.get("discriminator")).get("defaultMapping")
    if not isinstance(target, str):
        return members
    ref = {"$ref": target}
    return [ref, *(m for m in members if m != ref)]


def _field(
    types: TypeMap,
    prop: str,
    sub: Any,
    type_: TypeRef,
    required: bool,
    names: Namespace,
) -> ModelField:
    schema = sub if isinstance(sub, dict) else {}
    default = schema.get("default")
    has_default = "default" in schema and default is not None and _accepts(type_, default)
    if not required or has_default:
        type_ = type_ if has_default else union_of([type_, NONE])
    return ModelField(
        name=prop,
        py_name=_attribute(names, prop),
        type=type_,
        required=required and not has_default,
        default=default if has_default else None,
        description=one_line(schema.get("description", ""), 400),
        constraints=_constraints(schema, type_, types),
    )


def _scalar_source(schema: dict[str, Any], types: TypeMap) -> dict[str, Any]:
    """The schema a field's constraints are read from: the named scalar a ``$ref`` names, or the
    one non-null member of ``oneOf``/``anyOf: [<scalar>, {type: null}]``."""
    for key in ("oneOf", "anyOf"):
        members = schema.get(key)
        if isinstance(members, list):
            rest = [m for m in members if m != {"type": "null"}]
            if len(rest) == 1 and len(members) == 2 and isinstance(rest[0], dict):
                schema = rest[0]
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(CATALOG_PREFIX):
        target = types.catalog.models.get(ClassName.unchecked(ref[len(CATALOG_PREFIX) :]))
        if isinstance(target, dict):
            return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _accepts(t: TypeRef, value: Any) -> bool:
    """Whether ``value`` (a JSON scalar) is a value of ``t``, so a class attribute can hold it."""
    if isinstance(value, (dict, list)):
        return False
    match t:
        case UnionOf(members):
            return any(_accepts(m, value) for m in members)
        case LiteralOf(values):
            return any(value == v and type(value) is type(v) for v in values)
        case Primitive("str"):
            return isinstance(value, str)
        case Primitive("bool"):
            return isinstance(value, bool)
        case Primitive("int"):
            return isinstance(value, int) and not isinstance(value, bool)
        case Primitive("float"):
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        case Primitive("Any"):
            return True
    return False


def _constraints(
    schema: dict[str, Any], t: TypeRef, types: TypeMap
) -> tuple[tuple[str, Scalar], ...]:
    """pydantic constraints for a field whose type (besides ``None``) is one plain kind, read
    from the field's scalar source (:func:`_scalar_source`, looked up only for such a field)."""
    if _CONSTRAINED.isdisjoint(schema):  # no bound, no pattern, no scalar source: most fields
        return ()
    members = [m for m in (t.members if isinstance(t, UnionOf) else (t,)) if not _is_none(m)]
    if len(members) != 1:
        return ()
    base = members[0]
    kind = base.name if isinstance(base, Primitive) else ""
    if kind == "str":
        table = _STRING
    elif kind in ("int", "float"):
        table = _NUMBER
    elif isinstance(base, ListOf):
        table = _ITEMS
    else:
        return ()
    schema = _scalar_source(schema, types)
    out: list[tuple[str, Scalar]] = []
    numeric = kind in ("int", "float")
    read = facts(schema) if numeric else None
    flags = read.exclusive_flags if read is not None else (False, False)
    for key, value in schema.items():
        name = table.get(key)
        if name == "pattern" and isinstance(value, str):
            out.append((name, value))
        elif name and isinstance(value, (int, float)) and not isinstance(value, bool):
            if key == "minimum" and flags[0]:  # 3.0: an exclusive minimum
                name = "gt"
            if key == "maximum" and flags[1]:
                name = "lt"
            out.append((name, value))
    if read is not None:  # 3.1: exclusive bounds are numbers of their own
        for key, name in (("exclusiveMinimum", "gt"), ("exclusiveMaximum", "lt")):
            bound = read.bounds.get(key)
            if bound is not None:
                out.append((name, bound))
    if kind == "int":
        whole: dict[str, Scalar] = {}  # ``minimum: 2.5`` and ``exclusiveMinimum: 2.5``: one ge=3
        for found in (_whole(name, value) for name, value in out):
            if found is None:
                continue
            name, value = found
            if name in whole and name in ("ge", "le"):
                pick = max if name == "ge" else min
                value = pick(whole[name], value)
            whole[name] = value
        return tuple(whole.items())
    return tuple(out)


def _is_none(t: TypeRef) -> bool:
    """``t == NONE``, without building two tuples to compare."""
    return isinstance(t, Primitive) and t.name == "None"


def _whole(name: str, value: Scalar) -> tuple[str, Scalar] | None:
    """An integer field's constraint in whole numbers (pydantic refuses ``le=2.5`` on ``int``
    when the module loads): ``maximum: 2.5`` is ``le=2``, ``exclusiveMinimum: 2.5`` is ``ge=3``,
    ``multipleOf: 2.5`` is ``multiple_of=5`` (the numerator of the reduced fraction) and
    ``multipleOf: 0.5`` holds for every integer, so it is left out."""
    if not isinstance(value, float) or name not in ("ge", "gt", "le", "lt", "multiple_of"):
        return (name, value)
    if not math.isfinite(value):
        return None
    if value.is_integer():
        return (name, int(value))
    if name == "multiple_of":
        step = fractions.Fraction(str(value)).numerator
        return ("multiple_of", step) if abs(step) > 1 else None
    return ("ge", math.ceil(value)) if name in ("ge", "gt") else ("le", math.floor(value))


# --- allOf: every property a class has, through its bases --------------------------------------


def collect_properties(
    schema: dict[str, Any], catalogue: dict[ClassName, Any], seen: frozenset[str] = frozenset()
) -> tuple[dict[str, Any], list[str]]:
    """Properties (later ones win) and required names of a schema with its ``allOf`` members."""
    props: dict[str, Any] = {}
    required: list[str] = []
    all_of = schema.get("allOf")
    for member in all_of if isinstance(all_of, list) else []:
        if not isinstance(member, dict):
            continue
        ref = member.get("$ref")
        if isinstance(ref, str) and ref.startswith(CATALOG_PREFIX):
            name = ref[len(CATALOG_PREFIX) :]
            target = catalogue.get(ClassName.unchecked(name))
            if name in seen or not isinstance(target, dict):
                continue
            p, r = collect_properties(target, catalogue, seen | {name})
        else:
            p, r = collect_properties(member, catalogue, seen)
        props.update(p)
        required.extend(x for x in r if x not in required)
    own = schema.get("properties")
    if isinstance(own, dict):
        props.update({str(k): v for k, v in own.items()})
    req = schema.get("required")
    if isinstance(req, list):
        required.extend(x for x in req if isinstance(x, str) and x not in required)
    return props, required


def constraint_groups(model: Any) -> tuple[tuple[str, ...], ...]:
    """Branches of a ``oneOf`` that only choose among the object's own properties.

    ``{properties: {a, b}, oneOf: [{required: [a]}, {required: [b]}]}`` gives ``(("a",), ("b",))``.
    """
    schema = _mapping(model)
    props = _mapping(schema.get("properties"))
    branches = schema.get("oneOf")
    if not props or not isinstance(branches, list) or not branches:
        return ()
    groups = []
    for branch in branches:
        b = _mapping(branch)
        if set(b) - {"required", "not", "description", "title"}:
            return ()
        req = b.get("required")
        if not isinstance(req, list) or not all(isinstance(r, str) and r in props for r in req):
            return ()
        groups.append(tuple(req))
    return tuple(groups)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
