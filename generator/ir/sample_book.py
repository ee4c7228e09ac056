"""The generated tests' samples, taken from the schemas while the IR is built, so that the
rendering stage never reads a schema: what each operation sends and is answered with, and a
sample of every class an argument can carry.

Only what the tests use is sampled (the success body, a page's item, a final line's marker,
scalar body fields from their own schemas, and the two properties a forward-compatibility test
changes); the rest of a test is made from the IR's types alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from generator.document.schema_facts import FactsMemo
from generator.ir.context import strip_none
from generator.ir.samples import Samples
from generator.ir.schemas import CATALOG_PREFIX, property_of
from generator.ir.types import (
    DictOf,
    FamilySamples,
    ListOf,
    ModelRef,
    Operation,
    OperationSamples,
    Primitive,
    Resource,
    TypeRef,
    UnionOf,
)

_NO_BODY_SAMPLE = ("binary", "text", "event-stream", "empty")
OBSERVED_MARK = "x-cube-observed"  # on a schema a learned overlay action changed
_SCALARS = (Primitive("str"), Primitive("int"), Primitive("float"))


def sample_book(
    schemas: Mapping[str, Any], facts: FactsMemo, resources: Iterable[Resource]
) -> FamilySamples:
    """Every operation's samples and the samples of the classes their arguments carry."""
    samples = Samples(schemas, facts)
    operations: dict[str, OperationSamples] = {}
    models: dict[str, Any] = {}
    for resource in resources:
        for op in resource.operations:
            operations[f"{op.method} {op.path}"] = _operation(samples, op)
            for name in _argument_classes(op):
                if name not in models:
                    models[name] = samples.named(name, 0)
    return FamilySamples(models, operations)


def _operation(samples: Samples, op: Operation) -> OperationSamples:
    success = op.success
    response = None if success.kind in _NO_BODY_SAMPLE else samples.for_type(success.type, 0)
    page_item = samples.for_type(op.pagination.item_type, 1) if op.pagination else None
    enum_field, required_field = _changeable(samples, op, response)
    observed_body, observed_fields, observed_listed = _observed(samples, op)
    return OperationSamples(
        response=response,
        page_item=page_item,
        final_line=_final_line(samples, op) if success.kind == "json-lines" else None,
        fields=tuple(_scalar_fields(samples, op)),
        enum_field=enum_field,
        required_field=required_field,
        observed_body=observed_body,
        observed_fields=observed_fields,
        observed_listed=observed_listed,
    )


def _schema_of(samples: Samples, t: TypeRef) -> Any:
    return samples.schemas.get(t.name) if isinstance(t, ModelRef) else None


def _properties(samples: Samples, schema: Any) -> Mapping[str, Any] | None:
    return samples.facts(schema).properties if isinstance(schema, dict) else None


def _final_line(samples: Samples, op: Operation) -> Any:
    """The value of the final line's marker: from its property's schema, else ``"end"``."""
    rules = op.success.lines
    if rules is None or not rules.final_member:
        return None
    props = _properties(samples, _schema_of(samples, op.success.type))
    prop = props.get(rules.final_member) if props is not None else None
    return samples.json(prop, 1) if prop is not None else "end"


def _scalar_fields(samples: Samples, op: Operation) -> Iterator[tuple[str, Any]]:
    """Strings and numbers of body fields, from each property's own schema, so that its
    pattern, format, length and bounds hold (the server validates them)."""
    if op.body is None or op.body.fields is None or op.body.model is None:
        return
    model = samples.schemas.get(op.body.model)
    for f in op.body.fields:
        if strip_none(f.type) not in _SCALARS:
            continue
        prop = property_of(samples.schemas, model, f.name)
        if prop is None:
            continue
        value = samples.json(prop, 1)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            yield f.name, value


