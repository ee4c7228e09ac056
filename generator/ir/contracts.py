"""What generated code may not name: read from the runtime's source, never copied by hand.

A generated client inherits from the runtime's ``SyncAPIClient``/``AsyncAPIClient`` and a resource
from ``SyncAPIResource``/``AsyncAPIResource``; a resource attribute or operation method named like
one of their public members would shadow it (a tag ``Send`` would replace ``client.send``). The
public surface is found by parsing the runtime modules: methods, properties, class attributes and
``self.x`` assignments, through base classes the runtime defines.
"""

from __future__ import annotations

import ast
import builtins
import functools
import re

from generator import TEMPLATES

RUNTIME_DIR = TEMPLATES / "runtime"
CLIENT_CLASSES = (("_sync_client", "SyncAPIClient"), ("_async_client", "AsyncAPIClient"))
RESOURCE_CLASSES = (("_resource", "SyncAPIResource"), ("_resource", "AsyncAPIResource"))
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+[^\n]+?[ \t]+)?import[ \t]+([\w \t,]+?)[ \t]*$", re.MULTILINE
)
_SPEC_IMPORTS = re.compile(r'spec_imports\([^"]*"""(.*?)"""', re.DOTALL)

Import = tuple[str, str | None]  # (module, name); name None for ``import module``

# The imports a model class module may need, by the name each binds; the emitter writes the ones
# a class's body uses (generator.emit.imports), and a schema class may not take any of these.
CLASS_MODULE_IMPORTS: dict[str, Import] = {
    "datetime": ("datetime", None),
    "Mapping": ("collections.abc", "Mapping"),
    "Sequence": ("collections.abc", "Sequence"),
    "TYPE_CHECKING": ("typing", "TYPE_CHECKING"),
    "Annotated": ("typing", "Annotated"),
    "Any": ("typing", "Any"),
    "Literal": ("typing", "Literal"),
    "NotRequired": ("typing", "NotRequired"),
    "Self": ("typing", "Self"),
    "TypedDict": ("typing", "TypedDict"),
    "ConfigDict": ("pydantic", "ConfigDict"),
    "Field": ("pydantic", "Field"),
    "RootModel": ("pydantic", "RootModel"),
    "model_validator": ("pydantic", "model_validator"),
    "BaseModel": ("{pkg}._models", "BaseModel"),
    "Open": ("{pkg}._models", "Open"),
    "LoadResponseMixin": ("{pkg}._results", "LoadResponseMixin"),
    "LoadResultMixin": ("{pkg}._results", "LoadResultMixin"),
}


def _imported_names(template: str) -> frozenset[str]:
    """Every name a template's import lines bind in the module it renders (``import x``,
    ``from y import a, b as c``), read from the template itself so the list cannot fall behind."""
    return _names_imported_by((TEMPLATES / template).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=16)
def _names_imported_by(text: str) -> frozenset[str]:
    """:func:`_imported_names` of a template's text (asked once per operation: kept by text,
    so an edited template is read again)."""
    names: set[str] = set()
    for group in _IMPORT.findall(text):
        for part in group.split(","):
            words = part.split()
            if words:
                names.add(words[-1])  # ``a as c`` binds c
    for spec in _SPEC_IMPORTS.findall(text):
        names.update(import_spec(spec))
    return frozenset(names)


def import_spec(spec: str) -> dict[str, Import]:
    """A template's candidate imports (``spec_imports``), by the name each binds: one module per
    line followed by the names it offers, ``name:alias`` for ``name as alias``, a module alone
    for ``import module``."""
    table: dict[str, Import] = {}
    for line in spec.splitlines():
        module, *names = line.split() or [""]
        for name in names:
            real, _, alias = name.partition(":")
            table[alias or real] = (module, f"{real} as {alias}" if alias else real)
        if module and not names:
            table[module.split(".", maxsplit=1)[0]] = (module, None)
    return table


@functools.cache
def _module(name: str) -> ast.Module:
    return ast.parse((RUNTIME_DIR / f"{name}.py").read_text(encoding="utf-8"), f"{name}.py")


def _imported_from(module: ast.Module, name: str) -> str | None:
    """The runtime module ``name`` is imported from (``from ._x import name``), if any."""
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            if any((a.asname or a.name) == name for a in node.names):
                return node.module
    return None


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, ast.AnnAssign):
        return [node.target]
    return []


