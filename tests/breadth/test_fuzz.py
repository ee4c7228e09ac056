"""The fuzzer: every input gives a package that imports, or exit 2 with one line; nothing leaks.

Two properties, each over inputs hypothesis draws (:mod:`tests.breadth.fuzzing` builds them):

* documents built from nothing: hostile, unicode and reserved names (every name the templates
  bind among them: ``strict``, ``resolve_base_url``, ``cast``, ``Unknown``; as server variables
  too), nested schemas with length,
  range, pattern and enum constraints, `$ref`s to components with cycles and long chains, to
  files beside the document and to files a sandboxed run must not open, request encodings,
  several OpenAPI versions, written as JSON or YAML in several text encodings; now and then
  with run-state files planted as another user (or a cloned repository) could: intents and
  journals aimed at a victim folder outside the project, damaged journals, a lock that is a
  symbolic link, a short key, a forged compiled template carrying code;
* the project's own ``spec/*.yaml`` documents, cut to a few paths and the components they use,
  then damaged: keys deleted or renamed, `$ref`s retargeted or inserted, types changed,
  constraints blown up, nodes duplicated or swapped.

Each input runs ``cube-codegen generate`` in a fresh interpreter under an audit hook with memory
and CPU limits (``fuzz_child.py``). Required of every one: exit 0 with a generated package whose
every module imports, or exit 2 with exactly one line on stderr; never a traceback, a signal or
a hang past ``FUZZ_TIMEOUT`` seconds; no file opened outside the generator, the interpreter and
the example's own document folder (the modules the suite compiled are read, never written, from
its ``PYTHONPYCACHEPREFIX``); nothing written outside the output folder. The first
``FUZZ_LINT_SAMPLE`` packages of each property (default 1; ``FUZZ_HEAVY_LINT_SAMPLE``, default
2, in the sweep) also pass ``ruff check``, ``ruff format --check`` and ``mypy --strict``.

``make test`` runs a fixed budget (``FUZZ_EXAMPLES``, default 5 per property, derandomized so
every run tries the same inputs; the summary says how many started with planted run-state
files); ``make test-heavy`` (CI) sweeps further, also derandomized (``FUZZ_HEAVY_EXAMPLES``,
default 40 per property). ``make fuzz`` runs longer with fresh random inputs and
``FUZZ_COLLECT=1``: a failing input is recorded and the run goes on, and the figures (inputs
tried, exits, crashes, leaks, findings with their kept inputs, moved to ``FUZZ_FINDINGS``) are
printed at the end. ``FUZZ_SEED`` replays one random run; ``FUZZ_TIMEOUT`` (seconds, default
30) and ``FUZZ_MEMORY_MB`` (default 3072) bound each input.
"""

from __future__ import annotations

import collections
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.breadth import fuzzing
from tests.helpers import keep_mypy_cache, openapi_document, operation, seeded_mypy_cache

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))
HEAVY_EXAMPLES = int(os.environ.get("FUZZ_HEAVY_EXAMPLES", "40"))
COLLECT = os.environ.get("FUZZ_COLLECT", "") == "1"
LINT_SAMPLE = int(os.environ.get("FUZZ_LINT_SAMPLE", "1"))
HEAVY_LINT_SAMPLE = int(os.environ.get("FUZZ_HEAVY_LINT_SAMPLE", "2"))
SEED = os.environ.get("FUZZ_SEED", "")
FINDINGS = os.environ.get("FUZZ_FINDINGS", "")
# The linted packages' mypy cache, kept from the last passing lint of either property (every
# example's package has the same name and runtime: only what differs is checked again, as
# fuzzing.lint_problems makes sure)
MYPY_KEY = "fuzz-package"


def _fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=not COLLECT and not SEED,
        database=None,
        deadline=None,
        # a failing input is reported as drawn: shrinking would rerun the generator hundreds
        # of times
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


# The per-commit budget, and the longer sweep CI runs beside it (both derandomized: every run
# of each tries the same inputs); ``make fuzz`` sets its own budget on the first.
BUDGETS = [
    pytest.param("per-commit", marks=pytest.mark.slow),
    pytest.param("sweep", marks=pytest.mark.heavy),
]