def _changeable(samples: Samples, op: Operation, sample: Any) -> tuple[str | None, str | None]:
    """For a plain JSON object answer (no pages, jobs or unions): the first property with a
    string enum of two values or more, and the first required, non-nullable one, each present
    in ``sample``."""
    success = op.success
    if op.pagination or op.job or success.kind != "json" or not success.status.isdigit():
        return None, None
    schema = _schema_of(samples, success.type)
    if not isinstance(schema, dict) or not isinstance(sample, dict):
        return None, None
    read = samples.facts(schema)
    props = read.properties
    if read.union or read.all_of is not None or props is None:
        return None, None
    enum_field = next(
        (
            name
            for name, sub in props.items()
            if name in sample and isinstance(sub, dict) and _string_choice(samples.facts(sub).enum)
        ),
        None,
    )
    required_field = next(
        (
            name
            for name in read.required
            if name in sample
            and isinstance(props.get(name), dict)
            and not samples.facts(props[name]).nullable
        ),
        None,
    )
    return enum_field, required_field


def _string_choice(enum: Sequence[Any] | None) -> bool:
    """An enum of two strings or more (a value added later is a new string)."""
    return enum is not None and len(enum) >= 2 and all(isinstance(v, str) for v in enum)


def _observed(samples: Samples, op: Operation) -> tuple[Any, tuple[str, ...], bool]:
    """For a JSON answer whose model has properties learned from the service's responses: a
    body with each learned value (the learned enum value, a null where null was learned, else
    a sample of the learned shape), the learned names, and whether the answer is a list."""
    nothing: tuple[Any, tuple[str, ...], bool] = (None, (), False)
    success = op.success
    if op.pagination or op.job or success.kind != "json" or not success.status.isdigit():
        return nothing
    model, listed = success.type, isinstance(success.type, ListOf)
    if isinstance(model, ListOf):
        model = model.item
    if not isinstance(model, ModelRef):
        return nothing
    props = _properties(samples, samples.schemas.get(model.name))
    learned = {n: s for n, s in ((n, _learned(samples, s)) for n, s in (props or {}).items()) if s}
    sample = samples.for_type(model, 0)
    if not learned or not isinstance(sample, dict):
        return nothing
    body = dict(sample)
    for name, sub in learned.items():
        read = samples.facts(sub)
        if read.enum:
            body[name] = read.enum[-1]  # the learned value is appended last
        elif read.nullable:
            body[name] = None
        else:
            body[name] = samples.json(sub, 1)
    return body, tuple(learned), listed


def _learned(samples: Samples, node: Any) -> dict[str, Any] | None:
    """The schema of a property marked as learned: its own, or the named one it refers to."""
    if not isinstance(node, dict):
        return None
    ref = samples.facts(node).ref
    if ref is not None and ref.startswith(("#/components/schemas/", CATALOG_PREFIX)):
        named = samples.schemas.get(ref.rsplit("/", 1)[-1])
        node = named if isinstance(named, dict) else node
    return node if node.get(OBSERVED_MARK) is True else None


def _argument_classes(op: Operation) -> Iterator[str]:
    """The classes the test builds for arguments: those a required parameter, a body field it
    sends (required, or named by the body's rule) or a whole body takes, through lists, maps
    and the first member of a union."""
    types = [p.type for p in op.parameters if p.location != "path" and p.required]
    if op.body is not None:
        if op.body.fields is not None:
            named = set(op.body.rule.mentioned) if op.body.rule is not None else set()
            types += [f.type for f in op.body.fields if f.required or f.name in named]
        elif op.body.kind not in ("binary", "text"):
            types.append(op.body.type)
    for t in types:
        yield from _classes_in(t)


def _classes_in(t: TypeRef) -> Iterator[str]:
    match t:
        case ModelRef(name):
            yield name
        case ListOf(item):
            yield from _classes_in(item)
        case DictOf(value):
            yield from _classes_in(value)
        case UnionOf(members):
            yield from _classes_in(next(m for m in members if m != Primitive("None")))
