"""The one configuration model: which documents and overlays make which package.

``spec/cube-codegen.yaml`` names the package and, per API family, its document, overlays, module,
client class and credential. The single-document mode builds the same model from CLI options.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
)

from generator import DEFAULT_CONFIG, DEFAULT_OUT
from generator.diagnostics import CodegenError, Diagnostic, pointer
from generator.document.loader import load_document
from generator.document.sandbox import inside, regular_file, relative_name

FROM_FILE = "from_file"  # validation context: the values come from a configuration file


def _matching(pattern: str, what: str) -> AfterValidator:
    """A check that a value matches ``pattern`` (whole), failing with "must be ``what``"."""
    compiled = re.compile(pattern + r"\Z")

    def check(v: str) -> str:
        if not compiled.match(v):
            raise ValueError(f"must be {what}")
        return v

    return AfterValidator(check)


def _not_keyword(v: str) -> str:
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


# Values that become code, file names or headers are checked as what they are, never joined
# as paths: each kind of value is one type here.
PythonName = Annotated[
    str,
    _matching(r"[a-z][a-z0-9_]*", "a lower-case Python identifier"),
    AfterValidator(_not_keyword),
]
ModuleName = Annotated[  # "" puts the family at the package root
    str,
    _matching(r"([a-z][a-z0-9_]*)?", "a lower-case Python identifier"),
    AfterValidator(_not_keyword),
]
ClassName = Annotated[str, _matching(r"[A-Z][A-Za-z0-9]*", "a CamelCase Python class name")]
FamilyName = Annotated[str, _matching(r"[a-z][a-z0-9_-]*", "a lower-case name (a-z, 0-9, _ and -)")]
EnvName = Annotated[
    str, _matching(r"[A-Z_][A-Z0-9_]*", "an environment variable name (A-Z, 0-9, _)")
]
OptionalEnvName = Annotated[
    str, _matching(r"([A-Z_][A-Z0-9_]*)?", "an environment variable name (A-Z, 0-9, _)")
]
HeaderName = Annotated[  # an HTTP token (RFC 9110)
    str, _matching(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", "an HTTP header name")
]
HeaderText = Annotated[str, _matching(r"[^\x00-\x1f\x7f]*", "text without control characters")]
PlainText = Annotated[
    str,
    _matching(
        r"[^\x00-\x1f\x7f\"\\\\]*", "plain text (no control characters, quotes or backslashes)"
    ),
]
DistributionName = Annotated[  # a PEP 508 name
    str,
    _matching(
        r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?", "a package name (letters, digits, ., _ and -)"
    ),
]
License = Annotated[
    str,
    _matching(
        r"[A-Za-z0-9.+-]+( (AND|OR|WITH) [A-Za-z0-9.+-]+)*",
        "an SPDX license expression (e.g. MIT, LicenseRef-Internal)",
    ),
]
HttpsUrl = Annotated[
    str, _matching(r"https://[^\s\"'\\\\<>]+", "an https:// URL without spaces or quotes")
]
RelativePath = Annotated[str, AfterValidator(_relative)]


class AuthConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    header: HeaderName = "Authorization"
    prefix: HeaderText = "Bearer "
    env: EnvName
    param: PythonName = "api_key"
    description: str = ""
    # Other prefixes the service accepts for the same credential, chosen with ``auth_scheme=``;
    # ``scheme`` names the default prefix above.
    scheme: str = "bearer"
    alternatives: dict[str, HeaderText] = Field(default_factory=dict)


class FamilyConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: FamilyName
    document: RelativePath
    module: ModuleName
    client: ClassName
    overlays: tuple[RelativePath, ...] = ()
    base_url_env: OptionalEnvName = ""
    auth: AuthConfig | None = None
    # When true, the credential is optional (documents without security).
    auth_optional: bool = False


class AuthorConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: PlainText
    email: PlainText = ""


class PackageConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: PythonName
    distribution: DistributionName
    version: str = "0.1.0"
    description: str = ""
    changelog: RelativePath | None = None
    # Distribution metadata: an SPDX license expression and the file holding its text, authors,
    # and project URLs (label → https URL), written into the package's pyproject.toml.
    license: License | None = None
    license_file: RelativePath | None = None
    authors: tuple[AuthorConfig, ...] = ()
    urls: dict[PlainText, HttpsUrl] = Field(default_factory=dict)
    # Emit tests of every operation into the package's tests/ folder.
    tests: bool = True


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
    # The configuration file itself, which diagnostics about it name (None: built in memory).
    file: Path | None = None
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
        inside(root, path, file=str(self.file or self.base_dir), at="", what=f"{relative!r}")
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
                str(self.file or self.base_dir),
                "/families",
                f"no family {name!r} (known: {known})",
            )
        )


def load_config(
    path: Path = DEFAULT_CONFIG, *, out_dir: Path | None = None, ref_root: Path | None = None
) -> Config:
    if not path.exists() and not path.is_absolute():
        # The advice fits the default path only: a --config given by hand names the wrong file.
        advice = (
            ": run cube-codegen in the project's root folder (the one holding spec/), or pass "
            "--config PATH"
            if path == DEFAULT_CONFIG
            else ""
        )
        raise CodegenError(
            Diagnostic(
                "config-not-found", "error", str(path), "", f"no such file in {Path.cwd()}{advice}"
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
                "file": path,
                "out_dir": out_dir or DEFAULT_OUT,
                "ref_root": ref_root,
            },
            context={FROM_FILE: True},
        )
    except ValidationError as exc:
        from generator.document.validate import our_words

        first = exc.errors()[0]
        where = pointer(*first["loc"])
        raise CodegenError(
            Diagnostic("config-invalid", "error", str(path), where, our_words(first))
        ) from None
