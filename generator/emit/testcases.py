"""IR → test cases: sample arguments, the request they must produce, a response to parse.

Generated tests are emitted from these values. Samples are derived from the schemas (valid by
construction, deterministic); expected wire values are computed here by the encoding rules the
client promises, independently of the runtime that implements them, so the two must agree.
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from generator.emit.literals import error_class, py_literal
from generator.emit.observed_cases import ObservedCase, observed_case
from generator.emit.samples import LongText, Samples
from generator.ir.context import PATH_PARAM, strip_none
from generator.ir.naming import ClassName, Namespace, PythonIdentifier
from generator.ir.schemas import property_of
from generator.ir.types import (
    BodyField,
    DictOf,
    Family,
    ListOf,
    LiteralOf,
    ModelRef,
    Operation,
    Primitive,
    Rule,
    TypeRef,
    UnionOf,
)


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of the call under test: ``py_name=<code>``; ``wire`` its expected encoding."""

    py_name: PythonIdentifier
    code: str
    positional: bool
    location: str  # path, query, header, cookie, body
    name: str
    wire: str | None  # expected text (path, query, header) or None when not asserted
    json_code: str | None = None  # expected JSON value, as Python source, for body fields


@dataclass(frozen=True, slots=True)
class ErrorCase:
    status: int
    exception: str


@dataclass(frozen=True, slots=True)
class DriftCase:
    """Variants of one operation's sample response the way real APIs change, for the generated
    forward-compatibility tests (served by a real server on 127.0.0.1)."""

    status: int
    enum_field: str | None  # a property documented with an enum, answered with a new value
    enum_code: str
    required_field: str | None  # a required property, answered missing and null
    missing_code: str
    null_code: str


NEW_ENUM_VALUE = "a-value-added-later"


@dataclass(frozen=True, slots=True)
class TestCase:
    op: Operation
    resource_attr: PythonIdentifier
    class_name: ClassName  # the test class, unique in the family (see :class:`Namespace`)
    args: tuple[Arg, ...]
    expected_path: str
    whole_body_code: str | None  # expected JSON body when the body is one argument
    response_code: str  # the success response body, as Python source (JSON data or bytes)
    errors: tuple[ErrorCase, ...]
    drift: DriftCase | None = None  # responses that differ from the document (a few per family)
    # the same call with each nested request object given as a plain dict (its TypedDict)
    dict_args: tuple[Arg, ...] | None = None
    observed: ObservedCase | None = None  # a body built from shapes learned from responses

    @property
    def query(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.location == "query" and a.wire is not None)

    @property
    def headers(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.location == "header" and a.wire is not None)

    @property
    def body_fields(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.location == "body")


