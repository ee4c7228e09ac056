"""Pydantic v2 models through datamodel-code-generator, from a family's schema catalogue.

The catalogue's names are ours (see :mod:`generator.schemas`); after generation we check that each
of them became a class, so a renaming inside the library can never leave a client method pointing
at a class that does not exist.
"""

from __future__ import annotations

import json
import re
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generator.diagnostics import (
    CodegenError,
    Diagnostic,
    pointer,
    resolve_pointer,
    split_pointer,
)
from generator.ir import Family
from generator.naming import pascal_case
from generator.sanitize import sanitize_schema
from generator.schemas import CATALOG_PREFIX

_CLASS = re.compile(r"^class (\w+)\(", re.MULTILINE)
_EMPTY_MODULE = "from __future__ import annotations\n"


def warm_up_models() -> None:
    """Import the model generator ahead of need (worker start-up, overlapping the parent's work)."""
    import datamodel_code_generator.parser.openapi  # noqa: F401


def render_models(family: Family, openapi_version: str) -> str:
    """Return the source of the family's ``models`` module (unformatted, without header)."""
    if not family.schemas:
        return _EMPTY_MODULE
    prepared = prepare_catalogue(
        {
            name: sanitize_schema(schema if schema is not None else {})
            for name, schema in family.schemas.items()
        }
    )
    catalogue: dict[str, Any] = {name: _components_refs(s) for name, s in prepared.items()}
    doc = {
        "openapi": openapi_version if openapi_version.startswith("3.") else "3.1.0",
        "info": {"title": "models", "version": "0"},
        "paths": {},
        "components": {"schemas": catalogue},
    }
    text, classes = _generate(doc, family)
    if _hoist_impostors(doc, family, classes):
        text, classes = _generate(doc, family)
        ours = {n.lower(): n for n in family.model_names}
        taken = sorted(
            ours[cls.lower()]
            for cls, ref in classes.items()
            if cls.lower() in ours and ref in _impostors(family, classes)
        )
        if taken:
            raise _lost(family, taken, "the model generator gave its name to another schema")
    missing = sorted(set(family.model_names) - set(_CLASS.findall(text)))
    if missing:
        raise _lost(family, missing, "the model generator did not emit it")
    return text


_COMPONENT_REF = "#/components/schemas/"


def _lost(family: Family, classes: Sequence[str], why: str) -> CodegenError:
    """Name the schema (by pointer) and the class it was to become."""
    first = classes[0]
    ptr = family.schema_pointers.get(first, "/components/schemas")
    more = f" (and {len(classes) - 1} more: {', '.join(classes[1:5])})" if classes[1:] else ""
    message = f"class {first} for the schema at {ptr} is missing: {why}{more}"
    return CodegenError(Diagnostic("models-name-lost", "error", family.source, ptr, message))


def _impostors(family: Family, classes: dict[str, str]) -> list[str]:
    """Schema locations of inline models the library named like one of our catalogue classes.

    ``classes`` maps each emitted class to the schema location it came from, as the library
    reports it. The library names the models it invents (a constrained union branch becomes
    ``Count``, ``Count1``) after property names, which may be names of ours: then it renames our
    class instead (``CountModel``), and a client method would point at the wrong class.
    """
    ours = {n.lower() for n in family.model_names}
    return [
        ref
        for cls, ref in classes.items()
        if cls.lower() in ours and ref.lower() != (_COMPONENT_REF + cls).lower()
    ]


