"""The intermediate representation: frozen types between the document and the templates.

The builder (:mod:`generator.ir.build`) is the only producer; templates are the only consumers.
Values are never mutated after construction. Type references form a closed union
(:data:`TypeRef`), and so do response kinds, so a template can switch on them exhaustively.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from generator.ir.naming import ClassName, PythonIdentifier

# --- type references ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Primitive:
    name: Literal["str", "int", "float", "bool", "Any", "None", "datetime", "date", "bytes"]


@dataclass(frozen=True, slots=True)
class ModelRef:
    name: ClassName


@dataclass(frozen=True, slots=True)
class ListOf:
    item: TypeRef


@dataclass(frozen=True, slots=True)
class DictOf:
    value: TypeRef


@dataclass(frozen=True, slots=True, eq=False)
class LiteralOf:
    """Equal only to the same values of the same types: ``Literal[1]`` is not ``Literal[True]``,
    though ``1 == True`` (memos keyed by type references rely on it)."""

    values: tuple[str | int | bool, ...]
    # made once: rendering hashes a large document's enums tens of thousands of times
    _typed: tuple[tuple[type, str | int | bool], ...] = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        typed = tuple((type(v), v) for v in self.values)
        object.__setattr__(self, "_typed", typed)
        object.__setattr__(self, "_hash", hash(typed))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LiteralOf) and self._typed == other._typed

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[LiteralOf], tuple[tuple[str | int | bool, ...]]]:
        return LiteralOf, (self.values,)  # the hash is made again where it is loaded


@dataclass(frozen=True, slots=True)
class UnionOf:
    members: tuple[TypeRef, ...]


TypeRef = Primitive | ModelRef | ListOf | DictOf | LiteralOf | UnionOf

ANY = Primitive("Any")
NONE = Primitive("None")

# --- models -----------------------------------------------------------------------------------

Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class ModelField:
    """One property of a model: ``py_name`` is the attribute, ``name`` the wire name (alias)."""

    name: str
    py_name: PythonIdentifier
    type: TypeRef
    required: bool
    default: Scalar | None = None  # a value of ``type``; None with ``required`` False: ``= None``
    description: str = ""
    # pydantic ``Field`` constraints (``max_length``, ``ge``, ``pattern``, ...), in schema order
    constraints: tuple[tuple[str, Scalar], ...] = ()


@dataclass(frozen=True, slots=True)
class Model:
    """An object schema: a class with one attribute per property (``allOf`` members merged)."""

    name: ClassName
    fields: tuple[ModelField, ...]
    description: str = ""
    extra_allowed: bool = False  # unknown properties are kept (``additionalProperties``)
    # ``oneOf`` branches that only require properties: one group of attributes must all be set
    one_of: tuple[tuple[PythonIdentifier, ...], ...] = ()
    # the module in the family's ``_classes`` package that defines it (generator.ir.placement)
    module: str = ""
    refs: tuple[ClassName, ...] = ()  # the other classes its annotations name
    # a request argument may also be a plain dict of this TypedDict (keys are wire names)
    input_name: ClassName | None = None
    mixin: str | None = None  # a runtime class (``x-cube-data-result``) the model also derives from


@dataclass(frozen=True, slots=True)
class ValueModel:
    """A named schema that is not an object (a union, list, map or scalar): a class of one value."""

    name: ClassName
    type: TypeRef
    description: str = ""
    # reaches itself through value classes: typed on ``root`` only, as a base cannot name itself
    recursive: bool = False
    module: str = ""  # as Model.module
    refs: tuple[ClassName, ...] = ()  # the other classes its base and annotations name
    input_name: None = None  # value classes have no TypedDict twin (see Model.input_name)


ModelKind = Model | ValueModel

# --- operations -----------------------------------------------------------------------------

# ``querystring`` (OpenAPI 3.2) is the whole query string as one object, form-encoded.
ParamLocation = Literal["path", "query", "querystring", "header", "cookie"]
BodyKind = Literal["json", "form", "multipart", "binary", "text"]
ResponseKind = Literal["json", "binary", "text", "event-stream", "json-lines", "empty"]


@dataclass(frozen=True, slots=True)
class Parameter:
    """One argument of a client method; ``name`` is the wire name, ``py_name`` the argument."""

    name: str
    py_name: PythonIdentifier
    location: ParamLocation
    required: bool
    type: TypeRef
    description: str = ""
    explode: bool = True
    default: str | None = None  # the document's default as JSON text, for documentation only


@dataclass(frozen=True, slots=True)
class BodyField:
    """A property of an object request body, flattened into a keyword argument."""

    name: str
    py_name: PythonIdentifier
    required: bool
    type: TypeRef
    description: str = ""
    default: str | None = None


RuleKind = Literal["required", "not", "oneOf", "anyOf", "allOf"]


@dataclass(frozen=True, slots=True)
class Rule:
    """A request schema's rule about which properties are sent together (``oneOf`` of
    ``required`` branches, ``not``, ...), checked by the client before it sends anything."""

    kind: RuleKind
    names: tuple[str, ...] = ()  # ``required``: these properties are all present
    rules: tuple[Rule, ...] = ()  # ``not`` (one), ``oneOf``/``anyOf``/``allOf`` (any number)

    def holds(self, present: frozenset[str]) -> bool:
        """Whether a body sending exactly the properties ``present`` satisfies the rule."""
        match self.kind:
            case "required":
                return set(self.names) <= present
            case "not":
                return not self.rules[0].holds(present)
            case "oneOf":
                return sum(r.holds(present) for r in self.rules) == 1
            case "anyOf":
                return any(r.holds(present) for r in self.rules)
            case _:
                return all(r.holds(present) for r in self.rules)

    @property
    def mentioned(self) -> tuple[str, ...]:
        """Every property the rule names, in first-mention order."""
        seen = dict.fromkeys(self.names)
        for r in self.rules:
            seen.update(dict.fromkeys(r.mentioned))
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class RequestBody:
    media_type: str
    kind: BodyKind
    type: TypeRef
    required: bool
    # Object bodies are flattened into keyword arguments; anything else is one ``body`` argument.
    fields: tuple[BodyField, ...] | None
    model: ClassName | None = None
    # Flattened bodies whose schema adds rules about which properties go together
    # (``oneOf``/``anyOf``/``allOf``/``not`` of ``required``): checked with the model before
    # sending.
    validate: bool = False
    rule: Rule | None = None


@dataclass(frozen=True, slots=True)
class JsonLines:
    """How a JSON-lines body (one JSON value per line) marks an error and its own end.

    A line is an error when it is an object with ``error_member`` and none of ``error_without``;
    a stream is complete when its last line is an object with ``final_member`` (equal to
    ``final_value`` when one is given). Empty names mean no such rule.
    """

    error_member: str = ""
    error_without: tuple[str, ...] = ()
    final_member: str = ""
    final_value: str = ""


@dataclass(frozen=True, slots=True)
class Response:
    status: str
    kind: ResponseKind
    media_type: str | None
    # For ``json-lines``, the type of one line (the item schema), not of the whole body.
    type: TypeRef
    description: str = ""
    # The media types a non-JSON success response may carry, as an Accept header value.
    accept: str = ""
    lines: JsonLines | None = None
    # An event stream's ``itemSchema`` (OpenAPI 3.2): the type of each event's data.
    item_type: TypeRef = ANY

    @property
    def is_success(self) -> bool:
        return self.status.startswith("2")

    @property
    def returns_nothing(self) -> bool:
        """The method returns ``None``: no body, or a JSON body whose schema allows only null."""
        return self.kind == "empty" or (self.kind == "json" and self.type == NONE)


@dataclass(frozen=True, slots=True)
class Pagination:
    """How a list endpoint pages: by offset/limit with a total, or by an opaque cursor.

    Built from :class:`generator.document.extensions.PaginationSpec`, which owns the defaults."""

    style: Literal["offset", "cursor"]
    items_path: tuple[str, ...]
    item_type: TypeRef
    total_path: tuple[str, ...]
    offset_param: str
    limit_param: str
    cursor_param: str
    next_cursor_path: tuple[str, ...]
    # A boolean that says whether another page exists (e.g. ``pageInfo.hasNextPage``).
    has_more_path: tuple[str, ...]
    default_limit: int | None
    first_offset: int
    alternatives: tuple[Pagination, ...] = ()


@dataclass(frozen=True, slots=True)
class Job:
    """An operation that submits an asynchronous job, and the operations that follow it."""

    method: PythonIdentifier  # the generated ``<submit>_job`` method returning a job handle
    status_method: PythonIdentifier
    download_method: PythonIdentifier | None
    # Arguments of the status/download calls: a submit-method argument name, or None for the job id.
    call_args: tuple[PythonIdentifier | None, ...]
    # Where the runtime reads each value: the model attribute, or the JSON key without a model.
    id_field: str
    status_field: str
    success_values: tuple[str, ...]
    failure_values: tuple[str, ...]
    error_field: str
    expires_field: str
    status_type: TypeRef


@dataclass(frozen=True, slots=True)
class RequestId:
    """``x-cube-request-id``: the header carrying a call's request id, the separator before
    each poll's number (``<id>-span-<n>``) and how the server says "ask again", if it may."""

    header: str
    span_separator: str
    continue_member: str | None = None
    continue_value: str | None = None


