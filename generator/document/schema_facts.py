"""One reading of one schema object: what its keywords say, with the spelling variants folded.

Type mapping (:mod:`generator.ir.schemas`), test samples (:mod:`generator.ir.samples`) and drift
(:mod:`generator.drift.schema_view`) all ask the same questions of a schema node: which types,
nullable or not, which enum values, which members, which bounds. :func:`facts` answers them once
per node, in one read-only :class:`SchemaFacts`, so that the readers agree on what a node says:

- ``type`` as a string or a list (3.1), ``"null"`` in it and 3.0 ``nullable: true`` become
  :attr:`SchemaFacts.types` (the non-null names, in order) and :attr:`SchemaFacts.nullable`;
- ``const`` and ``enum`` are kept apart, and read together by :attr:`SchemaFacts.choices`;
- ``exclusiveMinimum`` as a flag (3.0) or as a number (3.1) meets ``minimum`` in
  :attr:`SchemaFacts.lower` (and ``maximum`` in :attr:`SchemaFacts.upper`);
- keywords of the wrong JSON type read as absent (a ``format`` that is not a string, a bound that
  is a boolean), so no reader trips over a malformed node.

Nothing is followed or merged here (``$ref`` targets, ``allOf`` members): that is each reader's
own business. A node is a ``dict``; child schemas are handed out as they are written.
"""

from __future__ import annotations

from collections.abc import KeysView, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
BOUND_KEYWORDS = LOWER_BOUNDS + UPPER_BOUNDS
_EMPTY: Mapping[str, Any] = {}

Number = int | float


@dataclass(frozen=True, slots=True)
class Bound:
    """One side of a numeric range: ``value`` itself allowed or not (``exclusive``)."""

    value: Number
    exclusive: bool


_FIELDS = (  # the order of SchemaFacts.__init__
    "node",
    "ref",
    "types",
    "null_type",
    "nullable_keyword",
    "enum",
    "const",
    "default",
    "format",
    "properties",
    "required",
    "items",
    "additional",
    "all_of",
    "union",
    "bounds",
)


