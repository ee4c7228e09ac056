"""The project's own overlays (spec/overlays/*.overlay.yaml) on our snapshot and on published documents.

(a) On spec/platform-api.yaml every action matches and none is redundant, in the configured order.
(b) On the service's published documents (``--shared``) no action is unmatched where the operation
    or component its target names exists there; endpoints newer than a document are listed as
    absent. "Exists" is computed from the target text and the document, not from the engine.
(c) The overlaid snapshot carries each fact the overlays add, checked one by one.
(d) The generated package (generated/cube_client) reflects the overlays.
"""

from __future__ import annotations

import ast
import copy
import datetime as dt
import importlib
import json
import re
import typing
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from generator.cli.overlay import overlay as overlay_cli
from generator.diagnostics import resolve_pointer
from generator.document.config import load_config
from generator.document.loader import load_document
from generator.overlay import Overlay, OverlayResult, apply_overlays, load_overlay
from generator.pipeline import load_family
from tests.helpers import PACKAGE_ROOT, ROOT, ensure_generated_importable

SPEC_DIR = ROOT / "spec"
CONFIG = SPEC_DIR / "cube-codegen.yaml"
OVERLAY_DIR = SPEC_DIR / "overlays"
SNAPSHOT = SPEC_DIR / "platform-api.yaml"
PUBLISHED = ("platform-api.05_018d2f81e72e.yaml", "platform-api.07_3320af8370b0.yaml")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
ERROR_SCHEMA = "#/components/schemas/Error"
# Sections of the service description an action's description must cite.
SECTIONS = (
    "Platform Management HTTP API",
    "Resources and their fields",
    "States and transitions",
    "Endpoints",
    "Authentication",
    "Errors",
    "Limits",
    "Versioning",
)

# Or the release of the service's published changelog the action comes from.
CHANGELOG_RELEASE = re.compile(r"[Cc]hangelog v\d+\.\d+\.\d+")

DEPLOYMENTS = "/api/v1/deployments"
ENVIRONMENTS = "/api/v1/deployments/{deploymentId}/environments"
UPDATE_DEPLOYMENT = "/api/v1/deployments/{deploymentId}"
STAGING = "/build/api/v1/deployments/{deploymentId}/branches/staging-environment"
EXPORTS = "/api/v1/deployments/{deploymentId}/dashboard-exports"
EXPORT_STATUS = EXPORTS + "/{jobId}"
EXPORT_DOWNLOAD = EXPORTS + "/{jobId}/download"
AUDIT = "/api/v1/audit-logs/export"
PAUSE = "/api/v1/deployments/{deploymentId}/report-deliveries/{id}/pause"


# --------------------------------------------------------------------------------------------
# Inputs


def configured_overlay_paths() -> list[Path]:
    config = load_config(CONFIG)
    (platform,) = [f for f in config.families if f.name == "platform"]
    return [config.path(o) for o in platform.overlays]


@cache
def configured_overlays() -> tuple[Overlay, ...]:
    return tuple(load_overlay(p) for p in configured_overlay_paths())


@cache
def snapshot_result() -> OverlayResult:
    return apply_overlays(
        load_document(SNAPSHOT), configured_overlays(), document_file=str(SNAPSHOT), strict=True
    )


def overlaid() -> dict[str, Any]:
    doc = snapshot_result().document
    assert isinstance(doc, dict)
    return doc


def operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in (doc.get("paths") or {}).items():
        for method in METHODS:
            if isinstance(item, dict) and isinstance(item.get(method), dict):
                yield path, method, item[method]


