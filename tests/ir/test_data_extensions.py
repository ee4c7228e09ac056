"""The data API's extensions on a small document: ``x-cube-request-id`` adds its arguments
(renaming a body field that would take one), ``x-cube-token-job`` names its method among its
resource's, ``x-cube-host-root`` marks the call, and malformed values are warnings, never code."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tests.helpers import check_clean_and_typed, generate_with_report

WAIT = {"header": "x-request-id", "continueWait": {"member": "error", "value": "Continue wait"}}
OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def _body(**props: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": props}
    return {"content": {"application/json": {"schema": schema}}}


def _doc() -> dict[str, Any]:
    s = {"type": "string"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Data", "version": "1"},
        "paths": {
            "/q": {"post": {"operationId": "q", "x-cube-request-id": WAIT,
                            "requestBody": _body(request_id=s), "responses": OK}},
            "/bad": {"get": {"operationId": "bad", "x-cube-request-id": {"header": 5},
                             "responses": OK}},
            "/jobs": {"post": {"operationId": "start", "responses": OK,
                               "requestBody": _body(action=s, tokens={"type": "array", "items": s}),
                               "x-cube-token-job": {"failureValues": ["broken"]}}},
            "/other": {"post": {"operationId": "start_job", "responses": OK}},
            "/livez": {"get": {"operationId": "live", "x-cube-host-root": True, "responses": OK}},
        },
        "components": {"schemas": {"R": {"type": "object", "x-cube-data-result": "bogus",
                                         "properties": {"a": s}}}},
    }  # fmt: skip


def _methods(source: str) -> dict[str, list[str]]:
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef))
    return {
        f.name: [a.arg for a in f.args.kwonlyargs]
        for f in cls.body
        if isinstance(f, ast.FunctionDef)
    }


def test_data_extensions_generate_typed_code_and_warn_on_bad_values(tmp_path: Path) -> None:
    out = tmp_path / "data_client"
    files, report = generate_with_report(_doc(), out, "data_client")
    source = files["data_client/resources/default.py"]
    methods = _methods(source)
    assert methods["q"][:1] == ["request_id_2"]  # the body field, renamed
    assert {"request_id", "wait_timeout", "on_progress"} <= set(methods["q"])
    assert "request_id" not in methods["bad"]
    assert "start_job" in methods and "start_job_2" in methods  # the token job's own name
    assert "action" not in methods["start_job_2"] and "tokens" not in methods["start_job_2"]
    assert "failure_values=('broken',)" in source.replace('"', "'")
    assert "host_root=True" in source
    found = {(d["id"], d["pointer"]) for d in report["diagnostics"]}
    assert ("request-id-invalid", "/paths/~1bad/get/x-cube-request-id/header") in found
    assert ("data-result-invalid", "/components/schemas/R/x-cube-data-result") in found
    assert "bogus" not in files["data_client/_classes/r.py"].split('"""', 2)[2]
    check_clean_and_typed(out, "data_client", tmp_path / "mypy")
