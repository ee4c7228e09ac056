"""Type expressions are memoised per type reference: two references the IR tells apart must
never share an expression, even where Python's values compare equal (``1 == True``)."""

from __future__ import annotations

from generator.emit.type_text import py_type
from generator.ir.types import ListOf, LiteralOf, UnionOf


def test_a_literal_true_and_a_literal_one_keep_their_own_expressions() -> None:
    one, true = LiteralOf((1,)), LiteralOf((True,))
    assert one != true and LiteralOf((1,)) == one and hash(LiteralOf((1,))) == hash(one)
    assert py_type(one) == "Literal[1]"
    assert py_type(true) == "Literal[True]"  # asked after Literal[1]: not its memo
    assert py_type(ListOf(LiteralOf((0, "a")))) == 'list[Literal[0, "a"]]'
    assert py_type(ListOf(LiteralOf((False, "a")))) == 'list[Literal[False, "a"]]'
    both = UnionOf((LiteralOf((True,)), LiteralOf((1,))))
    assert py_type(both) == "Literal[True] | Literal[1]"