class CaseBuilder:
    """Builds test cases for one family from its IR and schema catalogue."""

    def __init__(self, family: Family) -> None:
        self.family = family
        self.schemas = family.schemas
        self.samples = Samples(family.schemas, family.schema_facts)
        self.inputs = family.inputs()

    def cases(self) -> dict[PythonIdentifier, list[TestCase]]:
        """Test cases by resource module; test class names are unique in the family. The first
        operations (in document order) that can show a new enum value and a missing required field
        also carry those changed responses (``drift``)."""
        classes = Namespace()
        out: dict[PythonIdentifier, list[TestCase]] = {}
        for resource in self.family.resources:
            attr = resource.attr
            out[resource.module] = [
                self._case(op, attr, classes.class_name(f"test {attr} {op.py_name}"))
                for op in resource.operations
            ]
        wanted = {"enum", "required"}
        for cases in out.values():
            for i, case in enumerate(cases):
                drift = self._drift(case.op) if wanted else None
                if drift is None:
                    continue
                shows = {"enum"} if drift.enum_field else set()
                shows |= {"required"} if drift.required_field else set()
                if shows & wanted:
                    wanted -= shows
                    cases[i] = dataclasses.replace(case, drift=drift)
        return out

    def _drift(self, op: Operation) -> DriftCase | None:
        """Changed samples of a plain JSON object response (no pages, jobs or unions)."""
        if op.pagination or op.job or op.success.kind != "json" or not op.success.status.isdigit():
            return None
        if not isinstance(op.success.type, ModelRef):
            return None
        schema = self.schemas.get(op.success.type.name)
        if not isinstance(schema, dict) or any(k in schema for k in ("oneOf", "anyOf", "allOf")):
            return None
        props = schema.get("properties")
        if not isinstance(props, dict):
            return None
        sample = self.samples.for_type(op.success.type, 0)
        if not isinstance(sample, dict):
            return None
        enum_field = next(
            (
                name
                for name, sub in props.items()
                if isinstance(sub, dict)
                and isinstance(sub.get("enum"), list)
                and len(sub["enum"]) >= 2
                and all(isinstance(v, str) for v in sub["enum"])
                and name in sample
            ),
            None,
        )
        listed = schema.get("required")
        required: list[Any] = listed if isinstance(listed, list) else []
        required_field = next(
            (
                name
                for name in required
                if name in sample
                and isinstance(props.get(name), dict)
                and not self.samples.facts(props[name]).nullable
            ),
            None,
        )
        if enum_field is None and required_field is None:
            return None
        missing = {k: v for k, v in sample.items() if k != required_field}
        return DriftCase(
            status=int(op.success.status),
            enum_field=enum_field,
            enum_code=_json_source(
                {**sample, **({enum_field: NEW_ENUM_VALUE} if enum_field else {})}
            ),
            required_field=required_field,
            missing_code=_json_source(missing),
            null_code=_json_source(
                {**sample, **({required_field: None} if required_field else {})}
            ),
        )

    def _case(self, op: Operation, attr: PythonIdentifier, class_name: ClassName) -> TestCase:
        args: list[Arg] = []
        filled: dict[str, str] = {}
        for i, p in enumerate(op.path_params):
            value: object = 7 + i if _is_int(p.type) else f"id-{i + 1}"
            if not _is_int(p.type) and not _is_str(p.type):
                value = self.samples.py_value(p.type)
            args.append(Arg(p.py_name, _py_source(value), True, "path", p.name, str(value)))
            filled.setdefault(p.name, _path_text(value))
        path = _sent_path(op.path, filled)
        for p in op.other_params:
            simple = _simple(p.type)
            if not p.required and simple is None:
                continue
            code, wire = self._arg(p.type)
            if p.location == "query" and simple is not None:
                code, wire = self._query_arg(simple)
            wire = wire if p.location in ("query", "header") else None
            args.append(Arg(p.py_name, code, False, p.location, p.name, wire))
        whole_body = None
        if op.body is not None:
            if op.body.fields is not None:
                for f in op.body.fields:
                    if not f.required and _simple(f.type) is None:
                        continue
                    code = self._field_code(op, f)
                    json_code = self._json_expected(f.type, code)
                    args.append(Arg(f.py_name, code, False, "body", f.name, None, json_code))
                if op.body.rule is not None:  # send a set of properties the rule allows
                    keep = _satisfying(op.body.rule, op.body.fields)
                    drop = set(op.body.rule.mentioned) - keep
                    args = [a for a in args if not (a.location == "body" and a.name in drop)]
                    args = self._ensure_present(op, args, keep)
            elif op.body.kind in ("binary", "text"):
                code = 'b"payload"' if op.body.kind == "binary" else '"payload"'
                args.append(Arg(PythonIdentifier("body"), code, False, "content", "body", None))
            else:
                code, _ = self._arg(op.body.type)
                args.append(Arg(PythonIdentifier("body"), code, False, "whole", "body", None))
                whole_body = self._json_expected(op.body.type, code)
        return TestCase(
            op=op,
            resource_attr=attr,
            class_name=class_name,
            args=tuple(args),
            expected_path=path,
            whole_body_code=whole_body,
            response_code=self._response_code(op),
            errors=tuple(_errors(op)),
            dict_args=self._dict_variant(op, args),
            observed=observed_case(op, self.schemas, self.samples, _json_source),
        )

    def _dict_variant(self, op: Operation, args: list[Arg]) -> tuple[Arg, ...] | None:
        """``args`` with each body field that takes a class with a TypedDict twin given as a
        dict literal keyed by wire names (what the client must send as is); None when there
        is none."""
        inputs = self.inputs
        fields = {f.name: f for f in (op.body.fields or ())} if op.body is not None else {}
        out, changed = [], False
        for a in args:
            f = fields.get(a.name) if a.location == "body" else None
            t = strip_none(f.type) if f is not None else None
            many = isinstance(t, ListOf)
            item = strip_none(t.item) if isinstance(t, ListOf) else t
            if isinstance(item, ModelRef) and item.name in inputs:
                sample = self.samples.named(item.name, 0)
                literal = _json_source([sample] if many else sample)
                out.append(dataclasses.replace(a, code=literal, json_code=literal))
                changed = True
            else:
                out.append(a)
        return tuple(out) if changed else None

    def _ensure_present(self, op: Operation, args: list[Arg], names: set[str]) -> list[Arg]:
        present = {a.name for a in args if a.location == "body"}
        for f in op.body.fields or () if op.body else ():
            if f.name in names and f.name not in present:
                code = self._field_code(op, f)
                json_code = self._json_expected(f.type, code)
                args.append(Arg(f.py_name, code, False, "body", f.name, None, json_code))
        return args

    # --- values ------------------------------------------------------------------------------

    def _query_arg(self, t: TypeRef) -> tuple[str, str | None]:
        """A query list gets two items: sent as a repeated parameter, it reads as a list even to
        a validator that would take one lone value for a plain string."""
        if isinstance(t, UnionOf):
            t = next(m for m in t.members if m != Primitive("None"))
        if not isinstance(t, ListOf):
            return self._arg(t)
        item = self.samples.py_value(t.item)
        second = (
            t.item.values[1] if isinstance(t.item, LiteralOf) and len(t.item.values) > 1 else item
        )
        value = [item, second]
        return _py_source(value), _wire_text(value)

    def _field_code(self, op: Operation, f: BodyField) -> str:
        """A body field's sample: strings and numbers from the property's own schema, so that
        its pattern, format, length and bounds hold (the server validates them)."""
        base = _simple(f.type)
        if base is not None and isinstance(base, UnionOf):
            base = next(m for m in base.members if m != Primitive("None"))
        model = op.body.model if op.body is not None else None
        prop = property_of(self.schemas, self.schemas.get(model), f.name) if model else None
        if base in (Primitive("str"), Primitive("int"), Primitive("float")) and prop is not None:
            value = self.samples.json(prop, 1)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                return _py_source(value)
        return self._arg(f.type)[0]

    def _arg(self, t: TypeRef) -> tuple[str, str | None]:
        """Python source of a sample argument, and its expected text on the wire if simple."""
        simple = _simple(t)
        if simple is not None:
            value = self.samples.py_value(simple)
            return _py_source(value), _wire_text(value)
        return self._code_for(t), None

    def _code_for(self, t: TypeRef) -> str:
        match t:
            case ModelRef(name):
                sample = self.samples.named(name, 0)
                return f"_models.{name}.model_validate({_json_source(sample)})"
            case ListOf(item):
                return f"[{self._code_for(item)}]"
            case DictOf(value):
                return '{"key": ' + self._code_for(value) + "}"
            case UnionOf(members):
                first = next(m for m in members if m != Primitive("None"))
                return self._code_for(first)
            case _:
                return _py_source(self.samples.py_value(t))

    def _json_expected(self, t: TypeRef, var: str) -> str:
        """Source of the JSON value the client must send for argument ``var`` of type ``t``."""
        match t:
            case ModelRef():
                return f'{var}.model_dump(mode="json", by_alias=True, exclude_unset=True)'
            case ListOf(ModelRef()):
                return (
                    f'[v.model_dump(mode="json", by_alias=True, exclude_unset=True) for v in {var}]'
                )
            case Primitive("datetime") | Primitive("date"):
                return f"{var}.isoformat()"
            case Primitive("bytes"):
                return f"{var}.decode()"
            case UnionOf(members):
                first = next(m for m in members if m != Primitive("None"))
                return self._json_expected(first, var)
            case _:
                return var

    def _response_code(self, op: Operation) -> str:
        kind = op.success.kind
        if kind in ("binary", "text", "event-stream"):
            return 'b"data: sample\\n\\n"' if kind == "event-stream" else 'b"sample,bytes\\n"'
        if kind == "empty":
            return "None"
        if kind == "json-lines":
            return repr(self._lines_sample(op))
        if op.pagination is not None:
            return _json_source(self._page_sample(op))
        return _json_source(self.samples.for_type(op.success.type, 0))

    def _lines_sample(self, op: Operation) -> bytes:
        """Two lines of the item type, the second marked final when the stream has a final line;
        neither looks like an error line."""
        item = self.samples.for_type(op.success.type, 0)
        rules = op.success.lines
        lines = [item, item]
        if rules is not None and isinstance(item, dict):
            if rules.error_member and not any(k in item for k in rules.error_without):
                item.pop(rules.error_member, None)
            if rules.final_member:
                model = op.success.type
                schema = self.schemas.get(model.name) if isinstance(model, ModelRef) else None
                props = schema.get("properties") if isinstance(schema, dict) else None
                prop = props.get(rules.final_member) if isinstance(props, dict) else None
                final = self.samples.json(prop, 1) if prop is not None else "end"
                final = rules.final_value or final
                lines = [item, {**item, rules.final_member: final}]
        return b"".join(
            json.dumps(line, sort_keys=True, default=_capped).encode() + b"\n" for line in lines
        )

    def _page_sample(self, op: Operation) -> Any:
        pagination = op.pagination
        assert pagination is not None
        data = self.samples.for_type(op.success.type, 0)
        if not isinstance(data, dict):
            data = {}
        node = data
        for key in pagination.items_path[:-1]:
            nxt = node.get(key)
            if not isinstance(nxt, dict):
                nxt = {}
                node[key] = nxt
            node = nxt
        node[pagination.items_path[-1]] = [self.samples.for_type(pagination.item_type, 1)]
        return data


