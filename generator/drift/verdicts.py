"""Verdicts by construction: whether code written against the old package still type-checks
against the new one is decided by type-checking it, not by rule.

The old package's honest callers (:mod:`generator.drift.callers`) are rendered from its IR and
checked with ``mypy --strict`` (the new package's own settings and pydantic plugin) against the
new package, written to a scratch folder inside the project. Each surface's verdict is whether
its caller has an error; the drift rules keep explaining why in OpenAPI terms. A surface that
breaks because it was renamed names its replacement.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from generator import runstate
from generator.drift.callers import Call, calls
from generator.emit.render import render
from generator.ir.types import Family, Model, ModelKind, Package, ValueModel
from generator.transaction import scratch

MYPY_FOLDER = "mypy"  # in the run state: mypy's cache, kept from one run's verdicts to the next

_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+): error: (?P<message>.*?)(?:  \[[a-z-]+\])?$")
MYPY_TIMEOUT = 600.0


@dataclass(frozen=True, slots=True)
class Verdict:
    family: str
    call: Call
    errors: tuple[str, ...] = ()  # mypy's messages for the caller; none: it still type-checks
    renamed_to: str = ""  # the surface of the new package that replaces a renamed one

    @property
    def type_checks(self) -> bool:
        return not self.errors

    @property
    def python(self) -> str:
        return self.call.python

    @property
    def fingerprint(self) -> str:
        """Stable across runs and documents: what a waiver names."""
        key = f"{self.family}\n{self.call.kind}\n{self.call.python}"
        return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class Verdicts:
    verdicts: list[Verdict]
    added: list[tuple[str, str]] = field(default_factory=list)  # (family, surface) new only
    seconds: float = 0.0

    @property
    def broken(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.type_checks]


def judge(old: Package, new: Package, new_files: dict[str, str]) -> Verdicts:
    """Type-check the callers of every surface of ``old`` against ``new`` (its generated
    ``new_files``); scratch files and mypy's cache live in the private run state
    (:mod:`generator.runstate`)."""
    started = time.perf_counter()
    with scratch("verdicts") as tmp:
        root = _write_package(new_files, Path(tmp) / "new")
        checked: list[tuple[Family, list[Call], Path, list[int]]] = []
        for i, family in enumerate(old.families):
            family_calls = calls(family)
            path = Path(tmp) / "callers" / f"_callers_{i}.py"
            starts = _write_callers(old, family, family_calls, path)
            checked.append((family, family_calls, path, starts))
        errors = _mypy(root, [c[2] for c in checked])
    verdicts: list[Verdict] = []
    by_name = {f.name: f for f in new.families}
    for family, family_calls, path, starts in checked:
        owned = _by_caller(errors.get(path.name, {}), starts)
        for i, call in enumerate(family_calls):
            messages = owned[-1] + owned[i]  # an error above every caller (an import) is theirs
            renamed = _renamed(call, by_name.get(family.name)) if messages else ""
            verdicts.append(Verdict(family.name, call, tuple(messages), renamed))
    added = list(_added(old, new))
    return Verdicts(verdicts, added, time.perf_counter() - started)


def _by_caller(found: dict[int, list[str]], starts: list[int]) -> dict[int, list[str]]:
    """mypy's messages by the index of the caller whose lines hold them (-1: above them all)."""
    owned: dict[int, list[str]] = defaultdict(list)
    for line, messages in sorted(found.items()):
        owned[bisect.bisect_right(starts, line) - 1] += messages
    return owned


def _write_package(files: dict[str, str], folder: Path) -> Path:
    """The new distribution on disk; returns its folder (the one holding pyproject.toml)."""
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    tops = sorted(folder / rel.split("/", 1)[0] for rel in files if rel.count("/") == 1)
    return next((t for t in tops if (t / "pyproject.toml").is_file()), folder)


