"""The maintainer's flow on the service's own published documents, end to end.

Each published document is served over loopback HTTPS (trustme) the way a tenant serves its own,
fetched with ``cube-codegen fetch`` into a copy of the project, and generated. The committed
``spec/`` must be exactly what fetch makes of the published documents, and must carry none of their
prose.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.helpers import package_mypy_cache

_spec = importlib.util.spec_from_file_location("published", ROOT / "tools" / "published.py")
assert _spec and _spec.loader
published = importlib.util.module_from_spec(_spec)
sys.modules["published"] = published
_spec.loader.exec_module(published)

BIN = Path(sys.executable).parent
SNAPSHOTS = ("platform-api.yaml", "scim-api.yaml", "data-api.yaml", "chat-api.yaml")
PROSE_MIN = 40
PROSE_WORDS = 5
"""Passages this long, of this many words, are sentences (shorter ones repeat schema names)."""


def _project_copy(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "spec", project / "spec")
    return project


def _run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, check=False, env={**_base_env(), **env}
    )


def _base_env() -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("CUBE_")}
    env["CUBE_CODEGEN_NO_CACHE"] = "1"
    return env


def _fetch_platform(
    shared: Path, document: Path, project: Path
) -> subprocess.CompletedProcess[str]:
    """``cube-codegen fetch`` of the platform family, as a maintainer runs it against a tenant
    (here a loopback HTTPS server serving ``document`` at ``/api/v1/spec``)."""
    with published.serve(published.routes(shared, document)) as (base_url, bundle):
        fetch = [
            "fetch",
            "--family",
            "platform",
            "--base-url",
            base_url,
            "--ca-bundle",
            str(bundle),
        ]
        return _run([str(BIN / "cube-codegen"), *fetch], project, CUBE_API_KEY="loopback-token")


def _load(path: Path) -> Any:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)


def _operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    return {
        (method, path)
        for path, item in document.get("paths", {}).items()
        for method in item
        if method in methods
    }


def _prose(node: Any, out: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("description", "summary") and isinstance(value, str):
                out.add(" ".join(value.split()))
            elif key == "x-mint" and isinstance(value, dict):
                out.update(" ".join(v.split()) for v in value.values() if isinstance(v, str))
            _prose(value, out)
    elif isinstance(node, list):
        for value in node:
            _prose(value, out)


@pytest.fixture(scope="module")
def fetched(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A copy of the project after every family's fetch from the published documents (the
    newest platform one), as ``make snapshot`` runs them, and their outputs: what the snapshot
    test compares, and the newest platform document fetched for the generation test."""
    project = _project_copy(tmp_path_factory.mktemp("published"))
    return project, published.snapshot(shared_dir, project)


def test_committed_snapshots_are_what_fetch_makes(fetched: tuple[Path, list[str]]) -> None:
    project, outputs = fetched
    assert len(outputs) == len(SNAPSHOTS)
    for name in SNAPSHOTS:
        made = (project / "spec" / name).read_bytes()
        assert made == (ROOT / "spec" / name).read_bytes(), f"spec/{name} is not fetch's output"
    assert all("unmatched" not in out for out in outputs), outputs


def test_snapshots_keep_every_operation_and_schema(shared_dir: Path) -> None:
    cube = shared_dir / "specs" / "cube"
    pairs = {
        "platform-api.yaml": published.platform_documents(shared_dir)[-1],
        **{f"{family}-api.yaml": cube / name for family, name in published.FAMILY_FILES.items()},
    }
    for ours, theirs in pairs.items():
        mine, original = _load(ROOT / "spec" / ours), _load(theirs)
        assert _operations(mine) == _operations(original), ours
        schemas = original.get("components", {}).get("schemas", {})
        kept = mine.get("components", {}).get("schemas", {})
        assert set(kept) == set(schemas), ours
        for name, schema in schemas.items():  # required lists and enums survive untouched
            assert kept[name].get("required") == schema.get("required"), (ours, name)
            assert kept[name].get("enum") == schema.get("enum"), (ours, name)


