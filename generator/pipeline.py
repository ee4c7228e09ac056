"""The generation pipeline as a library call: config in, ``{path: text}`` out.

document → overlays → bundled, validated document → IR → templates → formatted files. Nothing
here writes to disk; :mod:`generator.cli` decides where the result goes.
"""

from __future__ import annotations

import hashlib
import json
import keyword
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator import __version__
from generator.beside import Beside
from generator.diagnostics import CodegenError, Diagnostic
from generator.document import known_documents, valid_cache
from generator.document.config import Config, FamilyConfig
from generator.document.openapi_paths import operation_keys
from generator.document.refs import Resolver, bundle
from generator.document.validate import openapi_version, validate
from generator.emit.package import render_package
from generator.emit.render import use_template_cache
from generator.ir import bound_names as bound_names_module
from generator.ir import renames
from generator.ir.bound_names import bound_names
from generator.ir.build import FamilyBuilder
from generator.ir.naming import PythonIdentifier
from generator.ir.types import Distribution, Family, Package
from generator.overlay.attribution import attribute
from generator.words import pascal_case

if TYPE_CHECKING:  # a run without overlays never loads the overlay model
    from generator.overlay.model import Provenance


@dataclass(frozen=True)
class LoadedFamily:
    config: FamilyConfig
    file: str
    document: dict[str, Any]
    diagnostics: tuple[Diagnostic, ...] = ()  # what loading worked around
    written: tuple[Provenance, ...] = ()  # where overlay actions wrote, to name them in findings


@dataclass
class Result:
    """What one run produced: files keyed by path relative to the output folder, and findings."""

    files: dict[str, str]
    package: Package
    diagnostics: list[Diagnostic] = field(default_factory=list)
    documents: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class PreparedFamily:
    """A family's document after its overlays and ``$ref`` bundling, not yet validated."""

    config: FamilyConfig
    file: str
    document: dict[str, Any]
    bundled: tuple[Diagnostic, ...]  # what bundling worked around
    written: tuple[Provenance, ...]


def load_family(config: Config, family: FamilyConfig) -> LoadedFamily:
    """Read one family's document, apply its overlays, bundle references, validate."""
    return validated(prepare_family(config, family))


def prepare_family(config: Config, family: FamilyConfig) -> PreparedFamily:
    file = str(config.path(family.document))
    found = known_documents.read(file)
    doc = found.document
    openapi_version(doc, file)
    written: tuple[Provenance, ...] = ()
    if family.overlays:
        doc, written = apply_overlays(doc, file, [str(config.path(o)) for o in family.overlays])
    bundled: list[Diagnostic] = []
    try:
        if found.known and not family.overlays:
            pass  # these bytes were found self-contained, every reference resolving
        elif Resolver(doc, file).check_self_contained():  # one walk for most documents
            if not family.overlays:
                known_documents.remember(found)
        else:
            doc, bundled = bundle(doc, file, ref_root=config.ref_root)
            Resolver(doc, file).check_all(local_only=True)
    except CodegenError as exc:
        raise CodegenError(attribute(exc.diagnostics, file, written)) from None
    return PreparedFamily(family, file, doc, tuple(bundled), written)


def validated(fam: PreparedFamily, *, known_valid: bool = False) -> LoadedFamily:
    """``fam`` validated (workarounds applied in place), or taken as it is when
    ``known_valid``: a child found it so with nothing to work around (:func:`_verdict`)."""
    doc: dict[str, Any] = fam.document
    repaired: list[Diagnostic] = []
    if not known_valid:
        try:
            doc, repaired = validate(doc, fam.file)
        except CodegenError as exc:
            raise CodegenError(attribute(exc.diagnostics, fam.file, fam.written)) from None
    found = attribute((*fam.bundled, *repaired), fam.file, fam.written)
    return LoadedFamily(fam.config, fam.file, doc, tuple(found), fam.written)


def _verdict(
    config: Config, prepared: list[PreparedFamily], as_they_are: list[LoadedFamily]
) -> tuple[str, bool] | None:
    """The run's spec hash, and whether the run state already knew its documents valid, when
    every document is valid with nothing to work around; else None. Run in a child while the
    IR is built: the hash of a large document (73-77 ms for payments' 4 MB) and the validation
    (the workarounds it makes in place stay in the child) are both off the run's path."""
    digest, known = _hash_known(config, as_they_are)
    if known:
        return digest, True
    for fam in prepared:
        try:
            found = validated(fam)
        except CodegenError:
            return None
        if len(found.diagnostics) != len(fam.bundled):  # something was worked around
            return None
    return digest, False


