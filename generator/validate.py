"""Structural validation of an OpenAPI document with openapi-pydantic (3.0 and 3.1).

Errors become diagnostics pointing at the offending node; the first one is fatal. Swagger 2.0 is
recognised and refused with a message that says so.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from generator.diagnostics import CodegenError, Diagnostic, one_line, pointer


def openapi_version(doc: Any, file: str) -> str:
    if not isinstance(doc, dict):
        raise _fail(file, "", "not an OpenAPI document: the top level is not a mapping")
    if "swagger" in doc:
        raise _fail(
            file,
            "/swagger",
            f"Swagger {one_line(doc.get('swagger'), 20)} is not supported; "
            "convert the document to OpenAPI 3.0 or 3.1 first",
            "swagger-unsupported",
        )
    version = doc.get("openapi")
    if not isinstance(version, str):
        raise _fail(file, "/openapi", "not an OpenAPI document: `openapi` version is missing")
    if not version.startswith(("3.0.", "3.1.")) and version not in ("3.0", "3.1"):
        raise _fail(
            file, "/openapi", f"OpenAPI {one_line(version, 20)} is not supported (3.0, 3.1)"
        )
    if not isinstance(doc.get("paths"), dict):
        raise _fail(file, "/paths", "`paths` must be a mapping of path keys to path items")
    return version


def validate(doc: dict[str, Any], file: str) -> None:
    """Validate against the OpenAPI object model of the document's version."""
    version = openapi_version(doc, file)
    if version.startswith("3.0"):
        from openapi_pydantic.v3.v3_0 import OpenAPI as Model30

        model: Any = Model30
    else:
        from openapi_pydantic.v3.v3_1 import OpenAPI as Model31

        model = Model31
    try:
        model.model_validate(doc)
    except ValidationError as exc:
        raise CodegenError([_diagnostic(file, e) for e in exc.errors()[:20]]) from None
    except RecursionError:
        raise _fail(file, "", "document nests too deeply to validate") from None


def _diagnostic(file: str, err: Any) -> Diagnostic:
    # openapi-pydantic reports union branches as extra loc tokens (model names); keep only the
    # tokens that are real keys or indexes of the document.
    loc = [t for t in err["loc"] if isinstance(t, int) or not _is_model_token(t)]
    return Diagnostic(
        "openapi-invalid", "error", file, pointer(*loc), f"{err['msg']} (OpenAPI object model)"
    )


def _is_model_token(token: str) -> bool:
    return token[:1].isupper() and token.replace("_", "").isalnum() and token not in ("Reference",)


def _fail(file: str, ptr: str, message: str, id: str = "openapi-invalid") -> CodegenError:
    return CodegenError(Diagnostic(id, "error", file, ptr, message))
