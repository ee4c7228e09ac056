"""Read an overlay file (YAML or JSON) into a validated :class:`Overlay`.

Reading goes through the project's defensive document loader (size and depth limits, no YAML
timestamps); validation goes through our schema, so a bad overlay fails before anything is applied.
"""

from __future__ import annotations

import os
from typing import Any

from generator.document.loader import load_document
from generator.overlay.model import OPTIONAL_EXTENSION, Action, Overlay
from generator.overlay.schema import validate_overlay_document


def load_overlay(path: str | os.PathLike[str]) -> Overlay:
    """Load and validate one overlay file; raises CodegenError with a one-line reason."""
    file = str(path)
    return parse_overlay(load_document(path), file)


def parse_overlay(doc: Any, file: str) -> Overlay:
    """Validate an already-parsed overlay document and build the model from it."""
    validate_overlay_document(doc, file)
    actions = tuple(_action(i, raw) for i, raw in enumerate(doc["actions"]))
    return Overlay(
        file=file,
        version=doc["overlay"],
        info=dict(doc["info"]),
        extends=doc.get("extends"),
        actions=actions,
    )


def _action(index: int, raw: dict[str, Any]) -> Action:
    return Action(
        index=index,
        target=raw["target"],
        description=raw.get("description", ""),
        update=raw.get("update"),
        has_update="update" in raw,
        remove=raw.get("remove", False),
        copy=raw.get("copy"),
        allow_unmatched=raw.get(OPTIONAL_EXTENSION, False),
    )
