"""Import blocks written as the linter's import sorting wants them, from the names a module uses.

A template renders its module's body first, then asks :func:`import_block` for the imports of
the names the body really uses (:func:`used_names`), so no unused import is ever written and no
fix-up pass runs after rendering. Sections, order and wrapping follow ruff's isort rules:
future, standard library, third party, first party, local; ``import x`` before ``from x import``;
constants, then classes, then other names; a line over the limit wrapped one name per line.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable

from generator.emit.layout import LINE_LENGTH
from generator.ir.contracts import CLASS_MODULE_IMPORTS, Import, import_spec

_STDLIB = frozenset(sys.stdlib_module_names)
# One pass over a module's text: strings and comments, ``name: T`` at the start of a line (binds
# ``name``: a field, a TypedDict key), runs of blanks and punctuation (so that they cost one
# match, not one failed try per character), and ``f(name=...)`` (formatted code writes a
# keyword argument with no space before ``=``, while ``x: T = v`` and ``x = v`` have one, and
# bind anyway: a name followed by ``=`` but not ``==`` is skipped as a run of name characters)
# are matched and skipped; what is left are runs of name characters and dots, whose leading name
# (group 1) is a use unless a dot or a digit starts the run (an attribute, a number). Possessive
# quantifiers (``*+``) keep a name whole when what follows it is looked at.
_SCAN = re.compile(
    r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r"|#[^\n]*"
    r"|^[ \t]*+[A-Za-z_]\w*+[ \t]*+:(?!=)"
    r"|[^\w\"'#.\n]+"
    r"|([A-Za-z_]\w*+)(?!=(?!=))[\w.]*"
    r"|[\w.]+",
    re.MULTILINE,
)
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def used_names(code: str) -> frozenset[str]:
    """Names ``code`` reads outside strings and comments: attribute names, keyword arguments
    and annotated names (``name: T``) do not count. Code made of complete statements joined by
    newlines uses exactly the names its parts use."""
    found = set(_SCAN.findall(code))
    found.discard("")
    return frozenset(found)


@functools.lru_cache(maxsize=1024)
def _section(module: str, first_party: str) -> int:
    if module == "__future__":
        return 0
    if module.startswith("."):
        return 4
    root = module.split(".", maxsplit=1)[0]
    if root == first_party:
        return 3
    return 1 if root in _STDLIB else 2


@functools.lru_cache(maxsize=8192)
def natural(text: str) -> tuple[object, ...]:
    """Natural order, as the linter sorts: ``item9`` before ``item58``."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def name_kind(name: str) -> int:
    """The linter's order of imported names and ``__all__`` entries: constants (0), classes (1),
    the rest (2)."""
    if len(name) > 1 and name.isupper():
        return 0
    return 1 if name[:1].isupper() else 2


@functools.lru_cache(maxsize=8192)
def _member_key(name: str) -> tuple[int, tuple[object, ...], str]:
    return name_kind(name), natural(name.lower()), name


@functools.lru_cache(maxsize=8192)
def _module_key(module: str) -> tuple[object, ...]:
    return natural(module.lower())


def _from_line(module: str, names: list[str], indent: str) -> str:
    line = f"{indent}from {module} import {', '.join(names)}"
    if len(line) <= LINE_LENGTH:
        return line
    inner = "".join(f"{indent}    {n},\n" for n in names)
    return f"{indent}from {module} import (\n{inner}{indent})"


# A model class module imports the same few names from the same few modules as its neighbours:
# each module's lines are made once per run (a large document has thousands of class modules).
@functools.lru_cache(maxsize=4096)
def _member_lines(module: str, names: frozenset[str], indent: str) -> tuple[str, ...]:
    """The ``from module import ...`` lines of ``names``: plain names together, each
    ``x as y`` on a line of its own."""
    ordered = sorted(names, key=_member_key)
    plain_names = [n for n in ordered if " as " not in n]
    lines = [_from_line(module, plain_names, indent)] if plain_names else []
    return (*lines, *(_from_line(module, [n], indent) for n in ordered if " as " in n))


def import_block(imports: Iterable[Import], first_party: str, indent: str = "") -> str:
    """The sorted import statements for ``imports``, sections separated by a blank line."""
    plain: dict[int, set[str]] = {}
    members: dict[int, dict[str, set[str]]] = {}
    for module, name in imports:
        section = _section(module, first_party)
        if name is None:
            plain.setdefault(section, set()).add(module)
        else:
            members.setdefault(section, {}).setdefault(module, set()).add(name)
    blocks: list[str] = []
    for section in sorted({*plain, *members}):
        lines = [f"{indent}import {m}" for m in sorted(plain.get(section, ()), key=_module_key)]
        by_module = members.get(section, {})
        for module in sorted(by_module, key=_module_key):
            lines += _member_lines(module, frozenset(by_module[module]), indent)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def imports_used(code: str, table: dict[str, Import]) -> list[Import]:
    """The entries of ``table`` (bound name → import) whose name ``code`` uses."""
    used = used_names(code)
    return [imp for name, imp in table.items() if name in used]


def class_module_imports(
    names: frozenset[str],
    package: str,
    runtime: Iterable[Import],
    type_checking: Iterable[Import],
    type_strings: Iterable[str] = (),
) -> str:
    """The imports of one model class module: what its body uses (``names``, see
    :func:`used_names`), the classes it needs at run time, and, under ``TYPE_CHECKING``, those
    only annotations name. ``type_strings`` are type expressions written as strings (a
    functional TypedDict's items), whose names count too."""
    used = names | {n for s in type_strings for n in _NAME.findall(s)}
    late = sorted({imp for imp in type_checking if imp[1] in used})
    top = [imp for name, imp in _class_module_table(package) if name in used]
    top += [imp for imp in runtime if imp[1] in used]
    if late:
        top.append(("typing", "TYPE_CHECKING"))
    text = _top_block(frozenset(top), package)
    if late:
        text += "\n\nif TYPE_CHECKING:\n" + import_block(late, package, "    ")
    return text


@functools.lru_cache(maxsize=1024)
def _top_block(imports: frozenset[Import], package: str) -> str:
    """A class module's imports but those for type checkers: the same few sets over and over."""
    return import_block(imports, package)


@functools.lru_cache(maxsize=16)
def _class_module_table(package: str) -> tuple[tuple[str, Import], ...]:
    """(bound name, import) of every name a class module may import but ``TYPE_CHECKING``."""
    return tuple(
        (name, (module.replace("{pkg}", package), bound))
        for name, (module, bound) in CLASS_MODULE_IMPORTS.items()
        if name != "TYPE_CHECKING"
    )


def spec_imports(body: str, package: str, spec: str) -> str:
    """The import block of a module whose candidate imports a template lists in ``spec``, one
    module per line followed by the names it offers (a module alone: ``import module``);
    ``{pkg}`` stands for the package. Only names ``body`` uses are imported."""
    table = import_spec(spec.replace("{pkg}", package))
    return import_block(imports_used(body, table), package)