def op(doc: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    found = doc["paths"][path][method]
    assert isinstance(found, dict)
    return found


def deref(doc: dict[str, Any], node: Any) -> Any:
    """Follow local ``$ref`` chains (a sibling ``description`` is ignored)."""
    seen: set[str] = set()
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        assert ref.startswith("#/") and ref not in seen, ref
        seen.add(ref)
        node = resolve_pointer(doc, ref[1:])
    return node


def schema(doc: dict[str, Any], name: str) -> dict[str, Any]:
    found = doc["components"]["schemas"][name]
    assert isinstance(found, dict)
    return found


def schema_with(doc: dict[str, Any], *properties: str) -> dict[str, Any]:
    """The one component schema that has all these properties (found as the overlays find it)."""
    found = [
        s
        for s in doc["components"]["schemas"].values()
        if isinstance(s, dict) and set(properties) <= set(s.get("properties") or {})
    ]
    assert len(found) == 1, f"{len(found)} schemas with {properties}"
    return found[0]


def validator_for(doc: dict[str, Any], target: dict[str, Any]) -> Draft202012Validator:
    """A validator for ``target`` whose ``#/components/...`` references resolve in ``doc``."""
    return Draft202012Validator({**target, "components": doc["components"]})


def json_schema_of(doc: dict[str, Any], response: Any) -> Any:
    return deref(doc, response)["content"]["application/json"]["schema"]


def query_param(operation: dict[str, Any], name: str) -> dict[str, Any]:
    found = [
        p
        for p in operation.get("parameters", [])
        if p.get("in") == "query" and p.get("name") == name
    ]
    assert len(found) == 1, f"query parameter {name}: {len(found)} declarations"
    param: dict[str, Any] = found[0]
    return param


# --------------------------------------------------------------------------------------------
# The overlay files themselves


def test_config_lists_every_overlay_file_once() -> None:
    listed = configured_overlay_paths()
    on_disk = sorted(OVERLAY_DIR.glob("*.overlay.yaml"))
    assert on_disk, "no overlay files"
    assert len(listed) == len(set(listed)), "an overlay is listed twice"
    assert sorted(p.resolve() for p in listed) == [p.resolve() for p in on_disk]


@pytest.mark.parametrize("path", sorted(OVERLAY_DIR.glob("*.overlay.yaml")), ids=lambda p: p.name)
def test_overlay_file_is_1_0_with_described_actions(path: Path) -> None:
    raw = load_document(path)
    assert raw["overlay"] == "1.0.0"
    assert raw["info"]["title"] and raw["info"]["version"]
    for i, action in enumerate(raw["actions"]):
        text = action.get("description", "")
        assert len(text) > 40, f"action #{i} has no real description"
        cited = any(s in text for s in SECTIONS) or CHANGELOG_RELEASE.search(text)
        assert cited, f"action #{i} cites no section or changelog release: {text[:80]}"


# --------------------------------------------------------------------------------------------
# (a) the snapshot: all matched, none redundant


def test_every_action_matches_the_snapshot_and_changes_it() -> None:
    result = snapshot_result()
    assert result.outcomes, "no actions applied"
    assert len(result.outcomes) == sum(len(o.actions) for o in configured_overlays())
    bad = [
        f"{o.overlay_file}#{o.index}: {o.status}" for o in result.outcomes if o.status != "matched"
    ]
    assert not bad
    assert not result.diagnostics, [str(d) for d in result.diagnostics]


def test_overlay_check_cli_reports_no_drift_on_the_snapshot() -> None:
    paths = [str(p) for p in configured_overlay_paths()]
    run = CliRunner().invoke(
        overlay_cli, ["check", "--spec", str(SNAPSHOT), "--format", "json", *paths]
    )
    assert run.exit_code == 0, run.output
    statuses = {a["status"] for a in json.loads(run.stdout)["actions"]}
    assert statuses == {"matched"}


def test_result_does_not_depend_on_file_order() -> None:
    """`overlay check` applies files in name order, generation in config order: same document."""
    by_name = sorted(configured_overlays(), key=lambda o: Path(o.file).name)
    other = apply_overlays(load_document(SNAPSHOT), by_name, strict=True)
    assert other.document == overlaid()


def test_overlaid_snapshot_bundles_and_validates() -> None:
    config = load_config(CONFIG)
    (platform,) = [f for f in config.families if f.name == "platform"]
    loaded = load_family(config, platform)
    assert loaded.document["components"]["schemas"]["Error"]["required"] == ["error"]


# --------------------------------------------------------------------------------------------
# (b) portability to the published documents

_STATIC = re.compile(r"\.([A-Za-z_][\w-]*)|\['([^']*)'\]")
_OPERATION_ID = re.compile(r"@\.operationId == '([^']+)'")


def static_prefix(target: str) -> list[str]:
    """The names a target spells out before its first wildcard, filter or union."""
    assert target.startswith("$")
    names: list[str] = []
    rest = target[1:]
    while rest:
        m = _STATIC.match(rest)
        if m is None:
            break
        names.append(m.group(1) if m.group(1) is not None else m.group(2))
        rest = rest[m.end() :]
    return names


def anchor_exists(doc: dict[str, Any], target: str) -> tuple[bool, str]:
    """Whether what the target is about exists: the path and method for ``$.paths[...]``, the
    component for ``$.components.<kind>.<name>``, any operation for ``$.paths.*``, else the
    top-level key. Independent of the overlay engine."""
    names = static_prefix(target)
    if names == ["paths"]:
        return any(True for _ in operations(doc)), "any operation"
    if names[:1] == ["paths"]:
        path = names[1]
        item = doc.get("paths", {}).get(path)
        if len(names) > 2 and names[2] in METHODS:
            method = names[2]
        else:
            m = _OPERATION_ID.search(target)
            assert m, f"cannot tell which operation {target} is about"
            found = [
                k
                for k, v in (item or {}).items()
                if isinstance(v, dict) and v.get("operationId") == m.group(1)
            ]
            method = found[0] if found else "(operationId " + m.group(1) + ")"
        exists = isinstance(item, dict) and isinstance(item.get(method), dict)
        return exists, f"{method.upper()} {path}"
    if names[:1] == ["components"]:
        node: Any = doc
        for name in names[:3]:
            node = node.get(name) if isinstance(node, dict) else None
        return node is not None, "/".join(names[:3])
    return names[0] in doc, names[0]


def local_refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        out = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            out |= local_refs(value)
        return out
    if isinstance(node, list):
        return set().union(*(local_refs(v) for v in node)) if node else set()
    return set()


@pytest.mark.parametrize("name", PUBLISHED)
def test_overlays_apply_to_published_document(shared_dir: Path, name: str) -> None:
    file = shared_dir / "specs" / "cube" / name
    if not file.is_file():
        pytest.skip(f"{file} is not in the shared inputs")
    original = load_document(file)
    result = apply_overlays(
        copy.deepcopy(original), configured_overlays(), document_file=str(file), strict=False
    )
    failures: list[str] = []
    report: list[str] = []
    for outcome in result.outcomes:
        exists, about = anchor_exists(original, outcome.target)
        label = f"{Path(outcome.overlay_file).name}#{outcome.index} [{about}]"
        if outcome.status == "unmatched" and exists:
            failures.append(f"{label}: unmatched although it exists")
        elif outcome.status == "matched" and not exists:
            failures.append(f"{label}: matched although the anchor was judged absent")
        shown = outcome.status if exists or outcome.status != "unmatched" else "absent"
        report.append(f"  {shown:<15} {label}")
    print(f"\n{name}:\n" + "\n".join(report))
    assert not failures, failures
    # Written to survive the published versions: no action misses its target on any of them.
    unmatched = [f"{o.overlay_file}#{o.index}" for o in result.outcomes if o.status == "unmatched"]
    assert not unmatched, unmatched
    assert sum(o.status == "matched" for o in result.outcomes) == len(result.outcomes)
    # Guards held: no operation ends up with a parameter declared twice.
    for path, method, operation in operations(result.document):
        declared = [deref(result.document, p) for p in operation.get("parameters", [])]
        keys = [(p.get("in"), p.get("name")) for p in declared if isinstance(p, dict)]
        assert len(keys) == len(set(keys)), f"{method} {path}: duplicate parameters {keys}"
    # Every reference the overlays introduced resolves in that document.
    for ref in sorted(local_refs(result.document) - local_refs(original)):
        assert ref.startswith("#/"), ref
        resolve_pointer(result.document, ref[1:])


# --------------------------------------------------------------------------------------------
# (c) the overlaid snapshot in detail


def assert_error_response(doc: dict[str, Any], response: Any) -> None:
    resolved = deref(doc, response)
    assert resolved["description"]
    assert resolved["content"]["application/json"]["schema"] == {"$ref": ERROR_SCHEMA}


def test_error_schema_is_shared() -> None:
    doc = overlaid()
    error = schema(doc, "Error")
    assert error["type"] == "object"
    assert error["required"] == ["error"]
    assert error["properties"]["error"]["type"] == "string"
    responses = doc["components"]["responses"]
    assert "missing, malformed or expired" in responses["Unauthorized"]["description"]
    assert "scoped to other deployments" in responses["Forbidden"]["description"]


def test_every_operation_answers_401_and_403_with_the_error_body() -> None:
    doc = overlaid()
    ops = list(operations(doc))
    assert len(ops) > 50
    for path, method, operation in ops:
        responses = operation["responses"]
        for code in ("401", "403"):
            assert code in responses, f"{method} {path}: no {code}"
            assert "$ref" in responses[code], f"{method} {path}: {code} is not shared"
            assert_error_response(doc, responses[code])
        assert responses["401"] == {"$ref": "#/components/responses/Unauthorized"}


def test_dashboard_export_submit_errors() -> None:
    doc = overlaid()
    responses = op(doc, EXPORTS, "post")["responses"]
    for code in ("400", "403", "404", "429"):
        assert_error_response(doc, responses[code])
    assert "neither" in responses["400"]["description"]
    forbidden = deref(doc, responses["403"])["description"]
    assert "data downloads" in forbidden and "embed" in forbidden
    assert "deactivated" in responses["404"]["description"]
    assert "in flight" in responses["429"]["description"]


def test_other_endpoint_specific_errors() -> None:
    doc = overlaid()
    update = op(doc, UPDATE_DEPLOYMENT, "put")["responses"]["400"]
    assert_error_response(doc, update)
    assert "versions" in update["description"] or "listDeploymentVersions" in update["description"]
    staging = op(doc, STAGING, "put")["responses"]["400"]
    assert_error_response(doc, staging)
    assert "personal" in staging["description"] and "production" in staging["description"]
    assert "assumed" in staging["description"]


def test_timestamps_are_nullable_date_times() -> None:
    doc = overlaid()
    props = schema(doc, "ReportDeliveryResponse")["properties"]
    for name in ("nextRunAt", "pausedAt"):
        assert props[name]["type"] == ["string", "null"], name
        assert props[name]["format"] == "date-time", name
    for name in ("lastRunAt", "lastSuccessAt", "runningSince"):  # the siblings they follow
        assert props[name]["format"] == "date-time", name


def test_offset_and_limit_defaults() -> None:
    doc = overlaid()
    seen = 0
    for path, method, operation in operations(doc):
        for p in operation.get("parameters", []):
            if p.get("in") == "query" and p.get("name") in ("offset", "limit"):
                expected = 0 if p["name"] == "offset" else 20
                assert p["schema"]["default"] == expected, f"{method} {path} {p['name']}"
                seen += 1
    assert seen >= 4  # the deployments and environments listings take both


def test_metadata_token_request() -> None:
    doc = overlaid()
    request = schema_with(doc, "security_context", "expires_in")
    expires_in = request["properties"]["expires_in"]
    assert "86400" in expires_in["description"]  # the service's default, stated in words
    assert "default" not in expires_in  # the document caps explicit values below it
    assert request["required"] == ["security_context"]


def test_deployments_listing_takes_cursor_parameters() -> None:
    doc = overlaid()
    listing = op(doc, DEPLOYMENTS, "get")
    first, after = query_param(listing, "first"), query_param(listing, "after")
    assert first.get("required") is not True and after.get("required") is not True
    assert first["schema"]["type"] == "integer" and after["schema"]["type"] == "string"


def items_of(doc: dict[str, Any], response_schema: Any, path: list[str]) -> Any:
    node = deref(doc, response_schema)
    for key in path:
        node = deref(doc, node["properties"][key])
    return node


@pytest.mark.parametrize(
    ("path", "offset_items", "item"),
    [
        (DEPLOYMENTS, ["data", "deployments"], "Deployment"),
        (ENVIRONMENTS, ["data", "environments"], "DeploymentEnvironment"),
    ],
)
def test_listings_page_by_cursor_with_the_offset_shape_as_alternative(
    path: str, offset_items: list[str], item: str
) -> None:
    doc = overlaid()
    operation = op(doc, path, "get")
    ext = operation["x-cube-pagination"]
    assert ext["style"] == "cursor" and ext["items"] == ["items"]
    body = json_schema_of(doc, operation["responses"]["200"])
    array = items_of(doc, body, ext["items"])
    assert array["type"] == "array" and array["items"] == {"$ref": f"#/components/schemas/{item}"}
    assert query_param(operation, ext["limitParam"])["name"] == "first"
    assert query_param(operation, ext["cursorParam"])["name"] == "after"
    cursor = deref(doc, items_of(doc, body, ext["nextCursor"][:1])["oneOf"][0])
    assert ext["nextCursor"][1] in cursor["properties"]
    (alt,) = ext["alternatives"]
    assert alt["style"] == "offset" and alt["items"] == offset_items
    assert query_param(operation, alt["offsetParam"])
    limit = query_param(operation, alt["limitParam"])
    assert alt["defaultLimit"] == limit["schema"]["default"] == 20


def test_every_cursor_list_is_paged() -> None:
    doc = overlaid()
    paged = 0
    for path, method, operation in operations(doc):
        names = {p.get("name") for p in operation.get("parameters", []) if p.get("in") == "query"}
        if not {"first", "after"} <= names:
            assert "x-cube-pagination" not in operation, f"{method} {path}"
            continue
        paged += 1
        ext = operation["x-cube-pagination"]
        assert (ext["style"], ext["items"], ext["nextCursor"]) == (
            "cursor",
            ["items"],
            ["pageInfo", "endCursor"],
        ), f"{method} {path}"
        body = deref(doc, json_schema_of(doc, operation["responses"]["200"]))
        assert body["properties"]["items"]["type"] == "array", f"{method} {path}"
        assert "pageInfo" in body["properties"], f"{method} {path}"
    assert paged >= 30


def test_job_extension() -> None:
    doc = overlaid()
    submit = op(doc, EXPORTS, "post")
    job = submit["x-cube-job"]
    by_id = {o["operationId"]: (p, o) for p, _, o in operations(doc)}
    status_path, status_op = by_id[job["statusOperation"]]
    download_path, download_op = by_id[job["downloadOperation"]]
    assert (status_path, download_path) == (EXPORT_STATUS, EXPORT_DOWNLOAD)
    for o in (status_op, download_op):
        assert job["idParam"] in [p["name"] for p in o["parameters"] if p["in"] == "path"]
    submitted = deref(doc, json_schema_of(doc, submit["responses"]["200"]))
    assert {job["idField"], job["expiresField"]} <= set(submitted["required"])
    assert submitted["properties"][job["expiresField"]]["format"] == "date-time"
    status = deref(doc, json_schema_of(doc, status_op["responses"]["200"]))
    assert job["statusField"] in status["required"] and job["errorField"] in status["properties"]
    known = set(deref(doc, status["properties"][job["statusField"]])["enum"])
    assert job["successValues"] == ["completed"] and job["failureValues"] == ["failed"]
    assert set(job["successValues"]) | set(job["failureValues"]) < known  # others: keep polling


def test_export_error_comes_with_failure() -> None:
    doc = overlaid()
    validator = validator_for(doc, schema_with(doc, "status", "error", "progress", "contentType"))
    assert validator.is_valid({"status": "completed"})
    assert validator.is_valid({"status": "processing"})
    assert validator.is_valid({"status": "failed", "error": "dashboard was deleted"})
    assert not validator.is_valid({"status": "failed"})


def test_export_request_takes_exactly_one_dashboard_id() -> None:
    doc = overlaid()
    validator = validator_for(doc, schema_with(doc, "dashboardId", "dashboardPublicId", "format"))
    assert validator.is_valid({"dashboardId": 5, "format": "pdf"})
    assert validator.is_valid({"dashboardPublicId": "abc", "format": "png"})
    assert not validator.is_valid({"dashboardId": 5, "dashboardPublicId": "abc", "format": "pdf"})
    assert not validator.is_valid({"format": "pdf"})
    assert not validator.is_valid({"dashboardId": 5, "format": "svg"})


def test_staging_toggle_names_exactly_one_branch() -> None:
    doc = overlaid()
    validator = validator_for(doc, schema_with(doc, "enabled", "branchName", "branchId"))
    assert validator.is_valid({"enabled": True, "branchName": "feature"})
    assert validator.is_valid({"enabled": False, "branchId": 12})
    assert not validator.is_valid({"enabled": True, "branchName": "feature", "branchId": 12})
    assert not validator.is_valid({"enabled": True})


def test_export_download_is_pdf_or_png() -> None:
    content = op(overlaid(), EXPORT_DOWNLOAD, "get")["responses"]["200"]["content"]
    assert sorted(content) == ["application/pdf", "image/png"]
    for media in content.values():
        assert media["schema"] == {"type": "string", "format": "binary"}


def test_audit_log_export() -> None:
    operation = op(overlaid(), AUDIT, "get")
    assert operation["x-cube-permissions"] == ["AuditLogManage"]
    assert "AuditLogManage" in operation["description"]
    ok = operation["responses"]["200"]
    assert "text/csv" in ok["content"]
    assert "attachment" in ok["headers"]["Content-Disposition"]["description"]
    for name in ("start", "end"):
        assert query_param(operation, name)["schema"]["format"] == "date"


def test_report_delivery_pause() -> None:
    operation = op(overlaid(), PAUSE, "post")
    assert "support" in operation["x-cube-preview"]
    assert operation["x-cube-idempotent"] is True
    assert "no-op" in operation["description"]
    ok = operation["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ReportDeliveryResponse"
    }
    assert "unchanged" in ok["description"]


def test_servers_are_https_only() -> None:
    doc = overlaid()
    assert doc["servers"]
    for server in doc["servers"]:
        assert server["url"].startswith("https://")
        assert server["x-cube-https-only"] is True
        assert "HTTPS" in server["description"]
    assert "HTTPS" in doc["components"]["securitySchemes"]["bearerAuth"]["description"]


# --------------------------------------------------------------------------------------------
# (d) the generated package


@pytest.fixture(scope="module")
def models() -> Any:
    ensure_generated_importable()
    return importlib.import_module("cube_client.platform.models")


def _mentions_datetime(annotation: Any) -> bool:
    args = typing.get_args(annotation) or (annotation,)
    return any(a is dt.datetime or "datetime" in getattr(a, "__name__", "").lower() for a in args)


def test_generated_timestamps_are_datetimes(models: Any) -> None:
    fields = models.ReportDeliveryResponse.model_fields
    for name in ("next_run_at", "paused_at"):
        assert _mentions_datetime(fields[name].annotation), fields[name].annotation
    required = {
        "id": 1, "deploymentId": 2, "name": "n", "writeMode": "append", "status": "active",
        "destination": {"spreadsheetId": "s", "anchorCell": "A1"},
        "notifications": {"inbox": True, "email": False},
    }  # fmt: skip
    parsed = models.ReportDeliveryResponse.model_validate(
        {**required, "pausedAt": "2026-01-02T03:04:05Z", "nextRunAt": None}
    )
    assert isinstance(parsed.paused_at, dt.datetime) and parsed.next_run_at is None


def test_generated_metadata_token_request_documents_its_default(models: Any) -> None:
    fields = models.CreateDeploymentEnvironmentTokenInput.model_fields
    assert fields["security_context"].is_required()
    source = (
        PACKAGE_ROOT / "cube_client" / "platform" / "resources" / "environments.py"
    ).read_text(encoding="utf-8")
    assert (
        "expires_in: Token lifetime in seconds. When omitted, the service issues a token valid"
        in source
    )


def test_generated_error_and_job_models(models: Any) -> None:
    assert models.Error.model_fields["error"].is_required()
    assert models.Error.model_validate({"error": "expired"}).error == "expired"
    job = models.DashboardExportJobResponse.model_fields
    assert job["job_id"].is_required() and job["expires_at"].is_required()
    # The one-of rules reached the package: the client checks "exactly one" before sending.
    assert request_rule("dashboard_exports.py", "StartDashboardExportInput") == exactly_one(
        "dashboardId", "dashboardPublicId"
    )
    assert request_rule("data_model.py", "SetBranchStagingEnvironmentRequest") == exactly_one(
        "branchName", "branchId"
    )


def exactly_one(a: str, b: str) -> tuple[object, ...]:
    """The rule tree of "``a`` or ``b``, not both" as the overlays state it."""
    return (
        "oneOf",
        (
            ("allOf", (("required", (a,)), ("not", (("required", (b,)),)))),
            ("allOf", (("required", (b,)), ("not", (("required", (a,)),)))),
        ),
    )


def request_rule(module: str, model: str) -> tuple[object, ...]:
    """The rule the generated resource passes to ``validate_body`` for ``model``."""
    source = (PACKAGE_ROOT / "cube_client" / "platform" / "resources" / module).read_text("utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "validate_body"
            and isinstance(node.args[0], ast.Attribute)
            and node.args[0].attr == model
        ):
            found.append(ast.literal_eval(node.args[1]))
    # One call in the sync resource, one in the async resource; they must agree.
    assert len(found) == 2, f"{len(found)} validate_body calls for {model}"
    assert found[0] == found[1]
    return tuple(found[0])
