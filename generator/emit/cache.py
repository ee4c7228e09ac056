"""The no-op cache of ``cube-codegen generate``: unchanged inputs and an intact tree skip the run.

The key is a sha256 over every input's bytes: every file in the configuration's folder (the
configuration itself, the family documents, overlays, changelog and any file they ``$ref``
there; hidden files aside), every document, overlay and changelog the configuration names
wherever it is, every file under ``templates/``, every ``.py`` file under ``generator/``, the
Python minor version, the versions
of the tools that shape output (ruff, pydantic, jinja2) and the
generator version. A manifest in the private run state (``manifests/<name>-<hash of the output
path>.json``, :mod:`generator.runstate`; outside the generated tree, so ``check`` never sees
it) holds the key and a sha256 of the tree written, so a hand-edited, added or deleted
generated file regenerates too. It also holds the stat records of every input and generated
file (:mod:`generator.emit.file_stats`): a no-op run reads and hashes them only when a record
no longer holds (an edit changes the change time even when it keeps the size and restores the
modification time), and records them again when it found them unchanged.

The ``generate`` command asks :func:`up_to_date` before its heavy imports: this module imports the
standard library only (no yaml, pydantic, jinja2, pipeline), and the
fast path never parses the configuration: the files it names are listed in the manifest, and the
configuration's own bytes are part of the key.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from generator import GENERATOR_DIR, TEMPLATES, __version__, runstate
from generator.emit import file_stats
from generator.emit.tree_files import TOOL_CACHES, is_tool_artifact

# typing.TYPE_CHECKING without importing typing (a few milliseconds of every no-op run); type
# checkers take any name TYPE_CHECKING as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from generator.document.config import Config

MANIFESTS = "manifests"  # in the run state
MANIFEST_VERSION = 3  # 2: the manifest lists every named input ("named"); 3: stat records
DISABLE_ENV = "CUBE_CODEGEN_NO_CACHE"  # set to a non-empty value to always regenerate
TEMPLATES_DIR = TEMPLATES
# Distributions whose version changes the generated text.
TOOLS = ("ruff", "pydantic", "jinja2")
# Caches that tools leave beside the inputs; never inputs.


def manifest_path(out_dir: Path) -> Path:
    out = os.path.abspath(out_dir)
    top, _ = runstate.locate()
    digest = hashlib.sha256(os.fsencode(out)).hexdigest()[:16]
    return top / MANIFESTS / f"{os.path.basename(out)}-{digest}.json"


def _inputs_in(folder: Path, out_dir: str, suffix: str = "") -> list[str]:
    """Files under ``folder`` ending in ``suffix``: none hidden or in a hidden folder, none in
    a tool cache or in the output folder ``out_dir`` (absolute)."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [
            d
            for d in dirnames
            if d[:1] != "." and d not in TOOL_CACHES and os.path.join(dirpath, d) != out_dir
        ]
        found.extend(
            os.path.join(dirpath, f) for f in filenames if f[:1] != "." and f.endswith(suffix)
        )
    return found


def _tool_versions() -> dict[str, str]:
    """Versions from the ``*.dist-info`` folder names on ``sys.path`` (no importlib.metadata)."""
    versions: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith(".dist-info"):
                continue
            dist, _, version = name[: -len(".dist-info")].partition("-")
            dist = dist.lower().replace("-", "_").replace(".", "_")
            if dist in TOOLS and dist not in versions:
                versions[dist] = version
    return versions


def input_key(config_path: Path, out_dir: Path, named: Iterable[str] = ()) -> str:
    """sha256 of every input; ``named``: the files the configuration names (absolute paths).

    Hidden files and folders, tool caches and the output folder itself are not inputs.
    """
    return _hash_inputs(*_key_inputs(config_path, out_dir, named))


