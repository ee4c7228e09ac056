"""One reading of one schema object: what its keywords say, with the spelling variants folded.

Type mapping (:mod:`generator.ir.schemas`), test samples (:mod:`generator.emit.samples`) and drift
(:mod:`generator.drift.schema_view`) all ask the same questions of a schema node: which types,
nullable or not, which enum values, which members, which bounds. :func:`facts` answers them once
per node, in one frozen :class:`SchemaFacts`, so that the readers agree on what a node says:

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
from typing import Any

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


class SchemaFacts:
    """What one schema node says, read once (see the module text for the folding rules).

    Immutable. A keyword the node does not say reads as the class default, so building one costs
    in proportion to the keywords the node has: it is built for every schema node a reader meets.
    """

    __slots__ = ("__dict__",)

    node: Mapping[str, Any] = {}
    """The node read (kept, not copied: its keys are :attr:`keywords`)."""
    ref: str | None = None
    """``$ref`` when it is a string."""
    types: tuple[str, ...] = ()
    """The type names besides ``"null"``, in order (empty: no type given, or only null)."""
    null_type: bool = False
    """``"null"`` is one of the types (3.1 ``type: [X, "null"]`` or ``type: "null"``)."""
    nullable_keyword: bool = False
    """``nullable: true`` (3.0)."""
    enum: Sequence[Any] | None = None
    """``enum`` when it is a list (``null`` members included, as written)."""
    const: tuple[Any, ...] = ()
    """``(value,)`` when ``const`` is given (it may be null), else empty."""
    default: tuple[Any, ...] = ()
    """``(value,)`` when ``default`` is given (it may be null), else empty."""
    format: str | None = None
    pattern: str | None = None
    title: str | None = None
    properties: Mapping[str, Any] | None = None
    """``properties`` when it is a mapping: names to child schemas as written."""
    required: tuple[str, ...] = ()
    items: Any = None
    """``items`` as written (a schema, or a boolean in 3.1); ``None`` when absent."""
    additional: Any = None
    """``additionalProperties`` as written (a schema or a boolean); ``None`` when absent."""
    all_of: Sequence[Any] | None = None
    """``allOf`` when it is a list (members as written; so are ``oneOf`` and ``anyOf``)."""
    one_of: Sequence[Any] | None = None
    any_of: Sequence[Any] | None = None
    union: Sequence[Any] = ()
    """The members of the first non-empty ``oneOf``/``anyOf`` (empty when there is none)."""
    discriminator: Mapping[str, Any] | None = None
    bounds: Mapping[str, Number] = {}
    """The numeric bounds (``minimum``, ``exclusiveMinimum`` as a number, ``minLength``,
    ``maxItems``...) in :data:`BOUND_KEYWORDS` order; booleans and other values left out."""
    exclusive_flags: tuple[bool, bool] = (False, False)
    """3.0 ``exclusiveMinimum: true`` and ``exclusiveMaximum: true``."""
    read_only: bool = False
    write_only: bool = False

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"SchemaFacts are read-only ({name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"SchemaFacts are read-only ({name})")

    def __repr__(self) -> str:
        said = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k != "node")
        return f"SchemaFacts({said})"

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
    def unions(self) -> tuple[tuple[str, Sequence[Any]], ...]:
        """``("oneOf", members)`` and ``("anyOf", members)``, each when it is a list."""
        found: list[tuple[str, Sequence[Any]]] = []
        if self.one_of is not None:
            found.append(("oneOf", self.one_of))
        if self.any_of is not None:
            found.append(("anyOf", self.any_of))
        return tuple(found)

    @property
    def discriminator_property(self) -> str | None:
        name = self.discriminator.get("propertyName") if self.discriminator else None
        return name if isinstance(name, str) else None

    @property
    def discriminator_mapping(self) -> Mapping[str, Any]:
        """The discriminator's ``mapping`` (value to variant), empty when there is none."""
        found = self.discriminator.get("mapping") if self.discriminator else None
        return found if isinstance(found, dict) else _EMPTY

    @property
    def lower(self) -> Bound | None:
        """The lower bound on numbers, 3.0 flag and 3.1 number alike (the tighter of
        ``minimum`` and ``exclusiveMinimum`` when both are numbers)."""
        return _bound(
            self.bounds.get("minimum"), self.bounds.get("exclusiveMinimum"), self.exclusive_flags[0]
        )

    @property
    def upper(self) -> Bound | None:
        """The upper bound on numbers, as :attr:`lower`."""
        low = _bound(
            _negated(self.bounds.get("maximum")),
            _negated(self.bounds.get("exclusiveMaximum")),
            self.exclusive_flags[1],
        )
        return Bound(-low.value, low.exclusive) if low else None

    def whole(self, keyword: str) -> int | None:
        """A count bound's value (``minLength``, ``minItems``...) when it is a whole number."""
        value = self.bounds.get(keyword)
        return value if isinstance(value, int) else None

    def siblings_of_ref(self, allowed: frozenset[str]) -> bool:
        """A string ``$ref`` with keywords beside it other than ``$ref`` and ``allowed``."""
        return self.ref is not None and any(k != "$ref" and k not in allowed for k in self.keywords)


