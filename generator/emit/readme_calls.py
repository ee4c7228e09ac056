"""The arguments a README example passes to an operation: only what the call needs.

README examples are run and type-checked by the project's tests, so a call must be complete
code, never ``op(...)``. The values are the generated tests' samples (valid for each schema by
construction); nested request objects are given as dicts keyed by wire names, so an example
needs no model import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.emit.testcases import Arg, CaseBuilder
    from generator.ir.types import Family, Operation

_BUILDERS: dict[int, tuple[Family, CaseBuilder]] = {}


def example_args(family: Family, op: Operation) -> str:
    """``op``'s required arguments as call source (positional first), ``""`` when none."""
    from generator.ir.naming import ClassName, PythonIdentifier

    case = _builder(family)._case(op, PythonIdentifier("example"), ClassName("Example"))
    needed = _needed(op)
    chosen = [a for a in case.dict_args or case.args if _required(a, needed)]
    parts = [a.code for a in chosen if a.positional]
    parts += [f"{a.py_name}={a.code}" for a in chosen if not a.positional]
    return ", ".join(parts)


def _builder(family: Family) -> CaseBuilder:
    from generator.emit.testcases import CaseBuilder

    found = _BUILDERS.get(id(family))
    if found is None or found[0] is not family:
        if len(_BUILDERS) > 16:  # one run renders a handful of families
            _BUILDERS.clear()
        found = (family, CaseBuilder(family))
        _BUILDERS[id(family)] = found
    return found[1]


def _needed(op: Operation) -> set[tuple[str, str]]:
    """(location, wire name) of every argument the call cannot leave out."""
    from generator.emit.testcases import _satisfying

    needed = {("path", p.name) for p in op.path_params}
    needed |= {(p.location, p.name) for p in op.other_params if p.required}
    body = op.body
    if body is not None and body.fields is not None:
        needed |= {("body", f.name) for f in body.fields if f.required}
        if body.rule is not None:
            needed |= {("body", name) for name in _satisfying(body.rule, body.fields)}
    elif body is not None and body.required:
        needed |= {("content", "body"), ("whole", "body")}
    return needed


def _required(arg: Arg, needed: set[tuple[str, str]]) -> bool:
    return (arg.location, arg.name) in needed