def _write_callers(
    package: Package, family: Family, family_calls: list[Call], path: Path
) -> list[int]:
    """Render the callers module; returns the line of each caller's ``def``, in call order."""
    pkg = package.name
    family_import = f"{pkg}.{family.module}" if family.module else pkg
    text = render(
        "verdicts/callers.py.jinja",
        pkg=pkg,
        family=family,
        family_import=family_import,
        calls=family_calls,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    lines = {m.group(1): n for n, m in _defs(text)}
    return [lines[str(i)] for i in range(len(family_calls))]


def _defs(text: str) -> Iterable[tuple[int, re.Match[str]]]:
    for n, line in enumerate(text.splitlines(), 1):
        match = re.match(r"def _c(\d+)\(", line)
        if match:
            yield n, match


def _mypy(root: Path, files: list[Path]) -> dict[str, dict[int, list[str]]]:
    """mypy's errors by file name and line, with the new package's own configuration."""
    cache = runstate.folder(MYPY_FOLDER)  # owner-only: no one can plant a cached verdict
    args = [
        sys.executable, "-m", "mypy",
        "--config-file", str(root / "pyproject.toml"),
        "--cache-dir", str(cache),
        "--no-error-summary", "--no-pretty", "--hide-error-context", "--no-color-output",
        *(str(f) for f in files),
    ]  # fmt: skip
    env = {**os.environ, "MYPYPATH": str(root)}
    proc = subprocess.run(
        args, cwd=files[0].parent, env=env, capture_output=True, text=True,
        timeout=MYPY_TIMEOUT, check=False,
    )  # fmt: skip
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"mypy failed: {(proc.stderr or proc.stdout).strip()[:300]}")
    found: dict[str, dict[int, list[str]]] = {}
    for line in proc.stdout.splitlines():
        match = _ERROR.match(line)
        if match:
            name = Path(match.group("file")).name
            found.setdefault(name, {}).setdefault(int(match.group("line")), []).append(
                match.group("message")
            )
    return found


def _added(old: Package, new: Package) -> Iterable[tuple[str, str]]:
    """Surfaces the new package has and the old one has not: what a minor release adds."""
    before = {f.name: {c.python for c in calls(f)} for f in old.families}
    for family in new.families:
        known = before.get(family.name, set())
        seen: set[str] = set()
        for call in calls(family):
            if call.python not in known and call.python not in seen:
                seen.add(call.python)
                yield family.name, call.python


def _renamed(call: Call, new: Family | None) -> str:
    """The new package's surface that replaces a broken one, when it was renamed: the same HTTP
    operation under another method or resource, or a model of the same fields under another
    class name."""
    if new is None:
        return ""
    if call.op is not None and call.resource is not None:
        key = (call.op.method, call.op.path)
        same = f"client.{call.resource.attr}.{call.op.py_name}"
        for resource in new.resources:
            for op in resource.operations:
                if (op.method, op.path) == key:
                    moved = f"client.{resource.attr}.{op.py_name}"
                    return "" if moved == same else moved
    if call.kind == "resource" and call.resource is not None:
        return _resource_renamed(call, new)
    if call.kind == "model" and call.model is not None:
        twin = _model_twin(call.model, new.models)
        return f"models.{twin}" if twin else ""
    return ""


def _resource_renamed(call: Call, new: Family) -> str:
    assert call.resource is not None
    keys = {(op.method, op.path) for op in call.resource.operations}
    for resource in new.resources:
        if keys and keys <= {(op.method, op.path) for op in resource.operations}:
            return f"client.{resource.attr}"
    return ""


def _model_twin(model: ModelKind, models: tuple[ModelKind, ...]) -> str:
    """A class of the new package with the same wire fields (or the same value type)."""

    def shape(m: ModelKind) -> object:
        if isinstance(m, Model):
            return frozenset((f.name, f.required) for f in m.fields)
        return ("value", str(m.type)) if isinstance(m, ValueModel) else None

    wanted = shape(model)
    if wanted in (frozenset(), None):
        return ""
    twins = [m.name for m in models if m.name != model.name and shape(m) == wanted]
    return twins[0] if len(twins) == 1 else ""