def facts(node: Mapping[str, Any]) -> SchemaFacts:
    """The facts of one schema node (a mapping; each reader decides what a non-mapping is).

    One pass over the node's keys; what the node does not say keeps the class default."""
    found = _new(SchemaFacts)
    said = found.__dict__
    said["node"] = node
    bounds: dict[str, Number] | None = None
    for key, value in node.items():
        if key == "type":
            _read_type(said, value)
            continue
        plain = _PLAIN.get(key)
        if plain is not None:
            name, want = plain
            if want is None or isinstance(value, want):
                said[name] = value
            continue
        how = _SPECIAL.get(key)
        if how is None:
            continue
        kind, name = how
        if kind == _BOUND:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                bounds = {} if bounds is None else bounds
                bounds[key] = value
            elif value is True and name:  # 3.0: minimum/maximum is exclusive
                low, high = found.exclusive_flags
                said["exclusive_flags"] = (True, high) if name == "min" else (low, True)
        elif kind == _FLAG:
            if value is True:
                said[name] = True
        elif kind == _ONE:
            said[name] = (value,)
        elif isinstance(value, list):  # required
            said[name] = tuple(v for v in value if isinstance(v, str))
    if bounds is not None:
        said["bounds"] = {k: bounds[k] for k in BOUND_KEYWORDS if k in bounds}
    union = said.get("one_of") or said.get("any_of")
    if union:
        said["union"] = union
    return found


def _read_type(said: dict[str, Any], raw: Any) -> None:
    if isinstance(raw, str):
        if raw == "null":
            said["null_type"] = True
        else:
            said["types"] = (raw,)
    elif isinstance(raw, list):
        names = [t for t in raw if isinstance(t, str)]
        said["null_type"] = "null" in names
        said["types"] = tuple(t for t in names if t != "null")


_new = object.__new__
# keywords whose value is kept as written when it has the JSON type wanted (None: any value)
_PLAIN: dict[str, tuple[str, type | None]] = {
    "$ref": ("ref", str),
    "enum": ("enum", list),
    "format": ("format", str),
    "pattern": ("pattern", str),
    "title": ("title", str),
    "properties": ("properties", dict),
    "items": ("items", None),
    "additionalProperties": ("additional", None),
    "allOf": ("all_of", list),
    "oneOf": ("one_of", list),
    "anyOf": ("any_of", list),
    "discriminator": ("discriminator", dict),
}
_BOUND, _FLAG, _ONE, _NAMES = range(4)
# the other keywords read: (how, the field it fills; for a bound, the 3.0 flag it can be)
_SPECIAL: dict[str, tuple[int, str]] = {
    **{keyword: (_BOUND, "") for keyword in BOUND_KEYWORDS},
    "exclusiveMinimum": (_BOUND, "min"),
    "exclusiveMaximum": (_BOUND, "max"),
    "nullable": (_FLAG, "nullable_keyword"),
    "readOnly": (_FLAG, "read_only"),
    "writeOnly": (_FLAG, "write_only"),
    "const": (_ONE, "const"),
    "default": (_ONE, "default"),
    "required": (_NAMES, "required"),
}


class FactsMemo(dict[int, SchemaFacts]):
    """:func:`facts` once per node, for one reader's lifetime: ``memo(node)``, or in a hot loop
    ``memo.get(id(node)) or memo(node)``. The facts keep their node alive, so an ``id`` is never
    reused while the memo lives; a reader must not change a node after reading it."""

    __slots__ = ()

    def __call__(self, node: Mapping[str, Any]) -> SchemaFacts:
        found = self.get(id(node))
        if found is None:
            found = self[id(node)] = facts(node)
        return found


def _negated(value: Number | None) -> Number | None:
    return None if value is None else -value


def _bound(inclusive: Number | None, exclusive: Number | None, flag: bool) -> Bound | None:
    """The tighter lower bound of ``inclusive`` (exclusive itself when ``flag``, 3.0) and the
    3.1 ``exclusive`` number."""
    if exclusive is not None and (inclusive is None or exclusive >= inclusive):
        return Bound(exclusive, True)
    return Bound(inclusive, flag) if inclusive is not None else None
