"""Known breaks a maintainer accepts for a release: ``spec/drift-waivers.yaml``.

Each waiver names a surface's verdict fingerprint (printed beside every break), why the break
is accepted, and until when. A waived break does not force a major release (it still counts as a
change: at least minor); an expired waiver no longer applies, and the summary says so.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.diagnostics import error
from generator.document.loader import load_document

WAIVERS_FILE = "drift-waivers.yaml"


class _Waiver(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    fingerprint: str = Field(pattern=r"^[0-9a-f]{16}$")
    reason: str = Field(min_length=3, max_length=500)
    expires: datetime.date
    surface: str = Field(default="", max_length=300)  # for the reader; the fingerprint decides


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")
    waivers: list[_Waiver] = []


@dataclass(frozen=True, slots=True)
class Waivers:
    active: tuple[_Waiver, ...] = ()
    expired: tuple[_Waiver, ...] = ()

    @property
    def fingerprints(self) -> frozenset[str]:
        return frozenset(w.fingerprint for w in self.active)


def load_waivers(folder: Path, today: datetime.date) -> Waivers:
    """The waivers beside the configuration (none when the file does not exist)."""
    path = folder / WAIVERS_FILE
    if not path.is_file():
        return Waivers()
    data = load_document(path)
    try:
        parsed = _File.model_validate(data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        at = "/" + "/".join(str(p) for p in problem["loc"])
        raise error("waivers-invalid", str(path), at, problem["msg"]) from None
    active = tuple(w for w in parsed.waivers if w.expires >= today)
    expired = tuple(w for w in parsed.waivers if w.expires < today)
    return Waivers(active, expired)
