"""OpenAPI Overlay 1.0/1.1: load and validate overlays, apply them to a document, report drift.

The engine follows the Overlay Specification's merge rules and is stricter than the specification
where silence would hide upstream drift: an action that matches nothing is an error unless it is
marked ``x-cube-optional: true``, and an update the document already contains is a warning.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.overlay.engine import apply_overlay, apply_overlays
    from generator.overlay.loader import load_overlay, parse_overlay
    from generator.overlay.model import Action, ActionOutcome, Overlay, OverlayResult, Status
    from generator.overlay.schema import validate_overlay_document

# Loaded on first use: a run whose families have no overlays (or that only reads where an overlay
# wrote, generator.overlay.model) never imports the engine and its JSON Schema validator.
_HOME = {
    "apply_overlay": "engine",
    "apply_overlays": "engine",
    "load_overlay": "loader",
    "parse_overlay": "loader",
    "Action": "model",
    "ActionOutcome": "model",
    "Overlay": "model",
    "OverlayResult": "model",
    "Status": "model",
    "validate_overlay_document": "schema",
}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Action",
    "ActionOutcome",
    "Overlay",
    "OverlayResult",
    "Status",
    "apply_overlay",
    "apply_overlays",
    "load_overlay",
    "parse_overlay",
    "validate_overlay_document",
]