class SchemaFacts:
    """What one schema node says (see the module text for the folding rules).

    Read-only: the fields are ``Final`` (mypy refuses an assignment) and there is no room for
    others. One is built for every schema node a reader meets, so what every reader asks is read
    when it is built, into slots (the quickest to fill and to read); what fewer ask (``title``,
    ``pattern``, ``readOnly``, the discriminator...) is read from the node when asked.
    """

    __slots__ = _FIELDS

    node: Final[Mapping[str, Any]]
    """The node read (kept, not copied: its keys are :attr:`keywords`)."""
    ref: Final[str | None]
    """``$ref`` when it is a string."""
    types: Final[tuple[str, ...]]
    """The type names besides ``"null"``, in order (empty: no type given, or only null)."""
    null_type: Final[bool]
    """``"null"`` is one of the types (3.1 ``type: [X, "null"]`` or ``type: "null"``)."""
    nullable_keyword: Final[bool]
    """``nullable: true`` (3.0)."""
    enum: Final[Sequence[Any] | None]
    """``enum`` when it is a list (``null`` members included, as written)."""
    const: Final[tuple[Any, ...]]
    """``(value,)`` when ``const`` is given (it may be null), else empty."""
    default: Final[tuple[Any, ...]]
    """``(value,)`` when ``default`` is given (it may be null), else empty."""
    format: Final[str | None]
    properties: Final[Mapping[str, Any] | None]
    """``properties`` when it is a mapping: names to child schemas as written."""
    required: Final[tuple[str, ...]]
    """The names listed in ``required`` (other entries left out)."""
    items: Final[Any]
    """``items`` as written (a schema, or a boolean in 3.1); ``None`` when absent."""
    additional: Final[Any]
    """``additionalProperties`` as written (a schema or a boolean); ``None`` when absent."""
    all_of: Final[Sequence[Any] | None]
    """``allOf`` when it is a list (members as written)."""
    union: Final[Sequence[Any]]
    """The members of the first non-empty ``oneOf``/``anyOf`` (empty when there is none)."""
    bounds: Final[Mapping[str, Number]]
    """The numeric bounds (``minimum``, ``exclusiveMinimum`` as a number, ``minLength``,
    ``maxItems``...) in :data:`BOUND_KEYWORDS` order; booleans and other values left out."""

    def __init__(
        self,
        node: Mapping[str, Any],
        ref: str | None,
        types: tuple[str, ...],
        null_type: bool,
        nullable_keyword: bool,
        enum: Sequence[Any] | None,
        const: tuple[Any, ...],
        default: tuple[Any, ...],
        format: str | None,
        properties: Mapping[str, Any] | None,
        required: tuple[str, ...],
        items: Any,
        additional: Any,
        all_of: Sequence[Any] | None,
        union: Sequence[Any],
        bounds: Mapping[str, Number],
    ) -> None:
        self.node = node
        self.ref = ref
        self.types = types
        self.null_type = null_type
        self.nullable_keyword = nullable_keyword
        self.enum = enum
        self.const = const
        self.default = default
        self.format = format
        self.properties = properties
        self.required = required
        self.items = items
        self.additional = additional
        self.all_of = all_of
        self.union = union
        self.bounds = bounds

    def __repr__(self) -> str:
        said = [
            f"{name}={getattr(self, name)!r}"
            for name in _FIELDS
            if name != "node" and getattr(self, name) != getattr(_BLANK, name)
        ]
        return f"SchemaFacts({', '.join(said)})"

    @property
    def keywords(self) -> KeysView[str]:
        """Every key of the node, in document order."""
        return self.node.keys()

    @property
    def nullable(self) -> bool:
        """Null is a value: ``nullable: true`` or a ``"null"`` type."""
        return self.nullable_keyword or self.null_type

    @property
    def only_null(self) -> bool:
        """``type: "null"`` (or ``["null"]``): null is the one value."""
        return self.null_type and not self.types

    @property
    def choices(self) -> Sequence[Any] | None:
        """The values the schema lists: ``(const,)``, else the ``enum``, else ``None``."""
        return self.const or self.enum

    @property
    def one_of(self) -> Sequence[Any] | None:
        """``oneOf`` when it is a list (members as written)."""
        return _list(self.node.get("oneOf"))

    @property
    def any_of(self) -> Sequence[Any] | None:
        """``anyOf`` when it is a list (members as written)."""
        return _list(self.node.get("anyOf"))

    @property
    def unions(self) -> tuple[tuple[str, Sequence[Any]], ...]:
        """``("oneOf", members)`` and ``("anyOf", members)``, each when it is a list."""
        found = (("oneOf", self.one_of), ("anyOf", self.any_of))
        return tuple((keyword, members) for keyword, members in found if members is not None)

    @property
    def pattern(self) -> str | None:
        return _text(self.node.get("pattern"))

    @property
    def title(self) -> str | None:
        return _text(self.node.get("title"))

    @property
    def read_only(self) -> bool:
        return self.node.get("readOnly") is True

    @property
    def write_only(self) -> bool:
        return self.node.get("writeOnly") is True

    @property
    def discriminator(self) -> Mapping[str, Any] | None:
        found = self.node.get("discriminator")
        return found if isinstance(found, dict) else None

    @property
    def discriminator_property(self) -> str | None:
        disc = self.discriminator
        return _text(disc.get("propertyName")) if disc else None

    @property
    def discriminator_mapping(self) -> Mapping[str, Any]:
        """The discriminator's ``mapping`` (value to variant), empty when there is none."""
        disc = self.discriminator
        found = disc.get("mapping") if disc else None
        return found if isinstance(found, dict) else _EMPTY

    @property
    def exclusive_flags(self) -> tuple[bool, bool]:
        """3.0 ``exclusiveMinimum: true`` and ``exclusiveMaximum: true``."""
        get = self.node.get
        return get("exclusiveMinimum") is True, get("exclusiveMaximum") is True

    @property
    def lower(self) -> Bound | None:
        """The lower bound on numbers, 3.0 flag and 3.1 number alike (the tighter of
        ``minimum`` and ``exclusiveMinimum`` when both are numbers)."""
        if not self.bounds:
            return None
        return _bound(
            self.bounds.get("minimum"), self.bounds.get("exclusiveMinimum"), self.exclusive_flags[0]
        )

    @property
    def upper(self) -> Bound | None:
        """The upper bound on numbers, as :attr:`lower`."""
        if not self.bounds:
            return None
        low = _bound(
            _negated(self.bounds.get("maximum")),
            _negated(self.bounds.get("exclusiveMaximum")),
            self.exclusive_flags[1],
        )
        return Bound(-low.value, low.exclusive) if low else None

    def whole(self, keyword: str) -> int | None:
        """A count bound's value (``minLength``, ``minItems``...) when it is a whole number."""
        value = self.bounds.get(keyword) if self.bounds else None
        return value if isinstance(value, int) else None

    def siblings_of_ref(self, allowed: frozenset[str]) -> bool:
        """A string ``$ref`` with keywords beside it other than ``$ref`` and ``allowed``."""
        return self.ref is not None and any(k != "$ref" and k not in allowed for k in self.keywords)