def _hoist_impostors(doc: dict[str, Any], family: Family, classes: dict[str, str]) -> bool:
    """Give every inline schema the library named like ours a component (and name) of its own."""
    refs = [r for r in _impostors(family, classes) if r.startswith(_COMPONENT_REF)]
    inline = sorted({r for r in refs if r.count("/") > 3}, key=lambda r: -r.count("/"))
    schemas = doc["components"]["schemas"]
    taken = {n.lower() for n in schemas} | {n.lower() for n in classes}
    for ref in inline:
        tokens = split_pointer(ref)
        try:
            parent = resolve_pointer(doc, pointer(*tokens[:-1]))
        except (KeyError, ValueError):
            continue
        key: Any = int(tokens[-1]) if isinstance(parent, list) else tokens[-1]
        if isinstance(parent, list) and not 0 <= key < len(parent):
            continue
        if isinstance(parent, dict) and key not in parent:
            continue
        base = pascal_case(tokens[-3] if tokens[-1].isdigit() else tokens[-1]) or "Schema"
        name, n = base + "Inline", 1
        while name.lower() in taken:
            n += 1
            name = f"{base}Inline{n}"
        taken.add(name.lower())
        schemas[name] = parent[key]
        parent[key] = {"$ref": _COMPONENT_REF + name}
    return bool(refs)


def _generate(doc: dict[str, Any], family: Family) -> tuple[str, dict[str, str]]:
    """Run the model generator; the source text and ``{class name: schema location}``."""
    from datamodel_code_generator import InputFileType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType
    from datamodel_code_generator.format import DatetimeClassType
    from datamodel_code_generator.parser import LiteralType

    try:
        with tempfile.TemporaryDirectory(prefix="cube-codegen-models-") as tmp:
            meta = Path(tmp) / "models.json"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = generate(
                    doc,
                    input_file_type=InputFileType.OpenAPI,
                    output_model_type=DataModelType.PydanticV2BaseModel,
                    target_python_version=PythonVersion.PY_311,
                    use_annotated=True,
                    use_standard_collections=True,
                    use_union_operator=True,
                    field_constraints=True,
                    enum_field_as_literal=LiteralType.All,
                    use_double_quotes=True,
                    # URLs stay plain strings: AnyUrl validation roughly doubles the cost of parsing
                    # a page of models, and rewrites values (a trailing slash) the caller sent.
                    type_mappings=["string+uri=string", "string+uri-reference=string"],
                    disable_timestamp=True,
                    formatters=[],
                    use_schema_description=True,
                    use_field_description=True,
                    strict_nullable=True,
                    output_datetime_class=DatetimeClassType.Awaredatetime,
                    allow_population_by_field_name=True,
                    snake_case_field=True,
                    capitalise_enum_members=True,
                    keep_model_order=True,
                    custom_file_header="",
                    emit_model_metadata=meta,
                )
            models = json.loads(meta.read_text(encoding="utf-8")).get("models", [])
    except CodegenError:
        raise
    except Exception as exc:  # the library reports bad schemas with many exception types
        raise CodegenError(
            Diagnostic(
                "models-failed",
                "error",
                family.source,
                "/components/schemas",
                f"model generation failed: {type(exc).__name__}: {exc}",
            )
        ) from None
    classes = {
        str(m.get("class_name")): str(m.get("source_ref"))
        for m in models
        if isinstance(m, dict) and not m.get("module")
    }
    return (out if isinstance(out, str) else ""), classes


# --- catalogue preparation: shapes datamodel-code-generator renders into code mypy rejects -----

_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_EXTRA_FORMATS = frozenset({"email", "idn-email"})
_SCALAR_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def prepare_catalogue(catalogue: dict[str, Any]) -> dict[str, Any]:
    """Rewrite schemas the model generator would turn into ill-typed code.

    * ``nullable: false`` is the default; the library reads it as "optional without ``None``"
      and writes ``x: str = None``.
    * ``const`` values a ``Literal`` cannot hold (numbers with a fraction, objects, lists) become
      their plain type, for the same reason.
    * a property that refers to a named scalar (an enum above all), directly or as a member of a
      nullable union, gets the scalar inline: the field is ``Literal[...]`` (``| None``), so
      ``job.status == "failed"`` holds and a default is a valid value of the field's type, rather
      than a RootModel wrapper around it.
    * an ``allOf`` that redefines a property of a referenced base with another schema is merged
      into one class: a subclass cannot change an attribute's type.
    """
    out = {name: _normalise(schema) for name, schema in catalogue.items()}
    for name, schema in out.items():
        out[name] = _inline_scalars(schema, out)
    for name in out:
        _flatten_conflicting_all_of(name, out)
    return out