def _key_inputs(
    config_path: Path, out_dir: Path, named: Iterable[str]
) -> tuple[str, list[tuple[str, Path, list[str]]]]:
    """What the key covers: the settings (as JSON) and the input files, in groups."""
    config_path = Path(os.path.abspath(config_path))
    out = os.path.abspath(out_dir)
    settings = {
        "manifest": MANIFEST_VERSION,
        "generator": __version__,
        "python": list(sys.version_info[:2]),
        "tools": _tool_versions(),
        "config": str(config_path),
    }
    groups = [
        ("spec", config_path.parent, _inputs_in(config_path.parent, out)),
        ("named", Path("/"), list(named)),
        ("templates", TEMPLATES_DIR, _inputs_in(TEMPLATES_DIR, out)),
        ("generator", GENERATOR_DIR, _inputs_in(GENERATOR_DIR, out, ".py")),
    ]
    return json.dumps(settings, sort_keys=True), groups


def _hash_inputs(settings: str, groups: list[tuple[str, Path, list[str]]]) -> str:
    h = hashlib.sha256()
    h.update(settings.encode())
    for label, root, files in groups:
        h.update(f"\0{label}\0".encode())
        for path in sorted(files):
            h.update(os.path.relpath(path, root).encode() + b"\0")
            data = _input_bytes(path)
            h.update(len(data).to_bytes(8, "big") + data)
    return "sha256:" + h.hexdigest()


def _keyed(
    config_path: Path, out_dir: Path, named: Iterable[str], manifest: Mapping[str, Any]
) -> tuple[str, dict[str, Any], bool]:
    """The key, the inputs' stat records (taken before any input is read) and whether the
    inputs were hashed: the manifest's key when its records of the same settings still hold."""
    taken = time.time_ns()
    settings, groups = _key_inputs(config_path, out_dir, named)
    inputs = file_stats.records(sorted({p for _, _, files in groups for p in files}))
    stats = {"taken": taken, "settings": settings, "inputs": inputs}
    old = manifest.get("stats")
    old = old if isinstance(old, dict) else {}
    if (
        old.get("settings") == settings
        and isinstance(manifest.get("key"), str)
        and file_stats.trusted(old.get("inputs"), inputs, old.get("taken"))
    ):
        return manifest["key"], stats, False
    return _hash_inputs(settings, groups), stats, True


