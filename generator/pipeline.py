"""The generation pipeline as a library call: config in, ``{path: text}`` out.

document → overlays → bundled, validated document → IR → templates → formatted files. Nothing
here writes to disk; :mod:`generator.cli` decides where the result goes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import keyword
import multiprocessing
import os
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator import __version__
from generator.build import FamilyBuilder
from generator.config import Config, FamilyConfig
from generator.diagnostics import CodegenError, Diagnostic
from generator.formatting import format_tree
from generator.ir import Family, Package
from generator.loader import load_document
from generator.models import render_models, warm_up_models
from generator.naming import PythonIdentifier, pascal_case
from generator.openapi_paths import operation_keys
from generator.refs import bundle, check_local_refs
from generator.render import TEMPLATES, render
from generator.testcases import CaseBuilder
from generator.validate import openapi_version, validate

RUNTIME_DIR = TEMPLATES / "runtime"


@dataclass(frozen=True)
class LoadedFamily:
    config: FamilyConfig
    file: str
    document: dict[str, Any]
    version: str


@dataclass
class Result:
    """What one run produced: files keyed by path relative to the output folder, and findings."""

    files: dict[str, str]
    package: Package
    diagnostics: list[Diagnostic] = field(default_factory=list)
    documents: list[Any] = field(default_factory=list)


def load_family(config: Config, family: FamilyConfig) -> LoadedFamily:
    """Read one family's document, apply its overlays, bundle references, validate."""
    file = str(config.path(family.document))
    doc = load_document(file)
    openapi_version(doc, file)
    if family.overlays:
        doc = apply_overlays(doc, file, [str(config.path(o)) for o in family.overlays])
    doc = bundle(doc, file, ref_root=config.ref_root)
    check_local_refs(doc, file)
    validate(doc, file)
    return LoadedFamily(family, file, doc, str(doc["openapi"]))


def apply_overlays(doc: Any, file: str, overlay_files: list[str]) -> Any:
    from generator.overlay import apply_overlays as apply
    from generator.overlay import load_overlay

    result = apply(doc, [load_overlay(o) for o in overlay_files], document_file=file)
    errors = [d for d in result.diagnostics if d.level == "error"]
    if errors:
        raise CodegenError(errors)
    return result.document


def spec_hash(config: Config, loaded: list[LoadedFamily]) -> str:
    """sha256 of the package settings and every family's final document (after overlays)."""
    h = hashlib.sha256()
    h.update(config.package.model_dump_json().encode())
    for fam in loaded:
        h.update(fam.config.model_dump_json().encode())
        h.update(json.dumps(fam.document, sort_keys=True, ensure_ascii=False).encode())
    return "sha256:" + h.hexdigest()


def generate(config: Config) -> Result:
    """Generate the whole package for ``config``; raises :class:`CodegenError` on bad input."""
    with _model_workers(len(config.families)) as pool:
        return _generate(config, pool)


def _generate(config: Config, pool: ProcessPoolExecutor | None) -> Result:
    loaded = [load_family(config, fam) for fam in config.families]
    diagnostics: list[Diagnostic] = []
    families: list[Family] = []
    for fam in loaded:
        builder = FamilyBuilder(fam.document, fam.file, fam.config)
        families.append(builder.build())
        diagnostics.extend(builder.diagnostics)
    errors = [d for d in diagnostics if d.level == "error"]
    if errors:
        raise CodegenError(errors)
    package = Package(
        name=PythonIdentifier(config.package.name),
        distribution=config.package.distribution,
        version=config.package.version,
        description=config.package.description or families[0].title,
        families=tuple(families),
        spec_hash=spec_hash(config, loaded),
        generator_version=__version__,
    )
    versions = {f.config.name: f.version for f in loaded}
    root = config.package.name
    # Models are the slowest stage: they are made in worker processes while this one renders
    # and formats everything else. Output does not depend on the scheduling.
    pending = [
        (f, pool.submit(render_models, f, versions[f.name]) if pool else None)
        for f in package.families
    ]
    files = format_tree(render_package(package, versions, config), root)
    models = {
        model_path(f, f"{root}/{root}"): header(package)
        + "\n"
        + (job.result() if job else render_models(f, versions[f.name]))
        for f, job in pending
    }
    pyproject = f"{root}/pyproject.toml"
    files.update(format_tree({**models, pyproject: files[pyproject]}, root))
    return Result(dict(sorted(files.items())), package, diagnostics, [f.document for f in loaded])


