"""The one configuration model: which documents and overlays make which package.

``spec/cube-codegen.yaml`` names the package and, per API family, its document, overlays, module,
client class and credential. The single-document mode builds the same model from CLI options.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from generator import DEFAULT_CONFIG, DEFAULT_OUT
from generator.diagnostics import CodegenError, Diagnostic, pointer
from generator.loader import load_document
from generator.sandbox import inside, regular_file, relative_name

# Names that become code or file names are checked as names, never joined as paths.
_MODULE = re.compile(r"[a-z][a-z0-9_]*\Z")
_CLASS = re.compile(r"[A-Z][A-Za-z0-9]*\Z")
_FAMILY = re.compile(r"[a-z][a-z0-9_-]*\Z")
_ENV = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
_HEADER = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+\Z")  # an HTTP token (RFC 9110)
_DISTRIBUTION = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?\Z")  # PEP 508 name


_SPDX = re.compile(r"[A-Za-z0-9.+-]+( (AND|OR|WITH) [A-Za-z0-9.+-]+)*\Z")
_URL = re.compile(r"https://[^\s\"'\\<>]+\Z")


def _plain_text(v: str) -> str:
    if any(ord(c) < 32 or ord(c) == 127 for c in v) or '"' in v or "\\" in v:
        raise ValueError("must be plain text (no control characters, quotes or backslashes)")
    return v


def _matching(pattern: re.Pattern[str], what: str, v: str) -> str:
    if not pattern.match(v):
        raise ValueError(f"must be {what}")
    return v


def _python_name(v: str, *, empty: bool = False) -> str:
    if empty and not v:
        return v  # the package root
    _matching(_MODULE, "a lower-case Python identifier", v)
    if keyword.iskeyword(v):
        raise ValueError("must not be a Python keyword")
    return v


def _relative(v: str, info: ValidationInfo) -> str:
    """A path written in the configuration file stays a plain relative path (paths given on the
    command line, as ``generate --spec`` does, are the caller's own choice)."""
    why = relative_name(v) if (info.context or {}).get(FROM_FILE) else None
    if why:
        raise ValueError(why)
    return v


FROM_FILE = "from_file"  # validation context: the values come from a configuration file


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

    @field_validator("header")
    @classmethod
    def _header(cls, v: str) -> str:
        return _matching(_HEADER, "an HTTP header name", v)

    @field_validator("env")
    @classmethod
    def _env(cls, v: str) -> str:
        return _matching(_ENV, "an environment variable name (A-Z, 0-9, _)", v)

    @field_validator("param")
    @classmethod
    def _param(cls, v: str) -> str:
        return _python_name(v)

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        if any(ord(c) < 32 or ord(c) == 127 for c in v):
            raise ValueError("must not hold control characters")
        return v


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

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return _matching(_FAMILY, "a lower-case name (a-z, 0-9, _ and -)", v)

    @field_validator("module")
    @classmethod
    def _module(cls, v: str) -> str:
        return _python_name(v, empty=True)

    @field_validator("client")
    @classmethod
    def _client(cls, v: str) -> str:
        return _matching(_CLASS, "a CamelCase Python class name", v)

    @field_validator("base_url_env")
    @classmethod
    def _base_url_env(cls, v: str) -> str:
        return v and _matching(_ENV, "an environment variable name (A-Z, 0-9, _)", v)

    @field_validator("document")
    @classmethod
    def _document(cls, v: str, info: ValidationInfo) -> str:
        return _relative(v, info)

    @field_validator("overlays")
    @classmethod
    def _overlays(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        return tuple(_relative(o, info) for o in v)


class AuthorConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    email: str = ""

    @field_validator("name", "email")
    @classmethod
    def _plain(cls, v: str) -> str:
        return _plain_text(v)


class PackageConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    distribution: str
    version: str = "0.1.0"
    description: str = ""
    changelog: str | None = None
    # Distribution metadata: an SPDX license expression and the file holding its text, authors,
    # and project URLs (label → https URL), written into the package's pyproject.toml.
    license: str | None = None
    license_file: str | None = None
    authors: tuple[AuthorConfig, ...] = ()
    urls: dict[str, str] = Field(default_factory=dict)
    # Emit tests of every operation into the package's tests/ folder.
    tests: bool = True

    @field_validator("name")
    @classmethod
    def _identifier(cls, v: str) -> str:
        return _python_name(v)

    @field_validator("distribution")
    @classmethod
    def _distribution(cls, v: str) -> str:
        return _matching(_DISTRIBUTION, "a package name (letters, digits, ., _ and -)", v)

    @field_validator("changelog", "license_file")
    @classmethod
    def _files(cls, v: str | None, info: ValidationInfo) -> str | None:
        return None if v is None else _relative(v, info)

    @field_validator("license")
    @classmethod
    def _license(cls, v: str | None) -> str | None:
        if v is not None and not _SPDX.match(v):
            raise ValueError("must be an SPDX license expression (e.g. MIT, LicenseRef-Internal)")
        return v

    @field_validator("urls")
    @classmethod
    def _urls(cls, v: dict[str, str]) -> dict[str, str]:
        for label, url in v.items():
            _plain_text(label)
            if not _URL.match(url):
                raise ValueError(f"{label}: must be an https:// URL without spaces or quotes")
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
        """A file the configuration names, refused unless it stays inside the project (the
        folder holding the configuration's folder, or ``--ref-root``) and is a regular file."""
        path = self.base_dir / relative
        if Path(relative).is_absolute():  # given on the command line: the caller's choice
            regular_file(path, relative)
            return path
        root = self.base_dir.absolute().parent
        if self.ref_root and not path.resolve().is_relative_to(root.resolve()):
            root = self.ref_root  # a maintainer widened the tree
        inside(root, path, file=str(self.base_dir), at="", what=f"{relative!r}")
        return path

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
    if not path.exists() and not path.is_absolute():
        raise CodegenError(
            Diagnostic(
                "config-not-found",
                "error",
                str(path),
                "",
                f"no such file in {Path.cwd()}: run cube-codegen in the project's root folder "
                "(the one holding spec/), or pass --config PATH",
            )
        )
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
            },
            context={FROM_FILE: True},
        )
    except ValidationError as exc:
        from generator.validate import our_words

        first = exc.errors()[0]
        where = pointer(*first["loc"])
        raise CodegenError(
            Diagnostic("config-invalid", "error", str(path), where, our_words(first))
        ) from None
