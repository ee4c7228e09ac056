"""``snake_case`` and ``pascal_case`` give back a text already made of their own words without
splitting it: the same answers as splitting (``ascii_words``) and joining, on tricky spellings
and on random ones."""

from __future__ import annotations

import random

import pytest

from generator.words import ascii_words, pascal_case, snake_case

_TRICKY = [
    "", "_", "a", "A", "a_b", "a__b", "_a", "a_", "a_1b", "1_a", "a1_b", "ab_CD", "ABC", "ABc",
    "AB1", "A1b", "HTTPServer", "FooBar", "fooBar", "Foo2Bar", "GitHub", "GitHubUser",
    "MyGitLabRepo", "OAuthToken", "Github", "PaymentIntentShippingAddress", "X9", "9X", "Ä",
    "Éclair", "Straße", "K\u212a", "name_2", "timeout_2", "Model2", "A_B",
]  # fmt: skip


def _texts() -> list[str]:
    rnd = random.Random(35)
    alphabet = "aAbBzZ09_- .ÄéßHubGitOAuth"
    made = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12))) for _ in range(4000)]
    return _TRICKY + made + [snake_case(t) for t in made] + [pascal_case(t) for t in made]


@pytest.mark.parametrize("texts", [_texts()])
def test_the_fast_paths_answer_as_splitting_does(texts: list[str]) -> None:
    for text in texts:
        words = ascii_words(text)
        assert snake_case.__wrapped__(text) == "_".join(w.lower() for w in words), text
        assert pascal_case.__wrapped__(text) == "".join(w[:1].upper() + w[1:] for w in words), text