def _budget(run: str) -> settings:
    if run == "per-commit":
        return _fuzz(EXAMPLES)
    if COLLECT:
        pytest.skip("make fuzz runs the per-commit property with its own FUZZ_EXAMPLES")
    return _fuzz(HEAVY_EXAMPLES)


class Tally:
    """The figures of one property's run, printed at its end."""

    def __init__(self, name: str, base: Path, lint_sample: int) -> None:
        self.name = name
        self.lint_sample = lint_sample
        self.base = base
        self.tried = 0
        self.planted = 0
        self.exits: collections.Counter[str] = collections.Counter()
        self.kinds: collections.Counter[str] = collections.Counter()
        self.findings: list[str] = []
        self.linted = 0
        self.mypy_cache = seeded_mypy_cache(base / "mypy-cache", MYPY_KEY)

    def folder(self) -> Path:
        return Path(tempfile.mkdtemp(prefix=f"{self.tried:05d}-", dir=self.base))

    def record(self, outcome: fuzzing.Outcome) -> None:
        self.tried += 1
        self.planted += "+ planted" in outcome.label
        self.exits["timeout" if outcome.rc is None else str(outcome.rc)] += 1
        problems = outcome.problems()
        if not problems and outcome.rc == 0 and self.linted < self.lint_sample:
            self.linted += 1
            problems = fuzzing.lint_problems(outcome, self.mypy_cache)
            if not problems:
                keep_mypy_cache(MYPY_KEY, self.mypy_cache)
        if not problems:
            fuzzing.clean(outcome)
            return
        for problem in problems:
            self.kinds[problem.split(":", 1)[0]] += 1
        if FINDINGS:  # keep the input where the next run's clean-up does not reach it
            kept = Path(FINDINGS).resolve() / f"{self.name.split()[0]}-{outcome.folder.name}"
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(outcome.folder, kept)
            outcome.folder = kept
        text = "\n  ".join(problems) + "\n" + outcome.describe()
        self.findings.append(text)
        if not COLLECT:
            raise AssertionError(text)

    def summary(self) -> str:
        lines = [
            f"fuzz {self.name}: {self.tried} inputs tried ({self.planted} with planted run "
            "state); exits " + ", ".join(f"{k}: {v}" for k, v in sorted(self.exits.items())),
            f"  crashes {self.kinds['crash'] + self.kinds['hang']}, "
            f"leaks {self.kinds['leak']}, import failures {self.kinds['import']}, "
            f"bad diagnostics {self.kinds['diagnostic']}, lint failures {self.kinds['lint']} "
            f"(of {self.linted} linted), packages missing {self.kinds['package']}",
        ]
        lines += [f"  finding {i + 1}: {text}" for i, text in enumerate(self.findings[:50])]
        return "\n".join(lines)


def _run(name: str, tmp_path: Path, run: str, prop: Callable[[Tally], None]) -> None:
    tally = Tally(name, tmp_path, LINT_SAMPLE if run == "per-commit" else HEAVY_LINT_SAMPLE)
    try:
        prop(tally)
    finally:
        print("\n" + tally.summary())
    assert tally.tried > 0
    assert not tally.findings, tally.summary()


def _seeded(test: Callable[..., None]) -> Callable[..., None]:
    if SEED:
        from hypothesis import seed

        return seed(int(SEED))(test)
    return test


@pytest.mark.parametrize("run", BUDGETS)
def test_built_documents_give_a_package_or_one_line(tmp_path: Path, run: str) -> None:
    budget = _budget(run)

    def prop(tally: Tally) -> None:
        @budget
        @_seeded
        @given(data=st.data())
        def one(data: st.DataObject) -> None:
            doc, files = fuzzing.build_document(data)
            main, raw, how = fuzzing.encode(data, doc)
            files = {**files, main: raw}
            plants = fuzzing.plant_run_state(data)
            outcome = fuzzing.run_example(
                tally.folder(), files, main, f"built ({how})", plants=plants
            )
            tally.record(outcome)

        one()

    _run("built documents", tmp_path, run, prop)


