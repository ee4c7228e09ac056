"""Helpers shared by tests: run the CLI in a subprocess, build a client over a mock transport."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator import RUN_STATE
from tests import cli_zygote_client

if TYPE_CHECKING:
    from generator.pipeline import Result

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
PACKAGE_ROOT = GENERATED / "cube_client"
CLI = [sys.executable, "-m", "generator"]
# mypy caches kept from passing checks, by key (:func:`keep_mypy_cache`)
WARM_MYPY = ROOT / ".cache" / "mypy-warm"
# the key of the test projects' run-state mypy caches (:func:`seed_run_state_mypy`)
RUN_STATE_KEY = "run-state"
# The name of the package the mypy seed is made from (:func:`_mypy_seed`): every generated
# package carries its own copy of the runtime, which mypy checks again under each new package
# name (about a CPU second). A test that type-checks a package whose name is not what it tests
# names it this: its first check, on a fresh clone too, finds the runtime's results in the seed.
TYPED_PACKAGE = "typed_client"


def run_cli(
    *args: str,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
    timeout: float = 300,
    fresh: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``python -m generator ARGS`` in ``cwd`` with ``env`` added to this environment: its exit
    code, stdout and stderr. The process is forked from a server that imported the libraries
    once (:mod:`tests.cli_zygote`: about half a CPU second less per run), unless ``fresh`` or the
    environment changes what the interpreter reads at start-up; then it is a new interpreter,
    as for every run when ``CUBE_TESTS_FRESH_CLI`` is set (to compare, or to rule the server
    out)."""
    full = {**os.environ, **(env or {})}
    if not fresh and Path(cwd).is_dir():
        forked = cli_zygote_client.run([*CLI, *args], list(args), cwd, full, timeout)
        if forked is not None:
            return forked
    return subprocess.run(
        [*CLI, *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_package_tests(out: Path) -> subprocess.CompletedProcess[str]:
    """Run a generated package's own tests (``out``: the distribution folder) with pytest;
    they must pass, and their output is returned for more checks."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=out,
        env={**os.environ, "PYTHONPATH": str(out)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    return proc


def ensure_generated_importable() -> None:
    """Make ``import cube_client`` resolve to the committed generated package."""
    path = os.environ.get("CUBE_CODEGEN_PACKAGE_ROOT", str(PACKAGE_ROOT))
    if path not in sys.path:
        sys.path.insert(0, path)


def generate_package(doc: dict[str, Any], out: Path, package: str) -> dict[str, str]:
    """Generate ``doc`` in-process into ``out`` (the distribution folder); the files by path."""
    return generate_with_report(doc, out, package)[0]


def generate_with_report(
    doc: dict[str, Any], out: Path, package: str
) -> tuple[dict[str, str], dict[str, Any]]:
    """:func:`generate_package`, and the run's report as ``--report`` writes it."""
    from generator.pipeline import report_json, strip_root

    result = generate_result(doc, out, package)
    return strip_root(result.files, package), report_json(result)


def generate_result(doc: dict[str, Any], out: Path, package: str) -> Result:
    """:func:`generate_package`'s run itself: its files written into ``out``, its IR kept."""
    from generator.pipeline import generate, single_document_config, strip_root

    out.mkdir(parents=True, exist_ok=True)
    spec = out.parent / (out.name + ".json")
    spec.write_text(json.dumps(doc, ensure_ascii=True), encoding="utf-8")
    result = generate(single_document_config(spec, (), package, out))
    for rel, text in strip_root(result.files, package).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return result


def seeded_mypy_cache(cache: Path, key: str = "") -> Path:
    """``cache``, seeded when new with mypy's results for what every generated package imports
    (pydantic, httpx2, ...), so that a check spends its time on the package alone: a cold
    mypy takes about two seconds over those libraries. The seed is made once per environment
    (``.cache/mypy-seed/``), from a small package named :data:`TYPED_PACKAGE` generated with
    the same settings (a package of that name finds its runtime checked there too). With a
    ``key``, the seed is what the last passing check under that key kept
    (:func:`keep_mypy_cache`) when there is one: mypy then checks again only the modules whose
    source changed and what depends on them, and answers as it would from cold."""
    if not cache.exists():
        warm = WARM_MYPY / key if key else None
        if warm is not None and warm.is_dir():
            try:
                shutil.copytree(warm, cache)
            except OSError:  # being replaced this instant: seed instead
                shutil.rmtree(cache, ignore_errors=True)
        if not cache.exists():
            seed = _mypy_seed()
            if seed is not None:
                shutil.copytree(seed, cache)
    return cache


def keep_mypy_cache(key: str, cache: Path) -> None:
    """Keep ``cache`` (after a passing check) as the seed of the next check under ``key``: the
    packages the tests generate are the same from run to run, so their cached results are too.
    Swapped in whole, so a concurrent reader copies one complete cache or the other."""
    if not cache.is_dir():
        return
    WARM_MYPY.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=WARM_MYPY))
    old = Path(tempfile.mkdtemp(prefix=f".{key}-old-", dir=WARM_MYPY))
    try:
        shutil.copytree(cache, staged / "cache")
        with contextlib.suppress(OSError):
            (WARM_MYPY / key).rename(old / "cache")
        with contextlib.suppress(OSError):  # another worker kept one first: theirs is as good
            (staged / "cache").rename(WARM_MYPY / key)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


