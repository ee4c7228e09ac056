"""What every part of the builder reads: the document, its resolver, schema catalogue and type
map, the family's configuration, and the one list its warnings go to."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from generator.diagnostics import Diagnostic
from generator.document.config import FamilyConfig
from generator.document.extensions import ExtensionT, parse
from generator.document.refs import Resolver
from generator.ir.schemas import SchemaCatalog
from generator.ir.type_map import TypeMap
from generator.ir.types import NONE, TypeRef, UnionOf

PATH_PARAM = re.compile(r"\{([^{}]+)\}")  # ``{name}`` in a path or server URL template


@dataclasses.dataclass
class BuildContext:
    doc: dict[str, Any]
    file: str
    config: FamilyConfig
    resolver: Resolver
    catalog: SchemaCatalog
    types: TypeMap
    diagnostics: list[Diagnostic] = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, doc: dict[str, Any], file: str, config: FamilyConfig) -> BuildContext:
        catalog = SchemaCatalog(doc, file)
        return cls(doc, file, config, Resolver(doc, file), catalog, TypeMap(catalog))

    def warn(self, id: str, ptr: str, message: str, level: str = "warning") -> None:
        self.diagnostics.append(Diagnostic(id, level, self.file, ptr, message))  # type: ignore[arg-type]

    def extension(
        self, model: type[ExtensionT], raw: Any, at: str, invalid: str
    ) -> ExtensionT | None:
        """The extension value ``raw`` (found at ``at``) as ``model``; a malformed one is warning
        ``invalid`` and None, because a bad extension only withholds what it would add."""
        spec = parse(model, raw, at)
        if isinstance(spec, tuple):
            self.warn(invalid, *spec)
            return None
        return spec


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else an empty one: documents are untrusted in shape."""
    return value if isinstance(value, dict) else {}


def strip_none(t: TypeRef) -> TypeRef:
    """``T`` for ``T | None``; other types unchanged."""
    if isinstance(t, UnionOf):
        rest = [m for m in t.members if m != NONE]
        return rest[0] if len(rest) == 1 else t
    return t
