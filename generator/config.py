"""The one configuration model: which documents and overlays make which package.

``spec/cube-codegen.yaml`` names the package and, per API family, its document, overlays, module,
client class and credential. The single-document mode builds the same model from CLI options.
"""

from __future__ import annotations

import keyword
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from generator import DEFAULT_CONFIG, DEFAULT_OUT
from generator.diagnostics import CodegenError, Diagnostic, pointer
from generator.loader import load_document


class AuthConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    header: str = "Authorization"
    prefix: str = "Bearer "
    env: str
    param: str = "api_key"
    description: str = ""
    # Other prefixes the service accepts for the same credential, chosen with ``auth_scheme=``;
    # ``scheme`` names the default prefix above.
    scheme: str = "bearer"
    alternatives: dict[str, str] = Field(default_factory=dict)


class FamilyConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    document: str
    module: str
    client: str
    overlays: tuple[str, ...] = ()
    base_url_env: str = ""
    auth: AuthConfig | None = None
    # When true, the credential is optional (documents without security).
    auth_optional: bool = False


class PackageConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    distribution: str
    version: str = "0.1.0"
    description: str = ""
    changelog: str | None = None
    # Emit tests of every operation into the package's tests/ folder.
    tests: bool = True

    @field_validator("name")
    @classmethod
    def _identifier(cls, v: str) -> str:
        if not v.isidentifier() or not v.islower() or keyword.iskeyword(v):
            raise ValueError("must be a lower-case Python identifier")
        return v


class SnapshotConfig(BaseModel):
    """How ``cube-codegen fetch`` writes a family's document into ``spec/``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # Keep only the document's structure (no descriptions, summaries, examples or x- annotations):
    # for documents whose prose is not ours to commit.
    structure_only: bool = False


class Config(BaseModel):
    """Everything a generation run reads, with paths relative to ``base_dir``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    package: PackageConfig
    families: tuple[FamilyConfig, ...] = Field(min_length=1)
    snapshot: SnapshotConfig = SnapshotConfig()
    base_dir: Path = Path()
    out_dir: Path = DEFAULT_OUT
    # Folder that document ``$ref``s may read from; None: each document's own folder.
    ref_root: Path | None = None

    def path(self, relative: str) -> Path:
        return self.base_dir / relative

    def family(self, name: str) -> FamilyConfig:
        """The family called ``name``; raises :class:`CodegenError` naming the known ones."""
        for family in self.families:
            if family.name == name:
                return family
        known = ", ".join(f.name for f in self.families)
        raise CodegenError(
            Diagnostic(
                "config-invalid",
                "error",
                str(self.base_dir),
                "/families",
                f"no family {name!r} (known: {known})",
            )
        )


def load_config(
    path: Path = DEFAULT_CONFIG, *, out_dir: Path | None = None, ref_root: Path | None = None
) -> Config:
    raw: Any = load_document(path)
    if not isinstance(raw, dict):
        raise CodegenError(
            Diagnostic("config-invalid", "error", str(path), "", "config must be a mapping")
        )
    try:
        return Config.model_validate(
            {
                **raw,
                "base_dir": path.parent,
                "out_dir": out_dir or DEFAULT_OUT,
                "ref_root": ref_root,
            }
        )
    except ValidationError as exc:
        from generator.validate import our_words

        first = exc.errors()[0]
        where = pointer(*first["loc"])
        raise CodegenError(
            Diagnostic("config-invalid", "error", str(path), where, our_words(first))
        ) from None