def test_no_published_prose_in_spec_or_generated(shared_dir: Path) -> None:
    theirs: set[str] = set()
    for document in (shared_dir / "specs" / "cube").glob("*.yaml"):
        _prose(_load(document), theirs)
    # The service's own pages too: its description, changelog and guides, sentence by sentence.
    pages = [
        *(shared_dir / "service").glob("*.txt"),
        *(shared_dir / "specs" / "cube").glob("*.mdx"),
    ]
    for page in pages:
        text = " ".join(page.read_text(encoding="utf-8", errors="replace").split())
        theirs.update(s.strip() for s in re.split(r"(?<=[.;!?])\s+", text))
    passages = {p for p in theirs if len(p) >= PROSE_MIN and len(p.split()) >= PROSE_WORDS}
    assert len(passages) > 100  # the documents are prose-rich: the check has something to find
    ours = []
    for folder in ("spec", "generated"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".yaml", ".py", ".md", ".toml"):
                ours.append(" ".join(path.read_text(encoding="utf-8").split()))
    text = "\n".join(ours)
    found = sorted(p for p in passages if p in text)
    assert not found, f"{len(found)} published passages found, e.g. {found[0][:100]!r}"


@pytest.mark.parametrize(
    "which",
    [pytest.param(-2, id="previous", marks=pytest.mark.heavy), pytest.param(-1, id="newest")],
)
@pytest.mark.slow
def test_fetch_then_generate_gives_a_clean_package(
    shared_dir: Path, tmp_path: Path, request: pytest.FixtureRequest, which: int
) -> None:
    """The newest published document, fetched, gives the committed package (``make lint`` holds
    that one clean and typed); the previous one (``make test-heavy``) a package that passes ruff,
    ``mypy --strict`` and imports."""
    if which == -1:  # the snapshot's fetch of it (platform first), on a copy of that project
        fetched, outputs = request.getfixturevalue("fetched")
        project = tmp_path / "project"
        shutil.copytree(fetched / "spec", project / "spec")
        stdout = outputs[0]
    else:
        document = published.platform_documents(shared_dir)[which]
        project = _project_copy(tmp_path)
        done = _fetch_platform(shared_dir, document, project)
        assert done.returncode == 0, done.stderr
        stdout = done.stdout
    assert "overlays: all" in stdout and "unmatched" not in stdout, stdout
    out = project / "generated"
    done = _run([str(BIN / "cube-codegen"), "generate", "--out", str(out)], project)
    assert done.returncode == 0, done.stderr
    package = out / "cube_client"
    if which == -1:  # the newest is the committed snapshot: the package is the committed one
        differing = [
            str(p.relative_to(package))
            for p in package.rglob("*")
            if p.is_file()
            and p.read_bytes()
            != (ROOT / "generated" / "cube_client" / p.relative_to(package)).read_bytes()
        ]
        assert not differing, differing[:5]
        return
    for check in (["ruff", "check", "."], ["ruff", "format", "--check", "."]):
        done = _run([str(BIN / check[0]), *check[1:]], package)
        assert done.returncode == 0, done.stdout[-2000:]
    # on a copy of the committed package's cache (``make lint`` leaves it warm): mypy checks
    # again what the previous document changes, and what depends on it
    cache = package_mypy_cache(tmp_path / "mypy-cache")
    done = _run([str(BIN / "mypy"), "--strict", "--cache-dir", str(cache), "cube_client"], package)
    assert done.returncode == 0, done.stdout[-3000:]
    done = _run(
        [sys.executable, "-c", "import cube_client; cube_client.PlatformClient"],
        package,
        PYTHONPATH=str(package),
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_fetch_reports_a_removed_operation_before_writing(shared_dir: Path, tmp_path: Path) -> None:
    project = _project_copy(tmp_path)
    newest = published.platform_documents(shared_dir)[-1]
    document = _load(newest)
    gone_path = "/api/v1/deployments/{deploymentId}/versions"
    del document["paths"][gone_path]
    changed = tmp_path / "platform-api.99_removed.yaml"
    changed.write_text(yaml.safe_dump(document), encoding="utf-8")
    before = (project / "spec" / "platform-api.yaml").read_bytes()
    done = _fetch_platform(shared_dir, changed, project)
    lines = done.stdout.splitlines()
    removed = [i for i, line in enumerate(lines) if f"GET {gone_path}: operation removed" in line]
    wrote = [i for i, line in enumerate(lines) if line.startswith("wrote ")]
    assert removed, done.stdout
    assert "breaking" in lines[removed[0]]
    if wrote:  # reported before the snapshot was replaced
        assert removed[0] < wrote[0]
    else:
        assert (project / "spec" / "platform-api.yaml").read_bytes() == before