@pytest.mark.parametrize("run", BUDGETS)
def test_mutated_project_documents_give_a_package_or_one_line(tmp_path: Path, run: str) -> None:
    budget = _budget(run)

    def prop(tally: Tally) -> None:
        @budget
        @_seeded
        @given(data=st.data())
        def one(data: st.DataObject) -> None:
            base, origin = fuzzing.real_base(data)
            doc, changes = fuzzing.mutate_document(data, base)
            main, raw, how = fuzzing.encode(data, doc)
            files = {main: raw, "other.yaml": fuzzing.yaml.safe_dump(fuzzing.OTHER_DOC).encode()}
            label = f"mutated {origin} ({how}): {'; '.join(changes)}"
            tally.record(fuzzing.run_example(tally.folder(), files, main, label))

        one()

    _run("mutated documents", tmp_path, run, prop)


@pytest.mark.parametrize(
    ("ref", "note"),
    [
        ("link.yaml#/fuzz-canary", "a symlink in the document's folder leading out"),
        ("../secret.yaml#/fuzz-canary", "a file above the document's folder"),
        ("../../outside/canary.yaml#/fuzz-canary", "a file outside the project"),
        ("other.yaml#/Thing", "a file beside the document (allowed)"),
    ],
)
def test_the_harness_sees_what_a_run_reads(tmp_path: Path, ref: str, note: str) -> None:
    """The judge itself: a `$ref` the generator follows is logged where it leads."""
    doc = openapi_document({"/a": {"get": operation("getA", {"$ref": ref})}})
    files = {
        "api.json": fuzzing.json.dumps(doc).encode(),
        "other.yaml": fuzzing.yaml.safe_dump(fuzzing.OTHER_DOC).encode(),
    }
    outcome = fuzzing.run_example(tmp_path / "ex", files, "api.json", note)
    assert outcome.problems() == [], outcome.describe()
    assert outcome.rc == (0 if ref.startswith("other") else 2), outcome.describe()
    log = (tmp_path / "ex" / "audit.log").read_text(encoding="utf-8")
    assert "generator/cli/__init__.py" in log  # the hook saw the generator load
    assert ("other.yaml" in log) == ref.startswith("other"), note


def test_the_judge_flags_reads_and_writes_out_of_bounds(tmp_path: Path) -> None:
    """What the audit log shows outside the allowed folders is a leak; inside, it is not."""
    project = tmp_path / "project"
    (project / "spec").mkdir(parents=True)
    outside = tmp_path / "outside.yaml"
    outside.write_text("x: 1\n", encoding="utf-8")
    (project / "spec" / "link.yaml").symlink_to(outside)
    compiled = tmp_path / "pycache"  # the bytecode folder the child reads (PYTHONPYCACHEPREFIX)
    lines = [
        ["read", "open", str(project / "spec" / "api.yaml")],
        ["read", "open", str(fuzzing.ROOT / "generator" / "cli.py")],
        ["write", "open", str(project / "out" / "pkg" / "__init__.py")],
        ["write", "os.mkdir", str(project)],  # an existing parent of the output
        ["write", "os.rename", str(project / ".out.txn-abc")],
        ["read", "open", str(project / "spec" / "link.yaml")],  # leads out: a leak
        ["read", "open", str(project / "secret.yaml")],  # above the document's folder
        ["read", "os.listdir", "/etc"],
        ["write", "open", str(tmp_path / "elsewhere.txt")],
        ["write", "os.remove", str(project / "spec" / "api.yaml")],
        ["read", "open", str(project / "<string>")],  # a traceback's source lookup: no file
        ["read", "open", str(compiled / "x" / "generator" / "cli.cpython-311.pyc")],
        ["read", "open", str(compiled / "x" / "secret.yaml")],  # not compiled code: a leak
        ["read", "os.listdir", str(compiled)],  # the folder's listing: a leak too
    ]
    log = tmp_path / "audit.log"
    log.write_text("".join(fuzzing.json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    reads, writes = fuzzing._judge_log(log, project, str(compiled))
    assert reads == sorted(
        [
            f"{outside.resolve()} (open)",
            f"{(project / 'secret.yaml').resolve()} (open)",
            "/etc (os.listdir)",
            f"{(compiled / 'x' / 'secret.yaml').resolve()} (open)",
            f"{compiled.resolve()} (os.listdir)",
        ]
    )
    assert writes == sorted(
        [
            f"{(tmp_path / 'elsewhere.txt').resolve()} (open)",
            f"{(project / 'spec' / 'api.yaml').resolve()} (os.remove)",
        ]
    )
