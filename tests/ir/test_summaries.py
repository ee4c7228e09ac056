"""Every operation has a summary: the document's (an overlay's) when it gives one, else one in our
own words made from the method, the path and whether the answer is a list; never empty in the
package README's operation table."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from generator.ir.summaries import derived_summary
from tests.helpers import PACKAGE_ROOT, generate_package


@pytest.mark.parametrize(
    ("method", "path", "listing", "expected"),
    [
        ("GET", "/api/v1/deployments", True, "List deployments"),
        ("POST", "/api/v1/deployments", False, "Create a deployment"),
        ("GET", "/api/v1/api-keys/{id}", False, "Get an API key"),
        ("PUT", "/api/v1/deployments/{deploymentId}", False, "Update a deployment"),
        ("DELETE", "/v2/roles/{roleId}/users/{userId}", False, "Delete a user of a role"),
        ("GET", "/api/v1/app-config", False, "Get the app config"),
        ("GET", "/deployments/{d}/build-status", False, "Get the build status of a deployment"),
        ("GET", "/deployments/{d}/environments", True, "List environments of a deployment"),
        ("POST", "/deployments/{d}/branches", False, "Create a branch for a deployment"),
        ("POST", "/report-deliveries/{id}/pause", False, "Pause a report delivery"),
        ("POST", "/report-deliveries/{id}/run-now", False, "Run a report delivery now"),
        ("GET", "/exports/{jobId}/download", False, "Download an export"),
        ("DELETE", "/reports/{r}/connect-workbook", False, "Delete the connect workbook of a report"),
        ("POST", "/deployments/{d}/creation-step/advance", False, "Advance the creation step of a deployment"),
        ("POST", "/deployments/{d}/workspace/bulk-move", False, "Bulk move in the workspace of a deployment"),
        ("POST", "/api/v1/users/bulk", False, "Create users in bulk"),
        ("PUT", "/deployments/{d}/reports/by-public-id/{p}", False, "Update a report by public ID of a deployment"),
        ("GET", "/repositories/{owner}/{repo}/branches", True, "List branches of a repository"),
        ("GET", "/deployments/{d}/data-model/files", True, "List files of the data model of a deployment"),
        ("GET", "/categories", True, "List categories"),
        ("QUERY", "/search-index", False, "Send QUERY to the search index"),
        ("GET", "/{id}", False, "Get an item"),
        ("GET", "/", False, "Get the root"),
    ],
)  # fmt: skip
def test_a_summary_from_method_path_and_listing(
    method: str, path: str, listing: bool, expected: str
) -> None:
    assert derived_summary(method, path, listing=listing) == expected


def _doc(paths: dict[str, Any]) -> dict[str, Any]:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {p: {m: {**op, "responses": ok} for m, op in ops.items()} for p, ops in paths.items()},
    }  # fmt: skip


def test_the_package_readme_has_a_summary_for_every_operation(tmp_path: Path) -> None:
    """The document's own summary is kept; the others are made, from words the path holds and
    nothing else (a hostile segment gives ASCII words, never its punctuation)."""
    hostile = '/x"""|`<b>/{id}/gizmo-parts'
    doc = _doc({
        "/widgets": {"get": {"operationId": "listWidgets", "summary": "Our own words"},
                     "post": {"operationId": "makeWidget"}},
        hostile: {"get": {"operationId": "parts"}},
    })  # fmt: skip
    files = generate_package(doc, tmp_path / "dist", "sum_client")
    rows = _operation_rows(files["README.md"])
    assert rows == {
        "list_widgets": "Our own words",
        "make_widget": "Create a widget",
        "parts": "Get the gizmo parts of a x b",
    }
    module = next(text for name, text in files.items() if name.endswith("resources/default.py"))
    assert '"""Create a widget.' in module or '"""Create a widget' in module  # the docstring too


def test_the_committed_package_readme_has_no_empty_summary() -> None:
    rows = _operation_rows((PACKAGE_ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(rows) > 200
    assert not [name for name, summary in rows.items() if not summary]


def _operation_rows(readme: str) -> dict[str, str]:
    """``method name → summary`` from the README's operation tables."""
    section = readme[readme.index("## Operations") :]
    rows = re.findall(r"^\| `([A-Za-z_0-9]+)` \| .* \|(.*)\|$", section, re.M)
    return {name: cell.strip() for name, cell in rows}