@dataclass(frozen=True, slots=True)
class TokenJob:
    """``x-cube-token-job``: ``<op>_job`` starts jobs and returns a handle that follows them."""

    method: PythonIdentifier
    action_arg: PythonIdentifier  # the body field choosing the action
    start_action: str
    status_action: str
    tokens_arg: PythonIdentifier  # the body field carrying the tokens
    token_key: str
    status_key: str
    success_values: tuple[str, ...]
    failure_values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Operation:
    operation_id: str
    py_name: PythonIdentifier
    method: str
    path: str
    summary: str
    description: str
    deprecated: bool
    parameters: tuple[Parameter, ...]
    body: RequestBody | None
    success: Response
    errors: tuple[Response, ...]
    pointer: str
    pagination: Pagination | None = None
    job: Job | None = None
    request_id: RequestId | None = None
    host_root: bool = False  # sent to the host's root, outside the server URL's base path
    token_job: TokenJob | None = None

    @property
    def path_params(self) -> tuple[Parameter, ...]:
        return tuple(p for p in self.parameters if p.location == "path")

    @property
    def other_params(self) -> tuple[Parameter, ...]:
        return tuple(p for p in self.parameters if p.location != "path")

    @property
    def idempotent(self) -> bool:
        """Whether a retry may re-send this request even after the server may have seen it."""
        return self.method in {"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE", "QUERY"}