@functools.cache
def members(module_name: str, class_name: str) -> frozenset[str]:
    """Public names an instance of the runtime class ``module_name.class_name`` has."""
    module = _module(module_name)
    cls = next(
        (n for n in module.body if isinstance(n, ast.ClassDef) and n.name == class_name), None
    )
    if cls is None:
        raise LookupError(f"runtime class {module_name}.{class_name} not found")
    names: set[str] = set()
    for base in cls.bases:
        if isinstance(base, ast.Name):
            source = _imported_from(module, base.id)
            if source is not None:
                names |= members(source, base.id)
            elif any(isinstance(n, ast.ClassDef) and n.name == base.id for n in module.body):
                names |= members(module_name, base.id)
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        names.update(t.id for t in _targets(node) if isinstance(t, ast.Name))
    for inner in ast.walk(cls):  # instance attributes: ``self.x = ...`` in any method
        names.update(
            t.attr
            for t in _targets(inner)
            if isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name)
            and t.value.id == "self"
        )
    return frozenset(n for n in names if not n.startswith("_"))


def client_members() -> frozenset[str]:
    """Names a resource attribute of a generated client may not take."""
    return frozenset().union(*(members(m, c) for m, c in CLIENT_CLASSES))


def resource_members() -> frozenset[str]:
    """Names an operation method of a generated resource may not take."""
    return frozenset().union(*(members(m, c) for m, c in RESOURCE_CLASSES))


def resource_annotation_names() -> frozenset[str]:
    """Names the annotations inside a generated resource class read: builtin types (``str``,
    ``int``, ``list``) and what the resource module imports (``datetime``). A method named like
    one would shadow it in the class body, and every later annotation would name the method."""
    types = {n for n in dir(builtins) if n.islower() and isinstance(getattr(builtins, n), type)}
    return frozenset(types) | _imported_names("family/resource.py.jinja")


def method_body_names() -> frozenset[str]:
    """Names an operation's parameter steps off with a ``_`` (``cast_``): a parameter would
    shadow it in the body (``cast(str, ...)`` would name the argument), so the method would
    neither type-check nor run. What the rendered methods' bodies read or bind (their locals
    ``call``, ``submitted``, ``job``, the builtins of their checks and casts;
    :mod:`generator.ir.bound_names`) and what the resource module imports; not the method's own
    arguments (those take a number: ``timeout_2``)."""
    from generator.ir.bound_names import bound_names

    bound = bound_names()
    imported = _imported_names("family/resource.py.jinja")
    # parameters are lower case: ``Query`` or ``NOT_GIVEN`` cannot collide (and reserving
    # them in a case-blind namespace would rename ``query``)
    return frozenset(
        n
        for n in (bound.body - bound.arguments - bound.waiting) | imported
        if n.islower() and n != "annotations"
    )


def method_arguments() -> frozenset[str]:
    """The arguments every operation method takes besides the document's (``timeout``,
    ``extra_headers``, ``body``), read from the rendered stub family."""
    from generator.ir.bound_names import bound_names

    return bound_names().arguments


def waiting_arguments() -> frozenset[str]:
    """What a method that waits under a request id takes besides the others' arguments
    (``request_id``, ``wait_timeout``, ``on_progress``), read from the rendered stub family."""
    from generator.ir.bound_names import bound_names

    return bound_names().waiting


def client_arguments() -> frozenset[str]:
    """What a server variable may not be called: every name a client constructor binds or
    reads (its arguments ``base_url``, ``strict``, the ``resolve_base_url`` it calls)."""
    from generator.ir.bound_names import bound_names

    return bound_names().client


def model_module_names() -> frozenset[str]:
    """Names a schema class may not take: what the models module imports (``Open``, ``Field``),
    and what the rendered model modules and generated tests bind or name at their top level
    (``Unknown``; :mod:`generator.ir.bound_names`)."""
    from generator.ir.bound_names import bound_names

    return _model_module_names(bound_names())


@functools.cache
def _model_module_names(bound: object) -> frozenset[str]:
    from generator.ir.bound_names import BoundNames

    assert isinstance(bound, BoundNames)
    imported = _imported_names("family/model_class.py.jinja") | frozenset(CLASS_MODULE_IMPORTS)
    return imported | {n for n in bound.module if n[:1].isupper()}
