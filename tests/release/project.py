"""A small, self-contained project (config, one document, one overlay, changelog) for the tests of
the maintainers' loop: generation diffs, ``update``, custom code and releases.

Small on purpose: a run takes about a second, and the tests do not depend on what the project's
own ``spec/`` holds today.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import yaml

from generator.document.loader import dump_yaml
from tests.helpers import run_cli, seed_run_state_mypy

CONFIG = """\
# A two-resource project for tests.
package:
  name: widget_client
  distribution: widget-client
  version: 1.2.3
  description: Widgets for tests.
  changelog: CHANGELOG.md
families:
  - name: api
    document: api.yaml
    overlays:
      - overlays/notes.overlay.yaml
    module: api
    client: Widget
    base_url_env: WIDGET_BASE_URL
    auth:
      env: WIDGET_TOKEN
"""

OVERLAY = """\
overlay: 1.0.0
info:
  title: Notes
  version: 1.0.0
actions:
  - target: $.paths['/widgets/{widgetId}'].get
    description: The lookup is by numeric id.
    update:
      description: Looks one widget up by its numeric id.
  - target: $.paths['/gadgets'].get
    description: Gadgets come back in creation order.
    update:
      description: Lists gadgets in creation order.
"""


def document() -> dict[str, Any]:
    """The first version of the document (a fresh copy each call)."""
    widget = {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer"},
            "name": {"type": "string"},
            "size": {"type": "integer"},
        },
    }
    new_widget = {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
    }
    gadget = {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "integer"}, "label": {"type": "string"}},
    }

    def ok(schema: dict[str, Any]) -> dict[str, Any]:
        return {"description": "OK", "content": {"application/json": {"schema": schema}}}

    return copy.deepcopy(
        {
            "openapi": "3.1.0",
            "info": {"title": "Widgets", "version": "1.0.0"},
            "servers": [{"url": "https://widgets.example.test"}],
            "security": [{"bearer": []}],
            "tags": [{"name": "Widgets"}, {"name": "Gadgets"}],
            "paths": {
                "/widgets": {
                    "post": {
                        "operationId": "createWidget",
                        "tags": ["Widgets"],
                        "requestBody": {
                            "required": True,
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/NewWidget"}
                                }
                            },
                        },
                        "responses": {"201": ok({"$ref": "#/components/schemas/Widget"})},
                    }
                },
                "/widgets/{widgetId}": {
                    "get": {
                        "operationId": "getWidget",
                        "tags": ["Widgets"],
                        "parameters": [
                            {
                                "name": "widgetId",
                                "in": "path",
                                "required": True,
                                "schema": {"type": "integer"},
                            }
                        ],
                        "responses": {"200": ok({"$ref": "#/components/schemas/Widget"})},
                    }
                },
                "/gadgets": {
                    "get": {
                        "operationId": "listGadgets",
                        "tags": ["Gadgets"],
                        "parameters": [
                            {"name": "label", "in": "query", "schema": {"type": "string"}}
                        ],
                        "responses": {
                            "200": ok(
                                {"type": "array", "items": {"$ref": "#/components/schemas/Gadget"}}
                            )
                        },
                    }
                },
            },
            "components": {
                "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
                "schemas": {"Widget": widget, "NewWidget": new_widget, "Gadget": gadget},
            },
        }
    )


def breaking(doc: dict[str, Any]) -> dict[str, Any]:
    """``createWidget`` is gone: code calling ``client.widgets.create_widget`` no longer
    type-checks."""
    doc = copy.deepcopy(doc)
    del doc["paths"]["/widgets"]
    return doc


def additive(doc: dict[str, Any]) -> dict[str, Any]:
    """A new optional field on ``Widget`` and a new optional query parameter on ``listGadgets``."""
    doc = copy.deepcopy(doc)
    doc["components"]["schemas"]["Widget"]["properties"]["colour"] = {"type": "string"}
    doc["paths"]["/gadgets"]["get"]["parameters"].append(
        {"name": "limit", "in": "query", "schema": {"type": "integer"}}
    )
    return doc


def write_project(
    root: Path, doc: dict[str, Any] | None = None, *, type_checks: bool = False
) -> Path:
    """``root/spec`` holding the config, the document, the overlay and a changelog; returns the
    config path. Documents are written in the snapshot form ``fetch`` writes. With
    ``type_checks`` (a test that runs ``update`` or ``drift --type-check`` inside the project,
    whose run state then holds mypy's cache) the run state's mypy cache is seeded
    (:func:`tests.helpers.seed_run_state_mypy`); a command run from the checkout (``--config``,
    ``make -C``) uses the checkout's (:func:`tests.helpers.seed_checkout_mypy`), and a seed
    there (made by a mypy run, the first time in a run) would be work for nothing."""
    if type_checks:
        seed_run_state_mypy(root)
    spec = root / "spec"
    (spec / "overlays").mkdir(parents=True, exist_ok=True)
    (spec / "cube-codegen.yaml").write_text(CONFIG, encoding="utf-8")
    (spec / "api.yaml").write_text(dump_yaml(doc or document()), encoding="utf-8")
    (spec / "overlays" / "notes.overlay.yaml").write_text(OVERLAY, encoding="utf-8")
    (spec / "CHANGELOG.md").write_text("# Changelog\n", encoding="utf-8")
    return spec / "cube-codegen.yaml"


def generated_project(root: Path, out: str = "generated") -> Path:
    """The test project written in ``root`` and its package generated into ``root/<out>``
    through the command line; ``root``. Made once per test module, each test working on a
    copy of its own (:func:`project_copy`)."""
    config = write_project(root)
    proc = run_cli("generate", "--config", str(config), "--out", str(root / out))
    assert proc.returncode == 0, proc.stderr
    return root


def project_copy(generated: Path, dst: Path) -> Path:
    """A copy of a :func:`generated_project` in ``dst`` (beside what is there); its config."""
    shutil.copytree(generated, dst, dirs_exist_ok=True)
    return dst / "spec" / "cube-codegen.yaml"


def copy_project(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst)


def config_version(config: Path) -> str:
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    return str(data["package"]["version"])