def _errors(op: Operation) -> list[ErrorCase]:
    return [
        ErrorCase(int(r.status), error_class(r.status))
        for r in op.errors
        if r.status.isascii() and r.status.isdigit()
    ]


def _simple(t: TypeRef) -> TypeRef | None:
    """``t`` when its sample has a plain text form on the wire: scalars, literals, their lists."""
    match t:
        case Primitive(name) if name not in ("Any", "None", "bytes"):
            return t
        case LiteralOf():
            return t
        case ListOf(item) if _simple(item) is not None and not isinstance(item, ListOf):
            return t
        case UnionOf(members):
            rest = [m for m in members if m != Primitive("None")]
            return t if len(rest) == 1 and _simple(rest[0]) is not None else None
    return None


def _is_int(t: TypeRef) -> bool:
    return t == Primitive("int")


def _is_str(t: TypeRef) -> bool:
    return t == Primitive("str")


def _wire_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, list):
        return ",".join(_wire_text(v) for v in value)
    return str(value)


# What the HTTP library leaves as it is in a path: RFC 3986's unreserved and reserved
# characters, existing escapes, and ``[]\\^|``; anything else (a space, non-ASCII) is escaped.
_PATH_SAFE = "/:@!$&'()*+,;=-._~%[]\\^|"