def apply_overlays(
    doc: Any, file: str, overlay_files: list[str]
) -> tuple[Any, tuple[Provenance, ...]]:
    """The overlaid document, and where each action wrote."""
    from generator.overlay import apply_overlays as apply
    from generator.overlay import load_overlay

    result = apply(doc, [load_overlay(o) for o in overlay_files], document_file=file)
    errors = [d for d in result.diagnostics if d.level == "error"]
    if errors:
        raise CodegenError(errors)
    return result.document, result.written


def spec_hash(config: Config, loaded: list[LoadedFamily]) -> str:
    """sha256 of the package settings and every family's final document (after overlays)."""
    h = hashlib.sha256()
    h.update(config.package.model_dump_json().encode())
    for fam in loaded:
        h.update(fam.config.model_dump_json().encode())
        h.update(json.dumps(fam.document, sort_keys=True, ensure_ascii=False).encode())
    return "sha256:" + h.hexdigest()


def generate(config: Config, *, custom: bool = True) -> Result:
    """Generate the whole package for ``config``; raises :class:`CodegenError` on bad input.

    With ``custom`` (the default), the hand-written code beside the configuration is applied
    (:mod:`generator.emit.custom_code`): custom files added, kept patches merged in.
    """
    result = _generate(config)
    if custom:
        from generator.emit.custom_code import apply_custom_code

        result.files = apply_custom_code(config, result.files)
    return result


def _generate(config: Config) -> Result:
    bound_names()  # read (or, once per generator version, derived) before any child is forked
    prepared = [prepare_family(config, fam) for fam in config.families]
    # The spec hash and validation (about 80 ms, most of it importing the OpenAPI object model)
    # run in a child while the IR is built from the documents as they are. Unless the child
    # finds every document valid with nothing to work around, that build is dropped and the
    # run validates first, as it does where no child can be forked: the outcome never depends
    # on the child. Documents an earlier run found valid with nothing to work around take that
    # verdict from the run state (generator.document.valid_cache) and are not validated again.
    as_they_are = [validated(fam, known_valid=True) for fam in prepared]
    with Beside(lambda: _verdict(config, prepared, as_they_are), here=lambda: None) as check:
        if check.forked:
            try:
                families, diagnostics = _build(as_they_are)
            except Exception:
                if check.result() is not None:  # valid: the failure is the build's own
                    raise
            else:
                verdict = check.result()
                if verdict is not None:
                    digest, known = verdict
                    if not known:
                        valid_cache.remember(digest)
                    return _finish(config, as_they_are, families, diagnostics, digest)
    digest, known = _hash_known(config, as_they_are)
    if known:
        return _finish(config, as_they_are, *_build(as_they_are), digest)
    loaded = [validated(fam) for fam in prepared]
    if all(len(f.diagnostics) == len(p.bundled) for f, p in zip(loaded, prepared, strict=True)):
        valid_cache.remember(digest)  # nothing worked around: the documents are as they were
    else:
        digest = spec_hash(config, loaded)  # of the documents as validation left them
    families, diagnostics = _build(loaded)
    return _finish(config, loaded, families, diagnostics, digest)


def _hash_known(config: Config, loaded: list[LoadedFamily]) -> tuple[str, bool]:
    """The spec hash of ``loaded``, and whether the run state knows those documents valid."""
    digest = spec_hash(config, loaded)
    return digest, valid_cache.known(digest)


def family_builder(doc: dict[str, Any], file: str, config: FamilyConfig) -> FamilyBuilder:
    """The IR builder of one document, for every caller that needs the IR (drift's surface
    too): from here the names the templates bind can always be derived, even with a cold
    cache, because this module sets the stub renderer they are derived with."""
    return FamilyBuilder(doc, file, config)