def seed_run_state_mypy(project: Path) -> Path:
    """The project's private run state (``.cache/cube-codegen``, owner-only) with its ``mypy``
    folder seeded as :func:`seeded_mypy_cache` does: the type-check verdicts of ``update`` and
    ``drift --type-check`` then spend their time on the package, not on pydantic and httpx2
    (about 3.5 of an update's 5 CPU seconds on a small project). The seed is the cache a test
    project's update last kept (:func:`keep_run_state_mypy`) when there is one: the package's
    runtime modules are then not checked again either (an update: 3.0 -> 1.4 CPU s). What
    mypy answers is the same with the seed or without it."""
    cache = run_state_mypy(project)
    cache.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    cache.parent.chmod(0o700)
    cache = seeded_mypy_cache(cache, RUN_STATE_KEY)
    if cache.is_dir():
        cache.chmod(0o700)
    return cache


def keep_run_state_mypy(project: Path) -> None:
    """Keep the project's run-state mypy cache (after an update whose verdicts passed) as the
    seed of the next test project's (:func:`seed_run_state_mypy`)."""
    keep_mypy_cache(RUN_STATE_KEY, run_state_mypy(project))


def run_state_mypy(project: Path) -> Path:
    """Where a project's run state keeps mypy's cache (its type-check verdicts')."""
    from generator.drift.verdicts import MYPY_FOLDER

    return project / RUN_STATE / MYPY_FOLDER


def package_mypy_cache(cache: Path) -> Path:
    """``cache`` made from the committed package's own mypy cache when ``make lint`` left one
    (mypy then checks only what changed: a second or two), else seeded as above. A copy, so
    that concurrent checks never share a cache."""
    warm = PACKAGE_ROOT / ".mypy_cache"
    if not cache.exists() and warm.is_dir():
        shutil.copytree(warm, cache)
    return seeded_mypy_cache(cache)


def seed_checkout_mypy() -> None:
    """The run state of commands the tests run from the checkout (``--config``, ``make -C``:
    the checkout's own) and of those run outside any project (the suite's per-user cache,
    tests/conftest.py): each without a ``mypy`` folder gets one made from the committed
    package's cache (:func:`package_mypy_cache`: ``make lint``, which ``make test`` runs
    first, leaves it holding pydantic, httpx2, the runtime and the whole package). On a fresh
    clone the first type-check verdicts run from the checkout (``update``,
    ``drift --type-check``, the verdicts of the committed package itself) then check only what
    differs from it; mypy answers as it would from cold. Copied aside and renamed in whole, so
    that a command running meanwhile sees no folder or a complete one."""
    from generator import runstate
    from generator.drift.verdicts import MYPY_FOLDER

    for state in (runstate.locate(ROOT)[0], runstate.user_cache()):
        if (state / MYPY_FOLDER).exists():
            continue
        state.mkdir(parents=True, exist_ok=True, mode=0o700)
        staged = Path(tempfile.mkdtemp(prefix=".mypy-seed-", dir=state))
        try:
            cache = package_mypy_cache(staged / MYPY_FOLDER)
            if cache.is_dir():
                os.chmod(cache, 0o700)
                with contextlib.suppress(OSError):  # made meanwhile: that one is as good
                    cache.rename(state / MYPY_FOLDER)
        finally:
            shutil.rmtree(staged, ignore_errors=True)


