"""The names the templates bind, read from the rendered code of a stub family: never listed
by hand, so no list can fall behind a template.

A small built-in document (a server variable, path, query and header parameters, a flattened
body, a job with its status and download, a paged list, a model) is generated once per
generator version, and its code is parsed: the client constructors' arguments and every name
their bodies read or bind (what a server variable may not be called), the operation methods'
own arguments and the names their bodies use (what an operation parameter may not be called),
and the names the model modules and the generated tests bind at their top level (what a schema
class may not be called). The stub's own names all start with ``zz`` and are left out. The
result is kept in the private run state (``names/``), keyed by a hash of the templates and the
generator's sources, so generation does not pay for it; while the stub itself is generated
only the names read from the runtime and the templates' imports apply
(:mod:`generator.ir.contracts`).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path

from generator import GENERATOR_DIR, TEMPLATES, __version__, runstate
from generator.ir.stub_family import STUB

_STUB_PREFIX = "zz"


@dataclasses.dataclass(frozen=True, eq=False)  # hashed by identity: a cache key, made once
class BoundNames:
    client: frozenset[str]  # names a client constructor binds or reads
    arguments: frozenset[str]  # an operation method's own arguments (``timeout``, ``self``)
    waiting: frozenset[str]  # what a call under a request id adds (``request_id``, ``on_progress``)
    body: frozenset[str]  # names an operation method's body reads or binds (``cast``, ``call``)
    module: frozenset[str]  # top-level names of model modules and generated tests

    def as_json(self) -> dict[str, list[str]]:
        return {k: sorted(v) for k, v in dataclasses.asdict(self).items()}


_FIELDS = ("client", "arguments", "waiting", "body", "module")
EMPTY = BoundNames(*(frozenset[str]() for _ in _FIELDS))
_state = {"bootstrapping": False}
_renderer: list[Callable[[], dict[str, str]]] = []


def bound_names() -> BoundNames:
    """The names the templates bind (see the module); :data:`EMPTY` while the stub renders."""
    if _state["bootstrapping"]:
        return EMPTY
    return _cached()


FOLDER = "names"  # in the run state, and in the per-user cache


@functools.cache
def _cached() -> BoundNames:
    """From the run state, else from the per-user cache (shared by every project of this
    user), else derived now and kept in both."""
    folders = []
    for top in dict.fromkeys((runstate.locate()[0], runstate.user_cache())):
        try:
            folders.append(runstate.private_dir(top, FOLDER))
        except OSError:
            continue
    for folder in folders:
        try:
            raw = json.loads(runstate.read_private(_file(folder)) or b"")
            return BoundNames(*(frozenset(raw[k]) for k in _FIELDS))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    found = _read_stub()
    for folder in folders:
        with contextlib.suppress(OSError):
            _keep(folder, found)
    return found


def keep_in(state: Path) -> None:
    """Keep the names (as this process knows them, derived if need be) in the run state folder
    ``state``, as a derivation there would: no run that uses it derives them again."""
    _keep(runstate.private_dir(state, FOLDER), _cached())


def _keep(folder: Path, names: BoundNames) -> None:
    runstate.write_private(_file(folder), json.dumps(names.as_json()).encode())


def _file(folder: Path) -> Path:
    return folder / f"{_key()}.json"


@functools.cache
def _key() -> str:
    """A hash of what the stub's code depends on: the generator's sources and templates (read
    once per process, as the names themselves are)."""
    h = hashlib.sha256(__version__.encode())
    for root, pattern in ((TEMPLATES, "*"), (GENERATOR_DIR, "*.py")):
        for file in sorted(p for p in root.rglob(pattern) if p.is_file()):
            h.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes())
    return h.hexdigest()[:32]


def _read_stub() -> BoundNames:
    files = _render_stub()
    client: set[str] = set()
    arguments: set[str] = set()
    waiting: set[str] = set()
    body: set[str] = set()
    module: set[str] = set()
    for rel, text in files.items():
        if not rel.endswith(".py"):
            continue
        tree = ast.parse(text)
        name = rel.rsplit("/", 1)[-1]
        if name == "_client.py":
            for fn in _methods(tree, "__init__"):
                client |= _args(fn) | _names(fn)
        elif "/resources/" in rel and name != "__init__.py":
            for fn in _methods(tree, None):  # the operations: the resources' public methods
                (waiting if fn.name.startswith("zz_wait") else arguments).update(_args(fn))
                body |= _names(fn)
        elif name in ("models.py", "_models.py") or "/_classes/" in rel or "/tests/" in rel:
            module |= _top_level(tree)
    waiting -= arguments
    found = (client, arguments, waiting, body, module)
    return BoundNames(*(frozenset(_drop_stub(s)) for s in found))


def use_renderer(render: Callable[[], dict[str, str]]) -> None:
    """How the stub family is rendered, set by the pipeline (:mod:`generator.pipeline`): the IR
    stage never imports a later one, so the stage that renders hands its renderer down."""
    _renderer[:] = [render]


def stub_document() -> dict[str, object]:
    """The stub family's document (``zz`` names only)."""
    return STUB


@contextlib.contextmanager
def rendering_stub() -> Iterator[None]:
    """While the stub renders, :func:`bound_names` is :data:`EMPTY` (see the module)."""
    _state["bootstrapping"] = True
    try:
        yield
    finally:
        _state["bootstrapping"] = False


def _render_stub() -> dict[str, str]:
    if not _renderer:
        raise RuntimeError(
            "the names the templates bind are not derived yet and no renderer is set: "
            "import generator.pipeline (it sets one) before building an IR"
        )
    return _renderer[0]()


def _methods(tree: ast.Module, only: str | None) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [
        fn
        for cls in tree.body
        if isinstance(cls, ast.ClassDef) and (only or not cls.name.endswith("RawResponse"))
        for fn in cls.body
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (fn.name == only if only else not fn.name.startswith("_"))
    ]


def _args(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    every = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
    return {arg.arg for arg in every}


def _names(fn: ast.AST) -> set[str]:
    """Every plain name a function's body reads or binds (its lambdas' arguments too)."""
    found = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    found |= {arg.arg for n in ast.walk(fn) if isinstance(n, ast.Lambda) for arg in n.args.args}
    return found


def _top_level(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {t.id for t in targets if isinstance(t, ast.Name)}
    found |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id[:1].isupper()}
    return found


def _drop_stub(names: set[str]) -> set[str]:
    return {n for n in names if _STUB_PREFIX not in n.lower() and n != "*"}