def facts(node: Mapping[str, Any]) -> SchemaFacts:
    """The facts of one schema node (a mapping; each reader decides what a non-mapping is).

    One pass over the node's keys, most frequent first; what the node does not say stays blank.
    """
    ref = enum = form = properties = items = additional = all_of = None
    types: tuple[str, ...] = ()
    const: tuple[Any, ...] = ()
    default: tuple[Any, ...] = ()
    required: tuple[str, ...] = ()
    union: Sequence[Any] = ()
    null_type = nullable = one_of = False
    bounds: Mapping[str, Number] = _EMPTY
    for key, value in node.items():
        if key == "type":
            if isinstance(value, str):
                types, null_type = ((), True) if value == "null" else ((value,), False)
            else:
                types, null_type = _types(value)
        elif key not in _KNOWN:  # descriptions, examples, extensions...
            continue
        elif key == "oneOf":  # oneOf wins over anyOf, wherever each is written
            if isinstance(value, list) and value:
                union, one_of = value, True
        elif key == "properties":
            properties = value if isinstance(value, dict) else None
        elif key == "$ref":
            ref = value if isinstance(value, str) else None
        elif key == "required":
            required = (
                tuple([v for v in value if isinstance(v, str)]) if isinstance(value, list) else ()
            )
        elif key == "enum":
            enum = value if isinstance(value, list) else None
        elif key == "items":
            items = value
        elif key == "format":
            form = value if isinstance(value, str) else None
        elif key == "additionalProperties":
            additional = value
        elif key == "nullable":
            nullable = value is True
        elif key == "allOf":
            all_of = value if isinstance(value, list) else None
        elif key == "anyOf":
            if isinstance(value, list) and value and not one_of:
                union = value
        elif key == "const":
            const = (value,)
        elif key == "default":
            default = (value,)
        elif key in _BOUND_KEYWORDS and isinstance(value, (int, float)):
            bounds = _with_bound(bounds, key, value)
    return SchemaFacts(
        node, ref, types, null_type, nullable, enum, const, default, form, properties,
        required, items, additional, all_of, union, bounds,
    )  # fmt: skip


def _types(value: Any) -> tuple[tuple[str, ...], bool]:
    """``type`` written as a list (or malformed): the non-null names, and whether ``"null"`` is
    one."""
    if isinstance(value, list):
        names = [t for t in value if isinstance(t, str)]
        return tuple(t for t in names if t != "null"), "null" in names
    return (), False


def _names(value: Any) -> tuple[str, ...]:
    return tuple([v for v in value if isinstance(v, str)]) if isinstance(value, list) else ()