def check_user_code(folder: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` over user code in ``folder`` that imports the committed package, with the
    package's own settings (its pyproject: the pydantic plugin)."""
    mypy = Path(sys.executable).with_name("mypy")
    return subprocess.run(
        [str(mypy), "--strict", "--cache-dir", str(package_mypy_cache(cache)), str(folder)],
        cwd=PACKAGE_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _mypy_seed() -> Path | None:
    """The seed: mypy's cache after checking a small package named :data:`TYPED_PACKAGE`,
    made once per environment, by one process at a time (the others wait, then take it)."""
    key = hashlib.sha256()
    for part in (ROOT / "requirements.lock", ROOT / "templates/package/pyproject.toml.jinja"):
        key.update(part.read_bytes())
    key.update(sys.version.encode())
    key.update(TYPED_PACKAGE.encode())
    folder = ROOT / ".cache" / "mypy-seed" / key.hexdigest()[:16]
    if folder.is_dir():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w", encoding="ascii") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two workers starting at once make it once
        if not folder.is_dir():
            _make_mypy_seed(folder)
    return folder if folder.is_dir() else None


def _make_mypy_seed(folder: Path) -> None:
    """Check the seed package on a copy of the committed package's mypy cache when ``make lint``
    left one (``make test`` runs it first, on a fresh clone too): the libraries every package
    imports are checked there (seed: about 6.3 -> 1.7 CPU s); from cold if that fails."""
    mypy = Path(sys.executable).with_name("mypy")
    work = Path(tempfile.mkdtemp(prefix="making-", dir=folder.parent))
    try:
        doc = {"openapi": "3.1.0", "info": {"title": "Seed", "version": "1"}, "paths": {}}
        doc["components"] = {"schemas": {"Seed": {"type": "object"}}}
        generate_package(doc, work / "dist", TYPED_PACKAGE)
        stamp_by_content(work / "dist" / TYPED_PACKAGE)  # as every checked package is
        args = [str(mypy), "--cache-dir", str(work / "cache"), TYPED_PACKAGE]
        lint = PACKAGE_ROOT / ".mypy_cache"
        passed = False
        if lint.is_dir():
            with contextlib.suppress(OSError):  # being written by a lint this instant: cold
                shutil.copytree(lint, work / "cache")
                passed = _checks(args, work)
        if not passed:
            shutil.rmtree(work / "cache", ignore_errors=True)
            passed = _checks(args, work)
        if passed:
            (work / "cache").rename(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _checks(args: list[str], work: Path) -> bool:
    proc = subprocess.run(args, cwd=work / "dist", capture_output=True, timeout=600, check=False)
    return proc.returncode == 0


def check_clean_and_typed(out: Path, package: str, cache: Path, *ruff_args: str) -> None:
    """``ruff check``, ``ruff format --check`` and ``mypy --strict`` (the package's own settings)."""
    check_clean(out, *ruff_args)
    check_typed(out, package, cache)


def check_clean(out: Path, *ruff_args: str) -> None:
    """``ruff check`` and ``ruff format --check`` with the package's own settings."""
    tool = Path(sys.executable).with_name
    for args in (
        [str(tool("ruff")), "check", "--no-cache", *ruff_args, "."],
        [str(tool("ruff")), "format", "--check", "--no-cache", "."],
    ):
        _passes(args, out)


def check_typed(out: Path, package: str, cache: Path) -> None:
    """``mypy --strict`` with the package's own settings (on the cache the last passing check of
    a package of that name kept)."""
    mypy = Path(sys.executable).with_name("mypy")
    stamp_by_content(out / package)
    _passes([str(mypy), "--cache-dir", str(seeded_mypy_cache(cache, package)), package], out)
    keep_mypy_cache(package, cache)


def stamp_by_content(out: Path) -> None:
    """Each source file's mtime made from its text. Packages checked on a kept cache share a
    name (every fuzz example's, every test's of one name), and mypy trusts a cached module
    whose size and whole-second mtime match (it hashes the text only when they differ): a
    module written in the same second as another package's, of the same size, would take that
    one's results. With these mtimes, equal means equal text (but
    for a 2**-31 chance), so the modules every package shares (the runtime) keep their cached
    results and every other is read again."""
    for path in sorted(out.rglob("*.py*")):
        if path.suffix in (".py", ".pyi") and path.is_file():
            stamp_file(path, path.read_bytes())


def stamp_file(path: Path, data: bytes) -> None:
    """One file's mtime made from its bytes ``data`` (see :func:`stamp_by_content`)."""
    stamp = int.from_bytes(hashlib.sha256(data).digest()[:4]) >> 1
    os.utime(path, (stamp, stamp))


def _passes(args: list[str], cwd: Path) -> None:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def run_python(code: str, cwd: Path, *args: str) -> None:
    """Run ``code`` in a fresh interpreter in ``cwd`` (``args`` its ``sys.argv[1:]``); it must
    exit 0."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


@contextlib.contextmanager
def imported_package(doc: dict[str, Any], out: Path, package: str) -> Iterator[Path]:
    """Generate ``doc`` into ``out`` and make ``package`` importable here until the block ends."""
    generate_package(doc, out, package)
    sys.path.insert(0, str(out))
    try:
        yield out
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def model_source(where: Path | dict[str, str], package_dir: str = "") -> str:
    """Every model class's source of a generated family, in module order: the classes live in
    modules under ``<family>/_classes/``. ``where`` is the generated files by path (keys under
    ``package_dir``) or the family's folder on disk."""
    if isinstance(where, dict):
        prefix = f"{package_dir}/_classes/"
        texts = [t for p, t in sorted(where.items()) if p.startswith(prefix)]
    else:
        texts = [p.read_text(encoding="utf-8") for p in sorted((where / "_classes").glob("*.py"))]
    return "\n".join(texts)


def check_tests_typed(out: Path, package: str, cache: Path) -> None:
    """``mypy --strict`` on a generated package together with its generated tests."""
    mypy = Path(sys.executable).with_name("mypy")
    key = f"{package}+tests"
    stamp_by_content(out)
    proc = subprocess.run(
        [
            str(mypy),
            "--strict",
            "--cache-dir",
            str(seeded_mypy_cache(cache, key)),
            package,
            "tests",
        ],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    keep_mypy_cache(key, cache)


def node_paths(doc: Any, limit: int) -> list[tuple[Any, ...]]:
    """Key paths (key/index tuples) of the nodes below the top level, breadth first, at most
    ``limit``: where a test mutates a document."""
    found: list[tuple[Any, ...]] = []
    queue: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while queue and len(found) < limit:
        path, node = queue.pop(0)
        if path:
            found.append(path)
        if isinstance(node, dict):
            queue.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            queue.extend(((*path, i), v) for i, v in enumerate(node))
    return found


def mappings_in(value: Any) -> list[dict[str, Any]]:
    """Every mapping in a JSON value, depth first, the value itself included."""
    out: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.append(node)
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return out


def own_project(folder: Path) -> Path:
    """Make ``folder`` a project of its own (an empty ``spec/cube-codegen.yaml``): run from
    there, a command keeps its run state in ``<folder>/.cache/cube-codegen``, returned."""
    (folder / "spec").mkdir(exist_ok=True)
    (folder / "spec" / "cube-codegen.yaml").write_text("{}\n", encoding="utf-8")
    return folder / RUN_STATE


def refuse_calls(patch: Any, why: str, *targets: tuple[object, str]) -> None:
    """Replace each ``(owner, name)`` with a function that fails the test with ``why``: what a
    cache spares must not run (``patch`` is pytest's ``monkeypatch``)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(why)

    for owner, name in targets:
        patch.setattr(owner, name, refuse)


# --- small test documents: one builder, so a test states only what it is about ---------------


def openapi_document(
    paths: dict[str, Any] | None = None,
    *,
    schemas: dict[str, Any] | None = None,
    title: str = "t",
    openapi: str = "3.1.0",
    server: str | None = None,
) -> dict[str, Any]:
    """A minimal OpenAPI document: ``paths``, and ``schemas`` under components when given."""
    doc: dict[str, Any] = {"openapi": openapi, "info": {"title": title, "version": "1"}}
    if server is not None:
        doc["servers"] = [{"url": server}]
    doc["paths"] = paths or {}
    if schemas is not None:
        doc["components"] = {"schemas": schemas}
    return doc


def json_body(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``content`` of a JSON request or response body."""
    return {"application/json": {"schema": schema}}


def schema_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def parameter(
    name: str, where: str, schema: dict[str, Any] | None = None, *, required: bool | None = None
) -> dict[str, Any]:
    """One parameter; a path parameter is required, others optional unless said."""
    needed = where == "path" if required is None else required
    return {"name": name, "in": where, "required": needed, "schema": schema or {"type": "string"}}


def operation(
    operation_id: str,
    response: dict[str, Any] | None = None,
    *,
    status: str = "200",
    parameters: list[dict[str, Any]] | None = None,
    body: dict[str, Any] | None = None,
    **more: Any,
) -> dict[str, Any]:
    """An operation answering ``status`` with a JSON ``response`` schema (none: no content),
    taking ``parameters`` and a required JSON ``body`` schema when given; ``more`` adds
    members as they are (``tags``, ``summary``)."""
    answer: dict[str, Any] = {"description": "ok"}
    if response is not None:
        answer["content"] = json_body(response)
    op: dict[str, Any] = {"operationId": operation_id}
    if parameters is not None:
        op["parameters"] = parameters
    if body is not None:
        op["requestBody"] = {"required": True, "content": json_body(body)}
    return {**op, **more, "responses": {status: answer}}


class LibcWith:
    """The C library (``real``) with ``syncfs`` replaced (None: a system without it)."""

    def __init__(self, real: Any, syncfs: object) -> None:
        self._real = real
        self.syncfs = syncfs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def whole_tree_sync_or_skip(libc: Any) -> None:
    """Skip unless ``libc`` has ``syncfs`` and this kernel reports a failed write through it:
    elsewhere a staged tree is synced file by file (tested on its own)."""
    import pytest

    from generator.files import _syncfs_reports_errors

    if getattr(libc, "syncfs", None) is None:
        pytest.skip("this system has no syncfs (the per-file path is tested on its own)")
    if not _syncfs_reports_errors(os.uname().release):
        pytest.skip("this kernel syncs file by file (tested on its own)")