def _build(loaded: list[LoadedFamily]) -> tuple[list[Family], list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    families: list[Family] = []
    for fam in loaded:
        diagnostics.extend(fam.diagnostics)
        try:
            builder = family_builder(fam.document, fam.file, fam.config)
            families.append(builder.build())
        except CodegenError as exc:
            raise CodegenError(attribute(exc.diagnostics, fam.file, fam.written)) from None
        diagnostics.extend(attribute(builder.diagnostics, fam.file, fam.written))
    errors = [d for d in diagnostics if d.level == "error"]
    if errors:
        raise CodegenError(errors)
    return families, diagnostics


def _finish(
    config: Config,
    loaded: list[LoadedFamily],
    families: list[Family],
    diagnostics: list[Diagnostic],
    digest: str,
) -> Result:
    package = Package(
        # validated by the configuration; kept verbatim (``p_`` stays ``p_``: it names folders)
        name=PythonIdentifier.unchecked(config.package.name),
        distribution=config.package.distribution,
        version=config.package.version,
        description=config.package.description or families[0].title,
        families=tuple(families),
        spec_hash=digest,
        generator_version=__version__,
        metadata=_distribution(config),
        tests=config.package.tests,
    )
    use_template_cache()
    # rendered in the formatter's output already (generator.emit.layout): nothing formats it
    files = render_package(package)
    return Result(dict(sorted(files.items())), package, diagnostics, [f.document for f in loaded])


def _distribution(config: Config) -> Distribution:
    """The distribution metadata the configuration names (changelog and license when present)."""
    pkg = config.package
    return Distribution(
        license=pkg.license,
        license_text=_text_of(config, pkg.license_file),
        changelog_text=_text_of(config, pkg.changelog),
        authors=tuple((a.name, a.email) for a in pkg.authors),
        urls=tuple(sorted(pkg.urls.items())),
    )


def _text_of(config: Config, file: str | None) -> str | None:
    """The text of a file the configuration names, or None when it names none or it is absent."""
    if not file:
        return None
    path = config.path(file)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def single_document_config(
    spec: Path,
    overlays: tuple[Path, ...],
    package: str,
    out: Path,
    ref_root: Path | None = None,
) -> Config:
    """The configuration of ``generate --spec``: one family at the package root."""
    if not package.isidentifier() or package != package.lower() or keyword.iskeyword(package):
        raise CodegenError(
            Diagnostic(
                "config-invalid", "error", "--package", "", "must be a lower-case identifier"
            )
        )
    client = pascal_case(package) or "Api"
    env = package.upper()
    return Config.model_validate(
        {
            "package": {"name": package, "distribution": package.replace("_", "-").strip("-")},
            "families": [
                {
                    "name": package,
                    "document": str(spec.resolve()),
                    "overlays": [str(o.resolve()) for o in overlays],
                    "module": "",
                    "client": client,
                    "base_url_env": f"{env}_BASE_URL",
                }
            ],
            "base_dir": Path.cwd(),
            "out_dir": out,
            "ref_root": ref_root,
        }
    )


def strip_root(files: dict[str, str], root: str) -> dict[str, str]:
    """Drop the distribution folder from every key: ``--out`` is the distribution itself."""
    prefix = root + "/"
    return {k[len(prefix) :]: v for k, v in files.items() if k.startswith(prefix)}


def report_json(result: Result) -> dict[str, Any]:
    generated = {f"{op.method} {op.path}" for f in result.package.families for op in f.operations}
    total: set[str] = set()
    for doc in result.documents:
        total |= operation_keys(doc)
    total |= generated  # path items behind $ref count once resolved
    return {
        "operations_total": len(total),
        "operations_generated": len(generated),
        "skipped": [
            {"operation": op, "reason": "not generated"} for op in sorted(total - generated)
        ],
        "renamed": [d.to_json() for d in result.diagnostics if d.id in RENAME_IDS],
        "diagnostics": [d.to_json() for d in result.diagnostics],
    }


# Diagnostics about a generated name that differs from the document's (listed in the report).
RENAME_IDS = (
    frozenset({"schema-renamed", "operation-renamed", "operation-id-duplicate", "tag-renamed"})
    | renames.RENAME_IDS
)


def _render_stub() -> dict[str, str]:
    """The stub family of :mod:`generator.ir.bound_names`, generated in a private scratch folder
    with a credential that has alternatives (``auth_scheme=``)."""
    from generator.document.config import AuthConfig
    from generator.transaction import scratch

    with bound_names_module.rendering_stub(), scratch("names") as tmp:
        doc = Path(tmp) / "zz.json"
        doc.write_text(json.dumps(bound_names_module.stub_document()), encoding="utf-8")
        config = single_document_config(doc, (), "zzpkg", Path(tmp) / "out", Path(tmp))
        auth = AuthConfig(env="ZZ_TOKEN", param="zz_token", alternatives={"zz-alt": "Zz "})
        family = config.families[0].model_copy(update={"auth": auth})
        return generate(config.model_copy(update={"families": (family,)}), custom=False).files


bound_names_module.use_renderer(_render_stub)
