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
generated file regenerates too.

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
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator import GENERATOR_DIR, TEMPLATES, __version__, runstate
from generator.emit.writer import TOOL_CACHES

if TYPE_CHECKING:
    from generator.document.config import Config

MANIFESTS = "manifests"  # in the run state
MANIFEST_VERSION = 2  # 2: the manifest lists every named input ("named")
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


def _walk(root: Path, skip: frozenset[str], suffix: str = "", prune: str = "") -> list[Path]:
    """Files under ``root`` (not in ``skip`` folders, nor under the absolute folder ``prune``)."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip and os.path.join(dirpath, d) != prune]
        found.extend(Path(dirpath, f) for f in filenames if f.endswith(suffix))
    return found


def _inputs_in(folder: Path, out_dir: str, suffix: str = "") -> list[Path]:
    return [
        p
        for p in _walk(folder, TOOL_CACHES, suffix, prune=out_dir)
        if not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ]


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
    config_path = Path(os.path.abspath(config_path))
    out = os.path.abspath(out_dir)
    h = hashlib.sha256()
    h.update(
        json.dumps(
            {
                "manifest": MANIFEST_VERSION,
                "generator": __version__,
                "python": list(sys.version_info[:2]),
                "tools": _tool_versions(),
                "config": str(config_path),
            },
            sort_keys=True,
        ).encode()
    )
    groups = (
        ("spec", config_path.parent, _inputs_in(config_path.parent, out)),
        ("named", Path("/"), [Path(p) for p in named]),
        ("templates", TEMPLATES_DIR, _inputs_in(TEMPLATES_DIR, out)),
        ("generator", GENERATOR_DIR, _inputs_in(GENERATOR_DIR, out, ".py")),
    )
    for label, root, files in groups:
        h.update(f"\0{label}\0".encode())
        for path in sorted(files):
            h.update(os.path.relpath(path, root).encode() + b"\0")
            data = _input_bytes(path)
            h.update(len(data).to_bytes(8, "big") + data)
    return "sha256:" + h.hexdigest()


def _input_bytes(path: Path) -> bytes:
    """An input's bytes; a missing file, a device or a pipe is a marker (never read: the full
    run refuses it, and reading ``/dev/zero`` or a pipe would not end)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b"\0not-a-file"
        return path.read_bytes()
    except OSError:  # a missing input: the full run reports it
        return b"\0missing"


def _tree_hash(files: Iterable[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for rel, data in sorted(files):
        h.update(rel.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return "sha256:" + h.hexdigest()


def tree_hash(out_dir: Path) -> str:
    """sha256 over the relative path and bytes of every file ``check`` compares in ``out_dir``."""
    from generator.emit.writer import read_tree  # standard library only

    out = Path(os.path.abspath(out_dir))
    return _tree_hash(read_tree(out).items()) if out.is_dir() else ""


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


class Stamp:
    """The key of one project-mode run, taken before it reads its inputs."""

    def __init__(self, config_path: Path, config: Config) -> None:
        self.config_path = config_path
        self.out_dir = config.out_dir
        self.named = named_inputs(config)
        self.key = input_key(config_path, self.out_dir, self.named)

    def fresh(self) -> bool:
        return is_fresh(self.out_dir, self.key)

    def save(self, files: Mapping[str, str]) -> None:
        """Record the key and the tree just written (``files``, keyed relative to ``out_dir``)."""
        manifest = {
            "manifest": MANIFEST_VERSION,
            "config": os.path.abspath(self.config_path),
            "named": self.named,
            "key": self.key,
            "tree": _tree_hash((rel, text.encode("utf-8")) for rel, text in files.items()),
        }
        path = manifest_path(self.out_dir)
        try:
            runstate.private_dir(path.parent.parent, MANIFESTS)
            runstate.write_private(path, (json.dumps(manifest, indent=2) + "\n").encode())
        except OSError:  # a cache that cannot be written only costs the next run its shortcut
            pass


def is_fresh(out_dir: Path, key: str) -> bool:
    """True when the manifest beside ``out_dir`` holds ``key`` and the tree is as written."""
    if os.environ.get(DISABLE_ENV):
        return False
    manifest = _read_manifest(out_dir)
    return (
        bool(manifest.get("key"))
        and manifest["key"] == key
        and (manifest.get("tree") == tree_hash(out_dir))
    )


def up_to_date(config_path: Path, out_dir: Path) -> bool:
    """The fast path: the manifest's list of named inputs, the configuration unparsed."""
    manifest = _read_manifest(out_dir)
    if manifest.get("config") != os.path.abspath(config_path):
        return False
    named = manifest.get("named")
    if not isinstance(named, list) or not all(isinstance(p, str) for p in named):
        return False
    return is_fresh(out_dir, input_key(config_path, out_dir, named))


def message(out_dir: Path) -> str:
    return f"{out_dir} is up to date (inputs unchanged since the last run); nothing to do"
