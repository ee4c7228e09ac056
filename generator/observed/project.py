"""A project's families as the observations are judged against them: IR and overlaid document."""

from __future__ import annotations

from typing import Any

from generator.document.config import Config
from generator.ir.build import FamilyBuilder
from generator.ir.types import Family
from generator.pipeline import load_family


def families(config: Config, only: str | None = None) -> list[tuple[Family, dict[str, Any]]]:
    """Each family's IR and its document with its overlays applied (``only``: one family)."""
    chosen = [config.family(only)] if only else list(config.families)
    out = []
    for fam in chosen:
        loaded = load_family(config, fam)
        out.append(
            (FamilyBuilder(loaded.document, loaded.file, loaded.config).build(), loaded.document)
        )
    return out