@dataclass(frozen=True, slots=True)
class Resource:
    """Operations grouped under one tag: ``client.<attr>.<method>()``."""

    name: str
    attr: PythonIdentifier
    module: PythonIdentifier
    class_name: ClassName
    description: str
    operations: tuple[Operation, ...]


# --- families and the package ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerVariable:
    name: str
    py_name: PythonIdentifier
    default: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Auth:
    """How the credential travels: ``header: prefix + credential``."""

    header: str
    prefix: str
    env: str
    param: PythonIdentifier
    description: str = ""
    # (scheme name, prefix) pairs the caller may choose with ``auth_scheme=``; first is default.
    schemes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class LongText:
    """A string sample of ``length`` characters: ``head``, then ``x`` up to the length (a
    ``minLength`` too long to write as a literal; the generated test builds it)."""

    head: str
    length: int


@dataclass(frozen=True, slots=True)
class OperationSamples:
    """What one operation's generated test sends and is answered with, sampled from the schemas
    while building (JSON values; a :class:`LongText` stands for a very long string)."""

    response: Any = None  # the success body (none for bytes, text, events and empty answers)
    page_item: Any = None  # one item of a page, for paged operations
    final_line: Any = None  # the final line's marker value, for JSON lines that have one
    fields: tuple[tuple[str, Any], ...] = ()  # body field → a scalar from its own schema
    # For a plain object answer: a property with a string enum, and a required, non-nullable
    # one, both present in ``response`` (the generated forward-compatibility tests change them).
    enum_field: str | None = None
    required_field: str | None = None
    # What was learned from the service's responses (``x-cube-observed``): a body built from the
    # learned shapes, the learned properties' names, and whether the answer is a list of them.
    observed_body: Any = None
    observed_fields: tuple[str, ...] = ()
    observed_listed: bool = False


@dataclass(frozen=True, slots=True)
class FamilySamples:
    """The test samples of a family: a JSON sample of every class an argument can carry, and
    each operation's samples by ``"METHOD /path"``."""

    models: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    operations: dict[str, OperationSamples] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True, slots=True)
class Family:
    """One API family: one document, one subpackage, one sync and one async client."""

    name: str
    module: str  # subpackage name, or "" for a package that holds one family at its root
    client_class: ClassName
    title: str
    description: str
    server_url: str
    server_variables: tuple[ServerVariable, ...]
    base_url_env: str
    auth: Auth | None
    resources: tuple[Resource, ...]
    models: tuple[ModelKind, ...] = ()
    recursion_limit: int = 0  # what the models need of ``sys.setrecursionlimit`` (0: the default)
    source: str = ""
    samples: FamilySamples = FamilySamples()  # what the generated tests send and receive

    def inputs(self) -> dict[str, str]:
        """Class name → the name of its TypedDict twin, for the classes a request can carry."""
        return {m.name: m.input_name for m in self.models if isinstance(m, Model) and m.input_name}

    def value_types(self) -> dict[str, TypeRef]:
        """Value class name → the type of its value (those that do not reach themselves)."""
        return {
            m.name: m.type for m in self.models if isinstance(m, ValueModel) and not m.recursive
        }

    @property
    def operations(self) -> tuple[Operation, ...]:
        return tuple(op for r in self.resources for op in r.operations)


@dataclass(frozen=True, slots=True)
class Distribution:
    """What the package's index page and ``importlib.metadata`` say about it."""

    license: str | None = None  # an SPDX expression
    license_text: str | None = None  # the LICENSE file that ships beside it
    changelog_text: str | None = None  # CHANGELOG.md, after the README in the long description
    authors: tuple[tuple[str, str], ...] = ()  # (name, email)
    urls: tuple[tuple[str, str], ...] = ()  # (label, https URL)

    @property
    def license_file(self) -> bool:
        return self.license_text is not None

    @property
    def changelog(self) -> bool:
        return self.changelog_text is not None


@dataclass(frozen=True, slots=True)
class Package:
    name: PythonIdentifier
    distribution: str
    version: str
    description: str
    families: tuple[Family, ...]
    spec_hash: str
    generator_version: str
    metadata: Distribution = Distribution()
    tests: bool = True  # the package ships a generated test of every operation
