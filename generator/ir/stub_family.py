"""The stub family whose rendered code tells which names the templates bind
(:mod:`generator.ir.bound_names`): one of each thing a template renders differently (a server
variable, a credential with alternatives, path, query, header and unexploded parameters, a
flattened, a raw and a list body, a job with status and download, a cursor-paged list, a call
that waits under a request id, number, boolean and map responses, models). Every name of its
own starts with ``zz``."""

from __future__ import annotations

from typing import Any


def _ok(ref: str) -> dict[str, Any]:
    schema = {"$ref": f"#/components/schemas/{ref}"}
    return {"description": "ok", "content": {"application/json": {"schema": schema}}}


def _scalar(op_id: str, schema: dict[str, Any]) -> dict[str, Any]:
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {"get": {"operationId": op_id, "responses": {"200": ok}}}


def _param(name: str, where: str) -> dict[str, Any]:
    return {"name": name, "in": where, "required": where == "path", "schema": {"type": "string"}}


def _object(*props: str) -> dict[str, Any]:
    return {"type": "object", "properties": {p: {"type": "string"} for p in props}}


STUB: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "zz", "version": "1"},
    "servers": [{"url": "https://{zzHost}.example/", "variables": {"zzHost": {"default": "a"}}}],
    "paths": {
        "/zz/{zzPath}": {
            "get": {
                "operationId": "zzGet",
                "parameters": [
                    _param("zzPath", "path"),
                    _param("zzQuery", "query"),
                    _param("zzHeader", "header"),
                    {
                        "name": "zzCsv",
                        "in": "query",
                        "explode": False,
                        "schema": {"type": "array", "items": {"type": "string"}},
                    },
                ],
                "responses": {"200": _ok("ZzThing")},
            }
        },
        "/zz": {
            "post": {
                "operationId": "zzSubmit",
                "requestBody": {"content": {"application/json": {"schema": _object("zzField")}}},
                "responses": {"202": _ok("ZzJob")},
                "x-cube-job": {
                    "statusOperation": "zzStatus",
                    "downloadOperation": "zzDownload",
                    "idField": "zzId",
                    "statusField": "zzState",
                    "errorField": "zzError",
                },
            },
            "get": {
                "operationId": "zzList",
                "parameters": [_param("zzAfter", "query"), _param("zzFirst", "query")],
                "responses": {"200": _ok("ZzPage")},
                "x-cube-pagination": {
                    "style": "cursor",
                    "items": ["zzItems"],
                    "cursorParam": "zzAfter",
                    "limitParam": "zzFirst",
                    "nextCursor": ["zzNext"],
                },
            },
        },
        "/zz/wait": {
            "post": {
                "operationId": "zzWait",
                "requestBody": {"content": {"application/json": {"schema": _object("zzField")}}},
                "responses": {"200": _ok("ZzThing")},
                "x-cube-request-id": {
                    "header": "zz-id",
                    "spanSeparator": "-zz-",
                    "continueWait": {"member": "zzState", "value": "zz"},
                },
            }
        },
        "/zz/number": _scalar("zzNumber", {"type": "number"}),
        "/zz/flag": _scalar("zzFlag", {"type": "boolean"}),
        "/zz/map": _scalar("zzMap", {"type": "object", "additionalProperties": True}),
        "/zz/raw": {
            "put": {
                "operationId": "zzUpload",
                "requestBody": {
                    "content": {
                        "application/octet-stream": {
                            "schema": {"type": "string", "format": "binary"}
                        }
                    }
                },
                "responses": {"200": _ok("ZzThing")},
            }
        },
        "/zz/batch": {
            "post": {
                "operationId": "zzBatch",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {"type": "array", "items": {"type": "string"}}
                        }
                    }
                },
                "responses": {"200": _ok("ZzThing")},
            }
        },
        "/zz/jobs/{zzId}": {
            "get": {
                "operationId": "zzStatus",
                "parameters": [_param("zzId", "path")],
                "responses": {"200": _ok("ZzJob")},
            }
        },
        "/zz/jobs/{zzId}/file": {
            "get": {
                "operationId": "zzDownload",
                "parameters": [_param("zzId", "path")],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/octet-stream": {"schema": {"type": "string"}}},
                    }
                },
            }
        },
    },
    "components": {
        "schemas": {
            "ZzThing": _object("zzName"),
            "ZzJob": _object("zzId", "zzState", "zzError"),
            "ZzPage": {
                "type": "object",
                "properties": {
                    "zzItems": {"type": "array", "items": {"$ref": "#/components/schemas/ZzThing"}},
                    "zzNext": {"type": "string"},
                },
            },
        }
    },
}
