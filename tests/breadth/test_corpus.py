"""Every OpenAPI document in the shared corpus gives a clean, typed, importable package.

Documents are found under ``<shared>/specs``: every YAML/JSON file whose top level is an OpenAPI
(or Swagger) root; files that only hold schemas for a multi-file document are not entry points.
Each is generated through the CLI (two fresh interpreters, each running its half of the command
lines: :mod:`tests.cli_batch`), then all packages are checked together: one ``ruff check``, one
``ruff format --check`` (each package's own pyproject.toml applies), one import run, and one
``mypy --strict`` run over packages side by side: over :data:`TYPED_SAMPLE` in ``make test``,
over every package in ``make test-heavy``.

* Swagger 2.0 documents must be refused with exit 2 and a one-line message saying so.
* ``documents_with_errors/`` must exit 2 with one line, or give a package with warnings.
* Everything else must exit 0 with no operation skipped.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.diagnostics import CodegenError
from generator.document.loader import load_document
from tests.cli_batch import run_cli_batch
from tests.helpers import keep_mypy_cache, seeded_mypy_cache
from tests.kept_trees import kept_tree

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
CLI = [sys.executable, "-m", "generator"]
TIMEOUT = 600


@dataclass
class Outcome:
    doc: Path
    rel: str
    package: str
    out: Path
    returncode: int
    stderr: str
    report: dict[str, Any] | None


def corpus_documents(specs: Path) -> list[Path]:
    """Entry documents: files whose top level has ``openapi`` or ``swagger``."""
    found = []
    for path in sorted(specs.rglob("*")):
        if not path.is_file() or path.suffix.lower() not in (".yaml", ".yml", ".json"):
            continue
        try:
            doc = load_document(path)
        except CodegenError:
            continue
        if isinstance(doc, dict) and ("openapi" in doc or "swagger" in doc):
            found.append(path)
    return found


def _package_name(index: int, rel: str) -> str:
    # short: the generated README's example import line must stay within 100 columns
    slug = re.sub(r"[^a-z0-9]+", "_", Path(rel).stem.lower()).strip("_")
    return f"c{index:02d}_{slug[:10].strip('_')}"


def _commands(index: int, doc: Path, specs: Path, work: Path) -> tuple[str, str, list[str]]:
    rel = str(doc.relative_to(specs))
    package = _package_name(index, rel)
    out, report = work / "dists" / package, work / "reports" / f"{package}.json"
    args = ["generate", "--spec", str(doc), "--out", str(out), "--package", package]
    return rel, package, [*args, "--report", str(report)]


def generate_all(docs: list[Path], specs: Path, work: Path) -> list[Outcome]:
    """Every document through ``cube-codegen generate``: in two fresh interpreters (two at a
    time, as on two cores), each running its half of the command lines one after the other."""
    (work / "reports").mkdir(parents=True, exist_ok=True)
    runs = [_commands(i, doc, specs, work) for i, doc in enumerate(docs)]
    halves = [runs[0::2], runs[1::2]]
    with ThreadPoolExecutor(2) as pool:
        answers = list(
            pool.map(lambda h: run_cli_batch([r[2] for r in h], timeout=TIMEOUT), halves)
        )
    answered = {
        run[1]: answer
        for half, got in zip(halves, answers, strict=True)
        for run, answer in zip(half, got, strict=True)
    }
    outcomes = []
    for doc, (rel, package, _) in zip(docs, runs, strict=True):
        code, stderr = answered[package]
        report = work / "reports" / f"{package}.json"
        data = json.loads(report.read_text()) if code == 0 and report.is_file() else None
        outcomes.append(Outcome(doc, rel, package, work / "dists" / package, code, stderr, data))
    return outcomes


@pytest.fixture(scope="module")
def corpus(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    specs = shared_dir / "specs"
    docs = corpus_documents(specs)
    if not docs:
        pytest.skip(f"no OpenAPI documents under {specs}")
    outcomes = generate_all(docs, specs, tmp_path_factory.mktemp("corpus"))
    for o in outcomes:
        if o.report is not None:
            r = o.report
            print(
                f"{o.rel}: {r['operations_generated']}/{r['operations_total']} operations, "
                f"{len(r['skipped'])} skipped, {len(r['diagnostics'])} diagnostics"
            )
        else:
            print(f"{o.rel}: exit {o.returncode}: {o.stderr.strip()[:160]}")
    return outcomes


def _kind(o: Outcome) -> str:
    if "documents_with_errors" in o.doc.parts:
        return "invalid"
    doc = load_document(o.doc)
    if _names_a_missing_file(doc, o.doc.parent):
        return (
            "invalid"  # a $ref to a file the suite does not hold: broken, like a missing component
        )
    return "swagger" if "swagger" in doc else "openapi"


def _names_a_missing_file(node: Any, folder: Path) -> bool:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and not ref.startswith(("#", "http:", "https:")):
                if not (folder / ref.split("#", 1)[0]).is_file():
                    return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _assert_one_clean_line(o: Outcome) -> None:
    assert o.returncode == 2, f"{o.rel}: exit {o.returncode}\n{o.stderr}"
    assert "Traceback" not in o.stderr, f"{o.rel}:\n{o.stderr}"
    lines = o.stderr.strip().splitlines()
    assert len(lines) == 1, f"{o.rel}:\n{o.stderr}"
    assert lines[0].startswith("cube-codegen: ") and str(o.doc) in lines[0], lines[0]


@pytest.mark.slow
def test_refused_documents_say_why_in_one_line(corpus: list[Outcome]) -> None:
    for o in corpus:
        kind = _kind(o)
        if kind == "swagger":
            _assert_one_clean_line(o)
            assert "Swagger 2.0 is not supported" in o.stderr
        elif kind == "invalid" and o.returncode != 0:
            _assert_one_clean_line(o)
        elif kind == "invalid":
            assert o.report is not None
            levels = {d["level"] for d in o.report["diagnostics"]}
            assert "warning" in levels, f"{o.rel}: generated without a warning"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def _packages(corpus: list[Outcome]) -> tuple[list[Outcome], list[str]]:
    """The outcomes that must be packages (every one but the refused), and what went wrong."""
    failures = []
    packages: list[Outcome] = []
    for o in corpus:
        kind = _kind(o)
        if kind == "swagger" or (kind == "invalid" and o.returncode != 0):
            continue
        if o.returncode != 0:
            failures.append(f"{o.rel}: exit {o.returncode}: {o.stderr.strip()}")
            continue
        assert o.report is not None
        if o.report["skipped"]:
            failures.append(f"{o.rel}: skipped {o.report['skipped'][:3]}")
        packages.append(o)
    assert packages, "nothing generated"
    return packages, failures


def _side_by_side(packages: list[Outcome], folder: Path) -> Path:
    folder.mkdir()
    for o in packages:
        (folder / o.package).symlink_to(o.out / o.package, target_is_directory=True)
    return folder


def _mypy_problems(packages: list[Outcome], tmp_path: Path, key: str) -> list[str]:
    """One ``mypy --strict`` run over ``packages`` side by side, with the generated settings."""
    side = _side_by_side(packages, tmp_path / "side")
    proc = _run(
        [
            str(BIN / "mypy"),
            "--config-file",
            str(packages[0].out / "pyproject.toml"),
            "--cache-dir",
            str(seeded_mypy_cache(tmp_path / "mypy-cache", key)),
            *[o.package for o in packages],
        ],
        side,
    )
    if proc.returncode != 0:
        return [f"mypy:\n{proc.stdout[-6000:]}{proc.stderr[-2000:]}"]
    keep_mypy_cache(key, tmp_path / "mypy-cache")
    return []


# The corpus documents whose packages ``make test`` type-checks (``make test-heavy`` checks
# them all; each package carries its own copy of the runtime, so a package costs mypy about a
# CPU second, the large one ten): the peers' documents written to stress typing (discriminated,
# recursive and mutually recursive unions, names that shadow builtins and each other, consts,
# tuples, allOf over oneOf, aliases), a broad baseline, webhooks, and a document with errors
# that still gives a package.
TYPED_SAMPLE = (
    "peer-suites/openapi-python-client/baseline_openapi_3.0.json",
    "peer-suites/openapi-python-client/documents_with_errors/invalid-uuid-defaults.yaml",
    "peer-suites/datamodel-code-generator/discriminator_external_mapping/openapi.yaml",
    "peer-suites/datamodel-code-generator/openapi_discriminated_oneof_allof_cycle.json",
    "peer-suites/datamodel-code-generator/type_alias_mutual_recursive.yaml",
    "peer-suites/datamodel-code-generator/builtin_type_field_names.yaml",
    "peer-suites/datamodel-code-generator/module_class_name_collision/openapi.json",
    "peer-suites/datamodel-code-generator/const_optional_values_31.yaml",
    "peer-suites/datamodel-code-generator/fixed_length_array_tuples.yaml",
    "peer-suites/datamodel-code-generator/allof_with_oneof_ref.yaml",
    "peer-suites/datamodel-code-generator/alias.yaml",
    "small/v3.1/webhook-example.yaml",
)


@pytest.mark.slow
def test_corpus_packages_are_clean_and_importable_and_a_sample_typed(
    corpus: list[Outcome], tmp_path: Path
) -> None:
    """Every package passes ruff and imports; the sample passes ``mypy --strict``."""
    packages, failures = _packages(corpus)
    dists = packages[0].out.parent
    for args in (
        [str(BIN / "ruff"), "check", "--no-cache", "--quiet", "."],
        [str(BIN / "ruff"), "format", "--check", "--no-cache", "--quiet", "."],
    ):
        proc = _run(args, dists)
        if proc.returncode != 0:
            failures.append(f"{' '.join(args[1:3])}:\n{(proc.stdout + proc.stderr)[-4000:]}")

    sample = [o for o in packages if o.rel in TYPED_SAMPLE]
    assert len(sample) == len(TYPED_SAMPLE), sorted(set(TYPED_SAMPLE) - {o.rel for o in sample})
    failures += _mypy_problems(sample, tmp_path, "corpus-sample")

    importer = (
        "import importlib, pkgutil, sys\n"
        "bad = []\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        pkg = importlib.import_module(name)\n"
        "        for m in pkgutil.walk_packages(pkg.__path__, name + '.'):\n"
        "            importlib.import_module(m.name)\n"
        "    except Exception as exc:\n"
        "        bad.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    # the generated bytes at paths kept from run to run: unchanged modules are not compiled again
    with kept_tree("corpus", [o.out / o.package for o in packages]) as side:
        proc = _run([sys.executable, "-c", importer, *[o.package for o in packages]], side)
    if proc.returncode != 0:
        failures.append(f"import:\n{proc.stdout[-4000:]}{proc.stderr[-2000:]}")

    assert not failures, "\n".join(failures)


@pytest.mark.heavy
def test_corpus_packages_are_typed(corpus: list[Outcome], tmp_path: Path) -> None:
    """Every package passes ``mypy --strict`` (one run over all, side by side)."""
    packages, failures = _packages(corpus)
    failures += _mypy_problems(packages, tmp_path, "corpus")
    assert not failures, "\n".join(failures)


def _operations(doc: Path) -> int:
    paths = load_document(doc).get("paths")
    methods = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
    if not isinstance(paths, dict):
        return 0
    return sum(1 for item in paths.values() if isinstance(item, dict) for m in methods if m in item)
