"""OpenAPI Overlay 1.0/1.1: load and validate overlays, apply them to a document, report drift.

The engine follows the Overlay Specification's merge rules and is stricter than the specification
where silence would hide upstream drift: an action that matches nothing is an error unless it is
marked ``x-cube-optional: true``, and an update the document already contains is a warning.
"""

from __future__ import annotations

from generator.overlay.engine import apply_overlay, apply_overlays
from generator.overlay.loader import load_overlay, parse_overlay
from generator.overlay.model import Action, ActionOutcome, Overlay, OverlayResult, Status
from generator.overlay.schema import validate_overlay_document

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
