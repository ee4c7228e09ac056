"""A guard for the IR builder's one naming pass (``ir/naming_pass.py``): after the pass, any type
lookup fails the build. Used by the naming-pass tests, and by the large-document test, whose one
generation of the payments document is also the naming pass's check on it (built once)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from generator.ir import build
from generator.ir.bound_names import bound_names
from generator.ir.context import BuildContext
from generator.ir.naming_pass import name_classes


@dataclass
class Passes:
    """What the guarded builds did: the number of sites each naming pass named, and the build
    context of each (its catalogue)."""

    named: list[int] = field(default_factory=list)
    contexts: list[BuildContext] = field(default_factory=list)


@contextlib.contextmanager
def typing_only_in_the_pass() -> Iterator[Passes]:
    """Inside the block, a build that types a schema after its naming pass fails."""
    # The names the templates bind are derived, once per template change, by building a family
    # of their own: derived here, before the passes are counted, never inside a guarded build.
    bound_names()
    passes = Passes()

    def pass_then_forbid(ctx: BuildContext, named: Any, *, models: bool = True) -> Any:
        typed = name_classes(ctx, named, models=models)

        def forbidden(schema: Any, hint: str, depth: int = 0) -> Any:
            raise AssertionError(f"the builder typed {hint!r} after the naming pass")

        ctx.types.type_of = forbidden  # type: ignore[method-assign]
        passes.named.append(len(named))
        passes.contexts.append(ctx)
        return typed

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "name_classes", pass_then_forbid)
        yield passes