def _sent_path(template: str, filled: dict[str, str]) -> str:
    """The path as the request carries it: placeholders filled with their encoded values,
    and the document's own text escaped as the HTTP library escapes it (``/naïve`` is sent as
    ``/na%C3%AFve``)."""
    parts = PATH_PARAM.split(template)  # text, name, text, name, ..., text
    return "".join(
        filled.get(part, "{" + part + "}") if i % 2 else quote(part, safe=_PATH_SAFE)
        for i, part in enumerate(parts)
    )


def _path_text(value: object) -> str:
    return quote(_wire_text(value), safe="")


def _capped(value: object) -> str:
    """A long string sample inside JSON-lines bytes, which only a literal can hold."""
    if isinstance(value, LongText):
        return value.capped()
    raise TypeError(f"not JSON: {type(value).__name__}")


def _py_source(value: object) -> str:
    if isinstance(value, LongText):
        return value.source()
    if isinstance(value, datetime.datetime):
        return "datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)"
    if isinstance(value, datetime.date):
        return "datetime.date(2024, 1, 2)"
    if isinstance(value, bytes):
        return 'b"data"'
    if isinstance(value, list):
        return "[" + ", ".join(_py_source(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return py_literal(value)


def _json_source(value: Any) -> str:
    """Python source for a JSON value; every string goes through the escaping literal."""
    if isinstance(value, LongText):
        return value.source()
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{py_literal(str(k))}: {_json_source(v)}" for k, v in value.items())
            + "}"
        )
    if isinstance(value, list):
        return "[" + ", ".join(_json_source(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return py_literal(value)


def _satisfying(rule: Rule, fields: tuple[BodyField, ...]) -> set[str]:
    """The largest set of the rule's properties (earliest mentioned first) it allows, together
    with every required property."""
    names = rule.mentioned[:12]  # the search is exponential; rules name a handful of properties
    required = frozenset(f.name for f in fields if f.required)
    for size in range(len(names), -1, -1):
        for chosen in itertools.combinations(names, size):
            if rule.holds(required | frozenset(chosen)):
                return set(chosen)
    return set()