def _input_bytes(path: str) -> bytes:
    """An input's bytes; a missing file, a device or a pipe is a marker (never read: the full
    run refuses it, and reading ``/dev/zero`` or a pipe would not end)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b"\0not-a-file"
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:  # a missing input: the full run reports it
        return b"\0missing"


def _tree_hash(files: Iterable[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for rel, data in sorted(files):
        h.update(rel.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return "sha256:" + h.hexdigest()


def tree_hash(out_dir: Path, records: Mapping[str, object] | None = None) -> str:
    """sha256 over the relative path and bytes of every file ``check`` compares in ``out_dir``.

    ``records``: that tree's stat records, just taken (:func:`_tree_records`); their names are
    those files, so they are read by name, with no second walk and without importing the
    writer (a no-op run that must read the tree, as the first after a generation does, spends
    its time reading, not walking paths)."""
    out = os.path.abspath(out_dir)
    if records is not None:
        return _tree_hash(_read_named(out, records))
    from generator.emit.writer import read_tree

    return _tree_hash(read_tree(Path(out)).items()) if os.path.isdir(out) else ""


def _read_named(out: str, names: Iterable[str]) -> Iterable[tuple[str, bytes]]:
    for rel in names:
        with open(os.path.join(out, rel), "rb") as f:
            yield rel, f.read()


def _read_manifest(out_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads(runstate.read_private(manifest_path(out_dir)) or b"")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def named_inputs(config: Config) -> list[str]:
    """Absolute paths of the documents, overlays and changelog ``config`` names."""
    base = Path(os.path.abspath(config.base_dir))
    names = [f.document for f in config.families] + [o for f in config.families for o in f.overlays]
    if config.package.changelog:
        names.append(config.package.changelog)
    return sorted({os.path.abspath(base / n) for n in names})


def _tree_records(out_dir: Path) -> dict[str, file_stats.Record] | None:
    """Stat records of the files ``check`` compares in ``out_dir`` (None: read it instead)."""
    out = os.path.abspath(out_dir)
    try:
        return file_stats.tree_records(out, is_tool_artifact) if os.path.isdir(out) else None
    except OSError:
        return None


class Stamp:
    """The key of one project-mode run, taken before it reads its inputs."""

    def __init__(self, config_path: Path, config: Config) -> None:
        self.config_path = config_path
        self.out_dir = config.out_dir
        self.named = named_inputs(config)
        self.key, self.input_stats, _ = _keyed(config_path, self.out_dir, self.named, {})

    def fresh(self) -> bool:
        return is_fresh(self.out_dir, self.key)

    def save(self, files: Mapping[str, str]) -> None:
        """Record the key and the tree just written (``files``, keyed relative to ``out_dir``)
        with the stat records of both."""
        tree = _tree_hash((rel, text.encode("utf-8")) for rel, text in files.items())
        taken = time.time_ns()
        records = _tree_records(self.out_dir)
        if records is not None and set(records) != set(files):
            records = None  # not the tree just written: the next run reads it
        _save(self.config_path, self.out_dir, self.named, self.key, tree, self.input_stats,
              {"taken": taken, "files": records})  # fmt: skip


def _save(
    config_path: Path,
    out_dir: Path,
    named: list[str],
    key: str,
    tree: str,
    inputs: dict[str, Any],
    tree_stats: dict[str, Any],
) -> None:
    manifest = {
        "manifest": MANIFEST_VERSION,
        "config": os.path.abspath(config_path),
        "named": named,
        "key": key,
        "tree": tree,
        "stats": {**inputs, "tree": tree_stats},
    }
    path = manifest_path(out_dir)
    try:
        runstate.private_dir(path.parent.parent, MANIFESTS)
        runstate.write_private(path, json.dumps(manifest).encode() + b"\n")
    except OSError:  # a cache that cannot be written only costs the next run its shortcut
        pass


def is_fresh(out_dir: Path, key: str) -> bool:
    """True when the manifest beside ``out_dir`` holds ``key`` and the tree is as written."""
    return _fresh(out_dir, key, _read_manifest(out_dir), _tree_records(out_dir))[0]


def _fresh(
    out_dir: Path, key: str, manifest: Mapping[str, Any], current: dict[str, Any] | None
) -> tuple[bool, bool]:
    """(fresh, whether the tree was read to tell): the tree's stat records (``current``, taken
    before any read), when they are still the recorded ones, stand for reading and hashing it."""
    if os.environ.get(DISABLE_ENV) or not manifest.get("key") or manifest["key"] != key:
        return False, False
    stats = manifest.get("stats")
    old = stats.get("tree") if isinstance(stats, dict) else None
    if isinstance(old, dict) and current is not None:
        if file_stats.trusted(old.get("files"), current, old.get("taken")):
            return True, False
    return manifest.get("tree") == tree_hash(out_dir, current), True


def up_to_date(config_path: Path, out_dir: Path) -> bool:
    """The fast path: the manifest's list of named inputs, the configuration unparsed. A run
    that had to read inputs or the tree to find them unchanged records their stats again, so
    the next one need not."""
    manifest = _read_manifest(out_dir)
    if manifest.get("config") != os.path.abspath(config_path):
        return False
    named = manifest.get("named")
    if not isinstance(named, list) or not all(isinstance(p, str) for p in named):
        return False
    key, inputs, hashed = _keyed(config_path, out_dir, named, manifest)
    taken = time.time_ns()
    records = _tree_records(out_dir)
    fresh, read = _fresh(out_dir, key, manifest, records)
    if fresh and (hashed or read) and records is not None:
        tree = {"taken": taken, "files": records}
        if file_stats.trusted(records, records, taken) and file_stats.trusted(
            inputs["inputs"], inputs["inputs"], inputs["taken"]
        ):
            _save(config_path, out_dir, named, key, manifest["tree"], inputs, tree)
    return fresh


def message(out_dir: Path) -> str:
    return f"{out_dir} is up to date (inputs unchanged since the last run); nothing to do"
