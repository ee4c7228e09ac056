"""The intermediate representation: frozen types between the document and the templates.

The builder (:mod:`generator.build`) is the only producer; templates are the only consumers. Values
are never mutated after construction. Type references form a closed union (:data:`TypeRef`), and
so do response kinds, so a template can switch on them exhaustively.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from generator.naming import ClassName, PythonIdentifier

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


@dataclass(frozen=True, slots=True)
class LiteralOf:
    values: tuple[str | int | bool, ...]


@dataclass(frozen=True, slots=True)
class UnionOf:
    members: tuple[TypeRef, ...]


TypeRef = Primitive | ModelRef | ListOf | DictOf | LiteralOf | UnionOf

ANY = Primitive("Any")
NONE = Primitive("None")

# --- operations -----------------------------------------------------------------------------

ParamLocation = Literal["path", "query", "header", "cookie"]
BodyKind = Literal["json", "form", "multipart", "binary", "text"]
ResponseKind = Literal["json", "binary", "text", "event-stream", "empty"]


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


@dataclass(frozen=True, slots=True)
class RequestBody:
    media_type: str
    kind: BodyKind
    type: TypeRef
    required: bool
    # Object bodies are flattened into keyword arguments; anything else is one ``body`` argument.
    fields: tuple[BodyField, ...] | None
    model: ClassName | None = None
    # Flattened bodies whose schema adds ``oneOf``/``anyOf`` rules: the payload is validated
    # against the model before sending, and each group lists the properties of one branch.
    validate: bool = False
    one_of: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Response:
    status: str
    kind: ResponseKind
    media_type: str | None
    type: TypeRef
    description: str = ""
    # The media types a non-JSON success response may carry, as an Accept header value.
    accept: str = ""

    @property
    def is_success(self) -> bool:
        return self.status.startswith("2")


@dataclass(frozen=True, slots=True)
class Pagination:
    """How a list endpoint pages: by offset/limit with a total, or by an opaque cursor."""

    style: Literal["offset", "cursor"]
    items_path: tuple[str, ...]
    item_type: TypeRef
    total_path: tuple[str, ...] = ()
    offset_param: str = "offset"
    limit_param: str = "limit"
    cursor_param: str = "after"
    next_cursor_path: tuple[str, ...] = ()
    default_limit: int | None = None
    alternatives: tuple[Pagination, ...] = ()
    first_offset: int = 0


@dataclass(frozen=True, slots=True)
class Job:
    """An operation that submits an asynchronous job, and the operations that follow it."""

    method: PythonIdentifier  # the generated ``<submit>_job`` method returning a job handle
    status_method: PythonIdentifier
    download_method: PythonIdentifier | None
    # Arguments of the status/download calls: a submit-method argument name, or None for the job id.
    call_args: tuple[PythonIdentifier | None, ...]
    id_field: str
    status_field: str
    success_values: tuple[str, ...]
    failure_values: tuple[str, ...]
    error_field: str
    expires_field: str
    status_type: TypeRef


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

    @property
    def path_params(self) -> tuple[Parameter, ...]:
        return tuple(p for p in self.parameters if p.location == "path")

    @property
    def other_params(self) -> tuple[Parameter, ...]:
        return tuple(p for p in self.parameters if p.location != "path")

    @property
    def idempotent(self) -> bool:
        """Whether a retry may re-send this request even after the server may have seen it."""
        return self.method in {"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"}


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
    schemas: dict[str, Any] = field(hash=False, compare=False)
    model_names: tuple[ClassName, ...] = ()
    source: str = ""
    # class name → JSON pointer of the schema it was made from, for diagnostics
    schema_pointers: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def operations(self) -> tuple[Operation, ...]:
        return tuple(op for r in self.resources for op in r.operations)


@dataclass(frozen=True, slots=True)
class Package:
    name: PythonIdentifier
    distribution: str
    version: str
    description: str
    families: tuple[Family, ...]
    spec_hash: str
    generator_version: str