@contextlib.contextmanager
def _model_workers(jobs: int) -> Iterator[ProcessPoolExecutor | None]:
    """Forked workers for model generation when the machine has a core to spare, else None.

    Workers never outlive this process: they are killed when the run stops early (an error,
    Ctrl-C, SIGTERM), and the kernel kills them if this process dies without a word (SIGKILL).
    """
    cores = os.cpu_count() or 1
    if cores < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield None
        return
    context = multiprocessing.get_context("fork")
    workers = max(1, min(jobs, cores))
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(),)
    )
    try:
        with _signals_held():  # a signal handled mid-fork would be lost in the fork hooks
            pool.submit(int)  # forks every worker now
        yield pool
    except BaseException:
        for process in list(getattr(pool, "_processes", {}).values()):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.kill()
        # the pool notices its workers are gone at once; waiting for that here keeps its
        # bookkeeping thread from racing the interpreter's exit
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


_PR_SET_PDEATHSIG = 1
_HELD = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Delay Ctrl-C and SIGTERM until the block is done; they are handled right after it."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _start_worker(parent: int) -> None:
    """A model worker: dies with its parent, leaves Ctrl-C to it, holds none of its stdio."""
    with contextlib.suppress(Exception):  # Linux only; elsewhere the parent's kill suffices
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)  # forked while they were held
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # a caller reading our stdout/stderr must see EOF when we exit
        os.dup2(devnull, fd)
    os.close(devnull)
    warm_up_models()


def model_path(family: Family, root: str) -> str:
    base = f"{root}/{family.module}" if family.module else root
    return f"{base}/models.py"


def header(package: Package, comment: str = "#") -> str:
    text = (
        f"File generated by cube-codegen {package.generator_version} from {package.spec_hash}. "
        "Do not edit."
    )
    return f"<!-- {text} -->" if comment == "<!--" else f"{comment} {text}"


def render_package(package: Package, versions: dict[str, str], config: Config) -> dict[str, str]:
    pkg = package.name
    root = f"{pkg}/{pkg}"
    py_header = header(package)
    imports = {f.name: f"{pkg}.{f.module}" if f.module else pkg for f in package.families}
    ctx: dict[str, Any] = {"package": package, "pkg": pkg, "imports": imports, "header": py_header}
    files: dict[str, str] = {
        f"{pkg}/pyproject.toml": render("package/pyproject.toml.jinja", **ctx),
        f"{pkg}/README.md": render(
            "package/README.md.jinja", **{**ctx, "header": header(package, "<!--")}
        ),
        f"{root}/__init__.py": render("package/__init__.py.jinja", **ctx),
        f"{root}/_version.py": render("package/_version.py.jinja", **ctx),
        f"{root}/py.typed": render("package/py.typed.jinja", **ctx),
    }
    if config.package.changelog:
        changelog = config.path(config.package.changelog)
        if changelog.is_file():
            files[f"{pkg}/CHANGELOG.md"] = (
                header(package, "<!--") + "\n" + changelog.read_text(encoding="utf-8")
            )
    for runtime_file in sorted(RUNTIME_DIR.glob("*.py")):
        files[f"{root}/{runtime_file.name}"] = (
            py_header + "\n" + runtime_file.read_text(encoding="utf-8")
        )
    for family in package.families:
        files.update(_render_family(family, versions[family.name], root, imports[family.name], ctx))
    if config.package.tests:
        files[f"{pkg}/tests/_{pkg}_test_support.py"] = (
            py_header + "\n" + (TEMPLATES / "tests" / "support.py").read_text(encoding="utf-8")
        )
        for family in package.families:
            name = family.module or "api"
            files[f"{pkg}/tests/test_{pkg}_{name}.py"] = render(
                "tests/test_family.py.jinja",
                **ctx,
                family=family,
                family_import=imports[family.name],
                cases=CaseBuilder(family).cases(),
            )
    return files


def _render_family(
    family: Family, version: str, root: str, family_import: str, ctx: dict[str, Any]
) -> dict[str, str]:
    base = f"{root}/{family.module}" if family.module else root
    fctx = {**ctx, "family": family, "family_import": family_import}
    out = {
        f"{base}/_client.py": render("family/client.py.jinja", **fctx),
        f"{base}/resources/__init__.py": render("family/resources__init__.py.jinja", **fctx),
    }
    if family.module:
        out[f"{base}/__init__.py"] = render("family/__init__.py.jinja", **fctx)
    for resource in family.resources:
        out[f"{base}/resources/{resource.module}.py"] = render(
            "family/resource.py.jinja", **{**fctx, "resource": resource}
        )
    return out


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
            "package": {"name": package, "distribution": package.replace("_", "-")},
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
RENAME_IDS = frozenset({"schema-renamed", "operation-renamed", "operation-id-duplicate"})