def _normalise(node: Any) -> Any:
    if isinstance(node, list):
        return [_normalise(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _MAPS and isinstance(value, dict):
            out[key] = {k: _normalise(v) for k, v in value.items()}
        elif value is None and key not in ("const", "default", "example", "examples"):
            continue  # `enum: null` and the like: the keyword says nothing the library can read
        elif key == "nullable" and value is False:
            continue
        elif key == "format" and value in _EXTRA_FORMATS:
            continue  # EmailStr needs the email-validator extra the package does not depend on
        elif key == "const" and not _literal_value(value):
            if "type" not in node:
                out["type"] = _json_type(value)
        else:
            out[key] = _normalise(value)
    return _nullable_scalar(out)


_UNION_KEYWORDS = ("oneOf", "anyOf", "allOf", "not", "$ref", "properties", "items")


def _nullable_scalar(node: dict[str, Any]) -> dict[str, Any]:
    """``oneOf: [<constrained scalar>, {type: null}]`` as one nullable scalar.

    Written as a union, the library hoists the scalar into a class of its own
    (``Port(RootModel[int])``), so ``credential.port == 5432`` is false; as
    ``type: [integer, null]`` it is a plain ``int | None`` with its constraints.
    """
    for key in ("oneOf", "anyOf"):
        members = node.get(key)
        if not isinstance(members, list) or len(members) != 2 or key not in node:
            continue
        scalars = [m for m in members if m != {"type": "null"}]
        if len(scalars) != 1 or len(members) - len(scalars) != 1:
            continue
        (scalar,) = scalars
        kind = scalar.get("type") if isinstance(scalar, dict) else None
        if kind not in _SCALAR_TYPES.values() or any(k in scalar for k in _UNION_KEYWORDS):
            continue
        if any(k in node for k in _UNION_KEYWORDS if k != key) or "type" in node:
            continue
        merged = {k: v for k, v in node.items() if k != key}
        merged.update(scalar)
        merged["type"] = [kind, "null"]
        if isinstance(scalar.get("enum"), list):
            merged["enum"] = [*scalar["enum"], None]
        return merged
    return node


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return _SCALAR_TYPES.get(type(value), "string")


def _literal_value(value: Any) -> bool:
    return isinstance(value, (str, bool, int)) and not isinstance(value, float)


def _target(schema: Any, catalogue: dict[str, Any]) -> tuple[str, Any] | None:
    """The catalogue entry a ``{$ref}`` or single-member ``{allOf: [{$ref}]}`` names."""
    if not isinstance(schema, dict):
        return None
    ref = schema.get("$ref")
    all_of = schema.get("allOf")
    if ref is None and isinstance(all_of, list) and len(all_of) == 1:
        ref = all_of[0].get("$ref") if isinstance(all_of[0], dict) else None
    if isinstance(ref, str) and ref.startswith(CATALOG_PREFIX):
        name = ref[len(CATALOG_PREFIX) :]
        if name in catalogue:
            return name, catalogue[name]
    return None


_DATA_KEYWORDS = frozenset({"enum", "const", "default", "example", "examples"})


def _inline_scalars(node: Any, catalogue: dict[str, Any], depth: int = 0) -> Any:
    """Every reference below ``node`` to a named scalar replaced by the scalar itself."""
    if isinstance(node, list):
        return [_inline_scalars(v, catalogue, depth + 1) for v in node]
    if not isinstance(node, dict) or depth > _MAX_INLINE_DEPTH:
        return node
    if depth:  # a named scalar keeps its own definition; references to it are inlined
        found = _target(node, catalogue)
        if found is not None and _is_scalar(found[1]):
            rest = {k: v for k, v in node.items() if k not in ("$ref", "allOf")}
            return {**found[1], **rest}
    out = {
        k: v if k in _DATA_KEYWORDS else _inline_scalars(v, catalogue, depth + 1)
        for k, v in node.items()
    }
    return _nullable_scalar(out)


_MAX_INLINE_DEPTH = 64


def _is_scalar(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if any(k in schema for k in ("properties", "allOf", "oneOf", "anyOf", "$ref", "items")):
        return False
    return schema.get("type") in (None, "string", "integer", "number", "boolean") and (
        "type" in schema or "enum" in schema or "const" in schema
    )


def _own_properties(
    name: str, catalogue: dict[str, Any], seen: frozenset[str] = frozenset()
) -> tuple[dict[str, Any], list[str]]:
    """Every property (and required name) a catalogue class has, through its ``allOf`` bases."""
    schema = catalogue.get(name)
    if not isinstance(schema, dict) or name in seen:
        return {}, []
    return _collect(schema, catalogue, seen | {name})


def _collect(
    schema: dict[str, Any], catalogue: dict[str, Any], seen: frozenset[str]
) -> tuple[dict[str, Any], list[str]]:
    props: dict[str, Any] = {}
    required: list[str] = []
    all_of = schema.get("allOf")
    for member in all_of if isinstance(all_of, list) else []:
        if not isinstance(member, dict):
            continue
        found = _target({"$ref": member["$ref"]} if "$ref" in member else None, catalogue)
        if found is not None:
            p, r = _own_properties(found[0], catalogue, seen)
        else:
            p, r = _collect(member, catalogue, seen)
        props.update(p)
        required.extend(x for x in r if x not in required)
    own = schema.get("properties")
    if isinstance(own, dict):
        props.update(own)
    req = schema.get("required")
    if isinstance(req, list):
        required.extend(x for x in req if isinstance(x, str) and x not in required)
    return props, required


def _flatten_conflicting_all_of(name: str, catalogue: dict[str, Any]) -> None:
    schema = catalogue[name]
    all_of = schema.get("allOf") if isinstance(schema, dict) else None
    if not isinstance(all_of, list):
        return
    base: dict[str, Any] = {}
    mine: dict[str, Any] = {}
    for member in all_of:
        if not isinstance(member, dict):
            continue
        found = _target({"$ref": member["$ref"]} if "$ref" in member else None, catalogue)
        if found is not None:
            base.update(_own_properties(found[0], catalogue, frozenset({name}))[0])
        else:
            mine.update(_collect(member, catalogue, frozenset({name}))[0])
    own = schema.get("properties")
    if isinstance(own, dict):
        mine.update(own)
    if not any(k in base and base[k] != v for k, v in mine.items()):
        return
    props, required = _collect(schema, catalogue, frozenset({name}))
    merged = {k: v for k, v in schema.items() if k not in ("allOf", "properties", "required")}
    merged["type"] = "object"
    merged["properties"] = props
    if required:
        merged["required"] = [r for r in required if r in props]
    catalogue[name] = merged


def _components_refs(node: Any) -> Any:
    """Map catalogue references back to ``#/components/schemas/...`` for the model generator."""
    if isinstance(node, list):
        return [_components_refs(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if isinstance(v, str) and v.startswith(CATALOG_PREFIX) and k in ("$ref",):
            out[k] = "#/components/schemas/" + v[len(CATALOG_PREFIX) :]
        elif k == "mapping" and isinstance(v, dict):
            out[k] = {
                mk: "#/components/schemas/" + mv[len(CATALOG_PREFIX) :]
                if isinstance(mv, str) and mv.startswith(CATALOG_PREFIX)
                else mv
                for mk, mv in v.items()
            }
        else:
            out[k] = _components_refs(v)
    return out
