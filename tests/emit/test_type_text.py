"""Type expressions are memoised per type reference: two references the IR tells apart must
never share an expression, even where Python's values compare equal (``1 == True``)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

from generator.emit.type_text import py_type
from generator.ir.types import ListOf, LiteralOf, UnionOf
from tests.helpers import ROOT


def test_a_literal_true_and_a_literal_one_keep_their_own_expressions() -> None:
    one, true = LiteralOf((1,)), LiteralOf((True,))
    assert one != true and LiteralOf((1,)) == one and hash(LiteralOf((1,))) == hash(one)
    assert py_type(one) == "Literal[1]"
    assert py_type(true) == "Literal[True]"  # asked after Literal[1]: not its memo
    assert py_type(ListOf(LiteralOf((0, "a")))) == 'list[Literal[0, "a"]]'
    assert py_type(ListOf(LiteralOf((False, "a")))) == 'list[Literal[False, "a"]]'
    both = UnionOf((LiteralOf((True,)), LiteralOf((1,))))
    assert py_type(both) == "Literal[True] | Literal[1]"


def test_an_enum_loaded_from_another_process_hashes_as_one_made_here() -> None:
    """An enum keeps its hash, made once; loaded from a pickle a process with another string
    hash seed wrote, it is made again here, so it still meets its equal in a memo."""
    code = (
        "import pickle, sys; from generator.ir.types import LiteralOf; "
        "sys.stdout.write(pickle.dumps(LiteralOf(('open', 1, True))).hex())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    loaded = pickle.loads(bytes.fromhex(out))
    here = LiteralOf(("open", 1, True))
    assert loaded == here and hash(loaded) == hash(here) and {here: 1}[loaded] == 1
    assert loaded != LiteralOf(("open", True, True))