def _with_bound(bounds: Mapping[str, Number], key: str, value: Number) -> Mapping[str, Number]:
    """``bounds`` and one more numeric bound (not a boolean), in :data:`BOUND_KEYWORDS` order."""
    if isinstance(value, bool):
        return bounds
    if not bounds:
        return {key: value}  # the one bound most nodes have: in order already
    found = {**bounds, key: value}
    return {k: found[k] for k in BOUND_KEYWORDS if k in found}


_BOUND_KEYWORDS = frozenset(BOUND_KEYWORDS)
_KNOWN = _BOUND_KEYWORDS | {
    "oneOf", "properties", "$ref", "required", "enum", "items", "format",
    "additionalProperties", "nullable", "allOf", "anyOf", "const", "default",
}  # fmt: skip
_BLANK = facts({})


class FactsMemo(dict[int, SchemaFacts]):
    """:func:`facts` once per node: ``memo(node)``, or in a hot loop ``memo.get(id(node)) or
    memo(node)``. The facts keep their node alive, so an ``id`` is never reused while the memo
    lives; nodes must not change once read. The IR's catalogue hands its memo on to the test
    samples (:mod:`generator.ir.sample_book`), which read the same nodes."""

    __slots__ = ("_copies",)

    def __init__(self) -> None:
        super().__init__()
        self._copies: list[Mapping[str, Any]] = []

    def __call__(self, node: Mapping[str, Any]) -> SchemaFacts:
        found = self.get(id(node))
        if found is None:
            found = self[id(node)] = facts(node)
        return found

    def same(self, node: Mapping[str, Any], read: SchemaFacts) -> None:
        """``node`` is a copy of ``read.node`` (the same keys and the same values): what was read
        stands for it too, without reading it again."""
        self._copies.append(node)  # alive with the memo, as the nodes the facts hold
        self[id(node)] = read

    def rewritten(self, node: Mapping[str, Any], read: SchemaFacts) -> None:
        """``node`` is ``read.node`` rewritten (:func:`rewritten`): its facts, read from the few
        keywords a rewrite may change."""
        self[id(node)] = rewritten(node, read)


def rewritten(node: Mapping[str, Any], read: SchemaFacts) -> SchemaFacts:
    """The facts of ``node``, a rewrite of ``read.node`` that may hold other values under
    :data:`REWRITABLE` only (child schemas, ``$ref``, a ``default`` left out) and the same
    values under every other keyword, some of which may be left out if no fact reads them:
    ``facts(node)``, with the facts of those other keywords taken from ``read``."""
    get = node.get
    ref, props, all_of = get("$ref"), get("properties"), get("allOf")
    one_of, any_of = get("oneOf"), get("anyOf")
    union: Sequence[Any] = ()
    if isinstance(one_of, list) and one_of:  # oneOf wins over anyOf, as in facts()
        union = one_of
    elif isinstance(any_of, list) and any_of:
        union = any_of
    return SchemaFacts(
        node, ref if isinstance(ref, str) else None, read.types, read.null_type,
        read.nullable_keyword, read.enum, read.const,
        (node["default"],) if "default" in node else (), read.format,
        props if isinstance(props, dict) else None, read.required, get("items"),
        get("additionalProperties"), all_of if isinstance(all_of, list) else None, union,
        read.bounds,
    )  # fmt: skip


# The keywords whose values a rewrite of a node may change (:func:`rewritten`); the facts of
# every other keyword stay as they were read.
REWRITABLE = frozenset(
    {"$ref", "properties", "items", "additionalProperties", "oneOf", "anyOf", "allOf", "default"}
)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _list(value: Any) -> Sequence[Any] | None:
    return value if isinstance(value, list) else None


def _negated(value: Number | None) -> Number | None:
    return None if value is None else -value


def _bound(inclusive: Number | None, exclusive: Number | None, flag: bool) -> Bound | None:
    """The tighter lower bound of ``inclusive`` (exclusive itself when ``flag``, 3.0) and the
    3.1 ``exclusive`` number."""
    if exclusive is not None and (inclusive is None or exclusive >= inclusive):
        return Bound(exclusive, True)
    return Bound(inclusive, flag) if inclusive is not None else None
