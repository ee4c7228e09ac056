"""Pydantic v2 models through datamodel-code-generator, from a family's schema catalogue.

The catalogue's names are ours (see :mod:`generator.schemas`); after generation we check that each
of them became a class, so a renaming inside the library can never leave a client method pointing
at a class that does not exist.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from generator.diagnostics import CodegenError, Diagnostic
from generator.ir import Family
from generator.sanitize import sanitize_schema
from generator.schemas import CATALOG_PREFIX

_CLASS = re.compile(r"^class (\w+)\(", re.MULTILINE)
_EMPTY_MODULE = "from __future__ import annotations\n"


def render_models(family: Family, openapi_version: str) -> str:
    """Return the source of the family's ``models`` module (unformatted, without header)."""
    if not family.schemas:
        return _EMPTY_MODULE
    from datamodel_code_generator import InputFileType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType
    from datamodel_code_generator.format import DatetimeClassType
    from datamodel_code_generator.parser import LiteralType

    catalogue: dict[str, Any] = {
        name: _components_refs(sanitize_schema(schema if schema is not None else {}))
        for name, schema in family.schemas.items()
    }
    doc = {
        "openapi": openapi_version if openapi_version.startswith("3.") else "3.1.0",
        "info": {"title": "models", "version": "0"},
        "paths": {},
        "components": {"schemas": catalogue},
    }
    try:
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
            )
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
    text = out if isinstance(out, str) else ""
    missing = sorted(set(family.model_names) - set(_CLASS.findall(text)))
    if missing:
        raise CodegenError(
            Diagnostic(
                "models-name-lost",
                "error",
                family.source,
                "/components/schemas",
                f"model generator did not emit classes {', '.join(missing[:5])}",
            )
        )
    return text


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
